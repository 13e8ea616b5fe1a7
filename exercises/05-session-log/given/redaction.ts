// Given for step p3 (练习3): you don't need to change this file.
// The redaction event type and its schema, the error a redaction that cannot apply throws, the
// markers masked content is replaced with, and the shape of an export line. ../redaction.ts
// re-exports all of it; the three functions that use it are yours.
import { z } from "zod";
import type { EventSchemas } from "../../../chapters/05-session-log/event-schemas.ts";
import type { JsonObject } from "../../../chapters/05-session-log/json-value.ts";

declare module "../../../chapters/05-session-log/events.ts" {
  interface SessionEventMap {
    /** Masks event `target_id` in every view derived from the log; the event itself never changes. */
    "log/redact": { target_id: number; reason: string };
  }
}

/** Pass to the chapter's Session: `new Session({ schemas: redactionSchemas })`. */
export const redactionSchemas: EventSchemas = {
  "log/redact": z.strictObject({ target_id: z.number().int().nonnegative(), reason: z.string().min(1) }),
};

/**
 * UNKNOWN_TARGET: no event has that id. TARGET_NOT_EARLIER: the target is not before the redaction
 * (possible only in a stored log). NOT_REDACTABLE: the target's type cannot be redacted.
 */
export type RedactionRule = "UNKNOWN_TARGET" | "TARGET_NOT_EARLIER" | "NOT_REDACTABLE";

/** A redaction that cannot apply. `redactionId` is the redaction's own id (or the id it would get). */
export class RedactionError extends Error {
  override readonly name = "RedactionError";
  constructor(
    readonly code: RedactionRule,
    readonly redactionId: number,
    readonly targetId: number,
    detail: string,
  ) {
    super(`redaction #${redactionId} cannot mask event #${targetId} (${code}): ${detail}`);
  }
}

/** What a masked text field shows instead of its content. */
export function redactionMarker(reason: string): string {
  return `[redacted: ${reason}]`;
}

/** What masked tool-call arguments become: still a JSON text, as the wire format requires. */
export function redactedArguments(reason: string): string {
  return JSON.stringify({ redacted: reason });
}

/** Which redaction masked an event, and why. */
export interface Redaction {
  readonly by: number;
  readonly reason: string;
}

/** One line of an export for a UI or an auditor. */
export interface TranscriptEntry {
  readonly id: number;
  readonly type: string;
  readonly ts: number;
  readonly data: JsonObject;
  /** Set on a masked event: which redaction masked it, and why (the latest, if several did). */
  readonly redaction: Redaction | null;
}
