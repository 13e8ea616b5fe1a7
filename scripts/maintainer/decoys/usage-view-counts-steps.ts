// Decoy for step p4: recordUsage counts turn/start and step/start events instead of reading the open
// step, so step numbers run on across turns (turn 2's first step is logged as step 3).
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { UsageError, type TokenUsage } from "../../../solutions/05-session-log/usage-view.ts";

export {
  usageByTurn,
  usageSchemas,
  UsageError,
  type TokenUsage,
  type TurnUsage,
} from "../../../solutions/05-session-log/usage-view.ts";

export function recordUsage(session: SessionLog, usage: TokenUsage): SessionEvent<"model/usage"> {
  const count = (type: string) => session.events.filter((event) => event.type === type).length;
  const last = session.events.findLast((event) => event.type === "step/start" || event.type === "step/end");
  if (last?.type !== "step/start") throw new UsageError("no step is open");
  // DECOY: counted over the whole log, not read from the open step/start.
  const turn = Math.max(count("turn/start"), 1);
  const step = count("step/start");
  const { prompt_tokens, completion_tokens, prompt_cache_hit_tokens } = usage;
  return session.append("model/usage", { turn, step, prompt_tokens, completion_tokens, prompt_cache_hit_tokens });
}
