// Decoy for step 05.7: the writer hands each line to an asynchronous append and returns at once. It
// is faster, and everything reaches the file eventually — unless the process dies first: an event the
// session acknowledged may not be in the file yet.
import { appendFile } from "node:fs";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function attachLogFile(session: SessionLog, file: string): () => void {
  answer.attachLogFile(session, file)(); // the same check of the file, and the events so far
  // DECOY: fire and forget; the write happens some time after append has returned.
  return session.subscribe((event) => appendFile(file, `${JSON.stringify(event)}\n`, () => {}));
}
