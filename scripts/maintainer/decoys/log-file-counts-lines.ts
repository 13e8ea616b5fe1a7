// Decoy for step 05.7: before appending, the writer only checks that the file has as many lines as
// the session has events. Another session's log of the same length passes, and the two logs are mixed.
import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { LogFileError } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function attachLogFile(session: SessionLog, file: string): () => void {
  const held = existsSync(file) ? readFileSync(file, "utf8").split("\n").length - 1 : 0;
  if (held === 0) return answer.attachLogFile(session, file);
  // DECOY: the count is compared, not the lines themselves.
  if (held !== session.events.length) {
    throw new LogFileError("NOT_THIS_LOG", file, undefined, `the file holds ${held} lines, the session ${session.events.length} events`);
  }
  const fd = openSync(file, "a");
  let size = fstatSync(fd).size;
  const unsubscribe = session.subscribe((event) => {
    if (fstatSync(fd).size !== size) throw new LogFileError("FILE_CHANGED", file, undefined, "the file changed under this writer");
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    writeSync(fd, line);
    fsyncSync(fd);
    size += line.length;
  });
  let open = true;
  return () => {
    if (open) unsubscribe(), closeSync(fd);
    open = false;
  };
}
