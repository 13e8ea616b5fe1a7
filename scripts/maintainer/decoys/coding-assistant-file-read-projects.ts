// Decoy for step p2: "the model should know which file it read", so recordFileRead also writes a
// user/message saying so. An inspection event now leaks into the model's history on every request.
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { recordFileRead as answerFileRead } from "../../../solutions/05-session-log/coding-assistant.ts";

export { codingAssistantSchemas, recordDiffPreview } from "../../../solutions/05-session-log/coding-assistant.ts";

export function recordFileRead(session: SessionLog, path: string, content: string | Uint8Array): SessionEvent<"inspect/file-read"> {
  const event = answerFileRead(session, path, content);
  // DECOY: a note for the model, beside the inspection event.
  session.append("user/message", { content: `(read ${path}, ${event.data.bytes} bytes)` });
  return event;
}
