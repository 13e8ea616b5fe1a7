// Decoy for step p2: schemas that check only the JSON types — any string passes as a SHA-256, any
// number as a byte count — so a corrupted or hand-edited log replays without a word.
import { z } from "zod";
import type { EventSchemas } from "../../../chapters/05-session-log/event-schemas.ts";

export { recordDiffPreview, recordFileRead } from "../../../solutions/05-session-log/coding-assistant.ts";

// DECOY: no min length, no integer check, no hex pattern.
export const codingAssistantSchemas: EventSchemas = {
  "ui/diff-preview": z.object({ path: z.string(), diff: z.string() }),
  "inspect/file-read": z.object({ path: z.string(), bytes: z.number(), sha256: z.string() }),
};
