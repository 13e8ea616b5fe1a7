// Decoy for step 05.7: a careful writer in every way but one: it never takes the file's lock. It
// checks the file and stops at its first failure, yet nothing keeps a second writer out, so two runs
// on one log race each other (and a repair can "close" a turn that another process is still running).
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { LogFileError } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

const line = (event: unknown) => Buffer.from(`${JSON.stringify(event)}\n`);

export function attachLogFile(session: SessionLog, file: string): () => void {
  // DECOY: no lockLogFile(file) here.
  const fd = openSync(file, "a+");
  const expected = Buffer.concat(session.events.map(line));
  const existing = readFileSync(fd);
  if (existing.length > 0 && !existing.equals(expected)) {
    closeSync(fd);
    throw new LogFileError("NOT_THIS_LOG", file, undefined, "the file holds another log");
  }
  if (existing.length === 0) writeSync(fd, expected);
  let size = expected.length;
  const stop = () => {
    unsubscribe();
    closeSync(fd);
  };
  const unsubscribe = session.subscribe((event) => {
    if (fstatSync(fd).size !== size) {
      stop();
      throw new LogFileError("FILE_CHANGED", file, undefined, `event #${event.id} was not written: another writer appended`);
    }
    size += writeSync(fd, line(event));
    fsyncSync(fd);
  });
  let open = true;
  return () => {
    if (open) stop();
    open = false;
  };
}
