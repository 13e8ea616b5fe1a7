// Decoy for step p4: each usage event overwrites its turn's row instead of adding to it, so a turn
// with a tool round trip (two model calls) is billed for its last call only.
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { usageByTurn as answerUsageByTurn, type TurnUsage } from "../../../solutions/05-session-log/usage-view.ts";

export {
  recordUsage,
  usageSchemas,
  UsageError,
  type TokenUsage,
  type TurnUsage,
} from "../../../solutions/05-session-log/usage-view.ts";

export function usageByTurn(events: readonly SessionEvent[]): TurnUsage[] {
  const rows = new Map<number, TurnUsage>();
  for (const event of events) {
    // DECOY: the row of a one-event log, i.e. this call alone, replaces what was there.
    for (const row of answerUsageByTurn([event])) rows.set(row.turn, row);
  }
  return [...rows.values()].sort((a, b) => a.turn - b.turn);
}
