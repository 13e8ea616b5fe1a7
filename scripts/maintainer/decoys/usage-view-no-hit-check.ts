// Decoy for step p4: the schema checks each count alone and forgets that cache hits are part of the
// prompt, so a log claiming more hits than prompt tokens replays, and the dashboard shows negative misses.
import { z } from "zod";
import type { EventSchemas } from "../../../chapters/05-session-log/event-schemas.ts";

export {
  recordUsage,
  usageByTurn,
  UsageError,
  type TokenUsage,
  type TurnUsage,
} from "../../../solutions/05-session-log/usage-view.ts";

const counter = z.number().int().positive();
const tokens = z.number().int().nonnegative();

export const usageSchemas: EventSchemas = {
  // DECOY: no prompt_cache_hit_tokens ≤ prompt_tokens rule.
  "model/usage": z.strictObject({
    turn: counter,
    step: counter,
    prompt_tokens: tokens,
    completion_tokens: tokens,
    prompt_cache_hit_tokens: tokens,
  }),
};
