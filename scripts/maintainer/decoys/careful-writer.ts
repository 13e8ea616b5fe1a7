// Not a decoy itself: the careful writer that the 05.7 writer decoys share, so that each one differs
// from a right answer in the one care its name says it forgets. It checks the file (with the answer's
// attachLogFile, stopped at once), takes the lock, writes each event whole at the end of the file,
// checks nobody else wrote there, and at the first failure stops and throws.
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { LogFileError, type LogFileErrorCode } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import { lockLogFile } from "../../../chapters/05-session-log/disk/log-lock.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export interface Care {
  /** Flush each line to disk (fsyncSync) before append returns. */
  readonly flushes: boolean;
  /** Cut a partly written line off again when a write fails. */
  readonly takesBack: boolean;
}

export function carefulWriter(care: Care): (session: SessionLog, file: string) => () => void {
  return (session, file) => {
    answer.attachLogFile(session, file)(); // refuses another log, writes the events so far
    const unlock = lockLogFile(file);
    const fd = openSync(file, "a");
    let size = fstatSync(fd).size;
    let open = true;
    const stop = () => {
      if (!open) return;
      open = false;
      unsubscribe();
      closeSync(fd);
      unlock();
    };
    const failure = (code: LogFileErrorCode, event: SessionEvent, why: string) => {
      stop();
      return new LogFileError(code, file, undefined, `event #${event.id} was not written (${why})`);
    };
    const unsubscribe = session.subscribe((event) => {
      if (fstatSync(fd).size !== size) throw failure("FILE_CHANGED", event, "another writer appended to the file");
      const line = Buffer.from(`${JSON.stringify(event)}\n`);
      try {
        for (let done = 0; done < line.length; ) done += writeSync(fd, line, done);
        if (care.flushes) fsyncSync(fd);
      } catch (error) {
        if (care.takesBack) ftruncateSync(fd, size);
        throw failure("WRITE_FAILED", event, (error as Error).message);
      }
      size += line.length;
    });
    return stop;
  };
}
