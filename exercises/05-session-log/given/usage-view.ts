// Given for step p4 (练习4): you don't need to change this file.
// The `model/usage` event type, what one model call costs, the error for usage recorded where it
// cannot belong, and one row of the cost dashboard. ../usage-view.ts re-exports all of it; the
// schema, recordUsage and usageByTurn are yours.

declare module "../../../chapters/05-session-log/events.ts" {
  interface SessionEventMap {
    /** What one model call cost, logged after the call inside the step that made it. */
    "model/usage": {
      turn: number;
      step: number;
      prompt_tokens: number;
      completion_tokens: number;
      prompt_cache_hit_tokens: number;
    };
  }
}

/** What one model call cost, as DeepSeek's `usage` reports it. */
export interface TokenUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly prompt_cache_hit_tokens: number;
}

/** Usage was recorded where it cannot belong. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** One row of the cost dashboard. cacheMissTokens = promptTokens − cacheHitTokens. */
export interface TurnUsage {
  readonly turn: number;
  readonly modelCalls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cacheHitTokens: number;
  readonly cacheMissTokens: number;
}
