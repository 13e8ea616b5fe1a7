// 练习4 (step p4): one new process event and one derived view. After each model call the loop logs
// what the call cost, `model/usage`, with the turn and step it belongs to. A cost dashboard does not
// keep its own running totals; it derives them from the log with `usageByTurn(events)`, so the same
// log — live, or replayed from disk a week later — always shows the same numbers, and nothing the
// dashboard does can change the record. The model never sees these events: the chapter's projection
// knows nothing of them.
import { z } from "zod";
import { isEventOfType } from "../../chapters/05-session-log/events.ts";
import type { EventSchemas } from "../../chapters/05-session-log/event-schemas.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import { UsageError, type TokenUsage, type TurnUsage } from "../../exercises/05-session-log/given/usage-view.ts";

// Given to the learner, so shared with the stub: the `model/usage` type, TokenUsage, UsageError and
// the dashboard row.
export * from "../../exercises/05-session-log/given/usage-view.ts";

const counter = z.number().int().positive();
const tokens = z.number().int().nonnegative();

/** Pass to the chapter's Session: `new Session({ schemas: usageSchemas })`. */
export const usageSchemas: EventSchemas = {
  "model/usage": z
    .strictObject({
      turn: counter,
      step: counter,
      prompt_tokens: tokens,
      completion_tokens: tokens,
      prompt_cache_hit_tokens: tokens,
    })
    // DeepSeek splits the prompt into cache hits and misses; the hits are part of the prompt.
    .refine((usage) => usage.prompt_cache_hit_tokens <= usage.prompt_tokens, {
      message: "prompt_cache_hit_tokens cannot exceed prompt_tokens",
      path: ["prompt_cache_hit_tokens"],
    }),
};

/**
 * Logs the usage of the model call just made. The turn and step are read from the log — the step
 * still open (a `step/start` with no `step/end` after it) — rather than passed in, so they cannot
 * disagree with the boundaries the loop wrote.
 */
export function recordUsage(session: SessionLog, usage: TokenUsage): SessionEvent<"model/usage"> {
  const step = openStep(session.events);
  if (step === null) {
    throw new UsageError("model/usage belongs to a model call, inside a step, but no step is open");
  }
  // Only the three counts: the API's usage object carries more (total_tokens, cache misses, …), and
  // the strict schema would refuse them; anything else can be derived from these.
  const { prompt_tokens, completion_tokens, prompt_cache_hit_tokens } = usage;
  return session.append("model/usage", { ...step, prompt_tokens, completion_tokens, prompt_cache_hit_tokens });
}

function openStep(events: readonly SessionEvent[]): { turn: number; step: number } | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (isEventOfType(event, "step/end")) return null;
    if (isEventOfType(event, "step/start")) return { turn: event.data.turn, step: event.data.step };
  }
  return null;
}

/** The dashboard's view: usage summed per turn, turns in ascending order. Computed from the log alone. */
export function usageByTurn(events: readonly SessionEvent[]): TurnUsage[] {
  const rows = new Map<number, TurnUsage>(); // a fresh accumulator per call: no state outlives it
  for (const event of events) {
    if (!isEventOfType(event, "model/usage")) continue;
    const { turn, prompt_tokens, completion_tokens, prompt_cache_hit_tokens } = event.data;
    const row = rows.get(turn) ?? emptyRow(turn);
    rows.set(turn, {
      turn,
      modelCalls: row.modelCalls + 1,
      promptTokens: row.promptTokens + prompt_tokens,
      completionTokens: row.completionTokens + completion_tokens,
      cacheHitTokens: row.cacheHitTokens + prompt_cache_hit_tokens,
      cacheMissTokens: row.cacheMissTokens + (prompt_tokens - prompt_cache_hit_tokens),
    });
  }
  return [...rows.values()].sort((a, b) => a.turn - b.turn);
}

function emptyRow(turn: number): TurnUsage {
  return { turn, modelCalls: 0, promptTokens: 0, completionTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0 };
}
