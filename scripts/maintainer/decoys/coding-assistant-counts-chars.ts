// Decoy for step p2: the byte count is the string's length — UTF-16 code units, not bytes — so any
// file with non-ASCII text (中文 comments) is logged with the wrong size.
import { createHash } from "node:crypto";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export { codingAssistantSchemas, recordDiffPreview } from "../../../solutions/05-session-log/coding-assistant.ts";

export function recordFileRead(session: SessionLog, path: string, content: string | Uint8Array): SessionEvent<"inspect/file-read"> {
  const bytes = content.length; // DECOY: characters, not UTF-8 bytes
  const sha256 = createHash("sha256").update(content).digest("hex");
  return session.append("inspect/file-read", { path, bytes, sha256 });
}
