// Decoy for step p4: the dashboard keeps running totals, updated by recordUsage, instead of deriving
// them from the log. A log replayed from disk (or any other session) shows the wrong numbers.
import type { Session, SessionEvent } from "../../chapters/05-session-log/session.ts";
import { recordUsage as answerRecordUsage, type TokenUsage, type TurnUsage } from "../../solutions/05-session-log/usage-view.ts";

export { usageSchemas, UsageError, type TokenUsage, type TurnUsage } from "../../solutions/05-session-log/usage-view.ts";

const totals = new Map<number, TurnUsage>(); // DECOY: state outside the log

export function recordUsage(session: Session, usage: TokenUsage): SessionEvent<"model/usage"> {
  const event = answerRecordUsage(session, usage);
  const { turn, prompt_tokens, completion_tokens, prompt_cache_hit_tokens } = event.data;
  const row = totals.get(turn) ?? { turn, modelCalls: 0, promptTokens: 0, completionTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0 };
  totals.set(turn, {
    turn,
    modelCalls: row.modelCalls + 1,
    promptTokens: row.promptTokens + prompt_tokens,
    completionTokens: row.completionTokens + completion_tokens,
    cacheHitTokens: row.cacheHitTokens + prompt_cache_hit_tokens,
    cacheMissTokens: row.cacheMissTokens + prompt_tokens - prompt_cache_hit_tokens,
  });
  return event;
}

export function usageByTurn(_events: readonly SessionEvent[]): TurnUsage[] {
  return [...totals.values()].sort((a, b) => a.turn - b.turn);
}
