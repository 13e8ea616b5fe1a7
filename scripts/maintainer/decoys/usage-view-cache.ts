// Decoy for step p4: the dashboard keeps its own running record, updated by recordUsage, instead of
// deriving the totals from the log. A log replayed from disk (or any other session) shows the wrong numbers.
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import {
  recordUsage as answerRecordUsage,
  usageByTurn as answerUsageByTurn,
  type TokenUsage,
  type TurnUsage,
} from "../../../solutions/05-session-log/usage-view.ts";

export {
  usageSchemas,
  UsageError,
  type TokenUsage,
  type TurnUsage,
} from "../../../solutions/05-session-log/usage-view.ts";

const recorded: SessionEvent[] = []; // DECOY: state outside the log, shared by every session

export function recordUsage(session: SessionLog, usage: TokenUsage): SessionEvent<"model/usage"> {
  const event = answerRecordUsage(session, usage);
  recorded.push(event);
  return event;
}

export function usageByTurn(_events: readonly SessionEvent[]): TurnUsage[] {
  return answerUsageByTurn(recorded); // DECOY: the events passed in are ignored
}
