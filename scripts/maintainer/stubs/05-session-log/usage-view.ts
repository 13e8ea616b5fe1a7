// Step p4 — 练习4 (book, end of chapter: "记录并重放一种新的过程事件，同时为一个消费者提供派生视图").
// A new process event, `model/usage` (given: declared in given/usage-view.ts), logged after each
// model call with the turn and step it belongs to, and one derived view for one consumer:
// `usageByTurn(events)`, the rows of a cost dashboard. Write:
//   usageSchemas        the zod schema, strict (z.strictObject, like the chapter's): turn/step
//                       positive integers, token counts non-negative integers, and
//                       prompt_cache_hit_tokens ≤ prompt_tokens (named at that field)
//   recordUsage         reads turn and step from the step still open in the log; none open → UsageError
//   usageByTurn         sums per turn from the events alone — no cache, no state kept between calls
// The same log must give the same view before and after a replay, and the model never sees usage.
// Uses the chapter's Session, so it does not depend on your steps 05.1–05.5.
// Run: npx vitest exercises/05-session-log/p4-usage-view.test.ts
import type { EventSchemas } from "../../chapters/05-session-log/event-schemas.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import type { TokenUsage, TurnUsage } from "./given/usage-view.ts";
import { z } from "zod";
import { todo } from "./todo.ts";

// Given (in given/usage-view.ts): the model/usage type, what a call costs (TokenUsage), UsageError
// and the dashboard row (TurnUsage).
export * from "./given/usage-view.ts";

/**
 * Pass to the chapter's Session: `new Session({ schemas: usageSchemas })`.
 * TODO(p4): a zod schema for "model/usage". Tip: `.refine(check, { message, path: ["prompt_cache_hit_tokens"] })`.
 */
export const usageSchemas: EventSchemas = {};

/**
 * Logs the usage of the model call just made, with the turn and step of the open step (the last
 * `step/start` with no `step/end` after it). Throws UsageError when no step is open.
 */
export function recordUsage(session: SessionLog, usage: TokenUsage): SessionEvent<"model/usage"> {
  return todo(
    "p4",
    `recordUsage：把 ${usage.prompt_tokens} + ${usage.completion_tokens} 个 token 记进打开的步骤`,
    `recordUsage: log ${usage.prompt_tokens} + ${usage.completion_tokens} tokens in the open step`,
  );
}

/** The dashboard's view: usage summed per turn, turns in ascending order, from the log alone. */
export function usageByTurn(events: readonly SessionEvent[]): TurnUsage[] {
  return todo(
    "p4",
    `usageByTurn：在 ${events.length} 条事件里按轮次累加 model/usage 事件`,
    `usageByTurn: sum the model/usage events of ${events.length} events per turn`,
  );
}
