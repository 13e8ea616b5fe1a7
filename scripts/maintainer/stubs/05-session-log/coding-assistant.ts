import type { EventSchemas } from "../../chapters/05-session-log/event-schemas.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import type { SessionEvent, SessionEventMap } from "../../chapters/05-session-log/events.ts";
import { z } from "zod";
import { todo } from "./todo.ts";
// Given: the two types join the vocabulary, so `session.append("ui/diff-preview", …)` type-checks.
import "./given/coding-assistant.ts";

/**
 * Pass to the chapter's Session: `new Session({ schemas: codingAssistantSchemas })`.
 * TODO(p2): one zod schema per new type, strict like the chapter's (z.strictObject: a key the
 * vocabulary does not list is a mistake — see eventSchemas in chapters/05-session-log/event-schemas.ts
 * for the style).
 * Tip: `z.ZodType<SessionEventMap["inspect/file-read"]>` ties a schema to its declared type.
 */
export const codingAssistantSchemas: EventSchemas = {};

/** Logs that the user was shown `diff` for the edit to `path`; returns the committed event. */
export function recordDiffPreview(session: SessionLog, path: string, diff: string): SessionEvent<"ui/diff-preview"> {
  return todo("p2", `recordDiffPreview: log the diff the user was shown for ${path}`);
}

/**
 * Logs that the agent read `path`: its size in bytes (UTF-8 for a string) and its SHA-256 as
 * lowercase hex — not the content. Tip: `Buffer.byteLength`, `createHash` from "node:crypto".
 */
export function recordFileRead(session: SessionLog, path: string, content: string | Uint8Array): SessionEvent<"inspect/file-read"> {
  return todo("p2", `recordFileRead: log the size and SHA-256 of ${path}, not its content`);
}
