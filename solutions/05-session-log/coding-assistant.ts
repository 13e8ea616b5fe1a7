// 练习2 (step p2): a coding assistant's event log. Besides user, model and tool messages, it records
// two kinds of event that exist only for inspecting a run and for the UI. They join the vocabulary
// by declaration merging (given to the learner, so it lives in exercises/05-session-log/given/) and
// bring zod schemas (so a stored log is checked on replay). They never become model messages: the
// chapter's projection turns exactly three types into messages (projection.ts) and these are not
// among them — nothing to change there.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { SessionEventMap } from "../../chapters/05-session-log/events.ts";
import type { EventSchemas } from "../../chapters/05-session-log/event-schemas.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import "../../exercises/05-session-log/given/coding-assistant.ts";

// Why neither may ever reach the model (the question 练习2 asks):
// - "ui/diff-preview": the model wrote that edit itself — its tool call's arguments are already in
//   its history — so sending the rendered diff back would pay twice for the same tokens, and it is
//   a presentation of the edit (context lines, colours' markers), not a fact about the task.
// - "inspect/file-read": the content already reached the model as the read tool's `tool/result`;
//   this is the audit trail ("which version of config.ts did the agent see when it made that
//   edit?"), and a hash or byte count means nothing to the model while costing context on every
//   request.

type Schemas = { readonly [T in "ui/diff-preview" | "inspect/file-read"]: z.ZodType<SessionEventMap[T]> };

/** Pass to the chapter's Session: `new Session({ schemas: codingAssistantSchemas })`. */
export const codingAssistantSchemas: Schemas & EventSchemas = {
  "ui/diff-preview": z.strictObject({ path: z.string().min(1), diff: z.string() }),
  "inspect/file-read": z.strictObject({
    path: z.string().min(1),
    bytes: z.number().int().nonnegative(),
    // Lowercase hex, as `sha256sum` prints it: one spelling per digest, so equal files compare equal.
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits"),
  }),
};

/** Logs that the user was shown `diff` for the edit to `path`. */
export function recordDiffPreview(session: SessionLog, path: string, diff: string): SessionEvent<"ui/diff-preview"> {
  return session.append("ui/diff-preview", { path, diff });
}

/** Logs that the agent read `path`: its size in bytes (UTF-8 for text) and its SHA-256, not its content. */
export function recordFileRead(session: SessionLog, path: string, content: string | Uint8Array): SessionEvent<"inspect/file-read"> {
  const bytes = typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.byteLength;
  const sha256 = createHash("sha256").update(content).digest("hex");
  return session.append("inspect/file-read", { path, bytes, sha256 });
}
