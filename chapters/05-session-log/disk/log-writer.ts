// The log on disk, writing side (05.7): persistence is just a subscriber. It writes each event as one
// line of JSON the moment the session commits it, and keeps three promises:
//   - one writer per file: it holds the file's lock (log-lock.ts) from attach to stop, whichever name
//     (a link) the file was reached by, and it writes nothing but a regular file (regular-file.ts);
//   - the name still leads to what it wrote: before each write, and when it stops, it checks that the
//     path names the file it holds open. A file renamed over it (`cp w.jsonl t && mv t w.jsonl`, an
//     editor's safe save) or the file moved or deleted would otherwise go on taking lines no name
//     leads to, and "Saved" would be said of a file that holds something else: it stops (FILE_REPLACED);
//   - a file never holds anything the session did not log: at the first write that fails it takes back
//     its own partial line, stops for good, and throws — the Session hands that to `onListenerError`,
//     and the owner of the session decides what a lost log means (the demo stops before the next model
//     call: containment keeps other listeners running, it must not keep the failure quiet);
//   - chunks travel in groups: a streamed reply logs hundreds of `assistant/chunk` events, too many
//     for a disk flush each. They wait in memory and are written CHUNK_GROUP at a time, as one packed
//     row (log-rows.ts: one write, one line, a quarter of the bytes); the next event
//     that is not a chunk goes out with the chunks still waiting and is flushed (fsync) with all of
//     them. So a killed process loses at most the CHUNK_GROUP - 1 chunks still waiting, a power loss at
//     most the chunks written since the last flushed event, and a message is never on disk without the
//     chunks it was built from: they come before it, and the flush that saves it saves them too.
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, statSync, writeSync } from "node:fs";
import type { SessionEvent } from "../events.ts";
import { LogFileError, LogWriteError, NotThisLogError, type LogMismatch, type WriterStop } from "./log-file-types.ts";
import { lockLogFile, type LockOptions } from "./log-lock.ts";
import type { SessionLog } from "../session-types.ts";
import { parseLine, startsWithBom, UTF8_BOM } from "./jsonl.ts";
import { CHUNK_GROUP, entriesOfRow, rowsOf } from "./log-rows.ts";
import { linesOf, piecesOf } from "./read-lines.ts";
import { openRegularFile } from "./regular-file.ts";

/**
 * Saves the session's log to `file` as it grows, and returns the function that stops (writing what
 * waits, closing the file, releasing the lock). The file must be new, empty, or hold exactly the
 * session's events so far: a writer never mixes two logs in one file. Throws LogFileError "NOT_A_FILE"
 * for a folder, a device or a FIFO (before anything is locked or read), "LOCKED" when another live
 * process writes the file, "NOT_THIS_LOG" when it holds something else. Stopping checks the file as
 * each write does, and throws LogWriteError when it is no longer this log: "FILE_REPLACED" when the
 * path no longer names the file written, "FILE_CHANGED" when something was written after our last
 * line, "LOCKED" when the lock was taken.
 *
 * Each write is followed by fsync before `append` returns, so an event the session has acknowledged is
 * in the file even if the process is killed a moment later (the write) or the machine loses power (the
 * fsync); chunk events wait for their group, as said above. Not covered: the directory entry of a
 * brand-new file is not fsync'd.
 */
export function attachLogFile(session: SessionLog, file: string, options: Pick<LockOptions, "staleMs"> = {}): () => void {
  let lockLost: LogFileError | undefined;
  const unlock = lockLogFile(file, { ...options, onLost: (error) => (lockLost = error) }); // makes the file
  let fd: number;
  let size: number; // our bytes: the file ends after our last whole line
  try {
    ({ fd, size } = openLog(file, session.events));
  } catch (error) {
    unlock();
    throw error;
  }
  let written = session.events.length; // events wholly in the file
  let waiting: SessionEvent[] = [];

  /** Stops with FILE_REPLACED unless `file` still names the file this writer holds open (fstat against stat). */
  const checkNamed = () => {
    const named = statSync(file, { throwIfNoEntry: false });
    const held = fstatSync(fd);
    if (named?.dev === held.dev && named.ino === held.ino) return;
    const why =
      "the name no longer leads to the file this writer holds open: another program renamed a file over it, moved it or deleted it";
    throw stopBecause("FILE_REPLACED", why);
  };
  /** Writes what waits, after checking that the file is still this log: the name leads to it, and it ends with our bytes. */
  const flush = (durably: boolean) => {
    if (lockLost) throw stopBecause("LOCKED", lockLost.message, lockLost);
    checkNamed();
    // Anything but our own bytes at the end means someone else wrote here: stop rather than interleave.
    const found = fstatSync(fd).size;
    if (found !== size) {
      throw stopBecause("FILE_CHANGED", `the file has ${found} bytes, this writer wrote ${size} (another writer is appending to it)`);
    }
    const bytes = rowsOf(waiting); // the chunks of one group go out as one packed row (log-rows.ts)
    try {
      writeAll(fd, bytes);
      if (durably) fsyncSync(fd);
    } catch (cause) {
      throw stopBecause("WRITE_FAILED", `${(cause as Error).message}; ${takeBack(fd, size)}`, cause);
    }
    size += bytes.length;
    written += waiting.length;
    waiting = [];
  };
  /** Stops for good and returns the error that says how far the file got. */
  const stopBecause = (code: WriterStop, why: string, cause?: unknown) => {
    const firstLost = waiting[0]?.id ?? session.events.length;
    const detail = `event #${firstLost} and every event after it were not written (${why}); the file holds the first ${written} events, each one whole`;
    stop();
    return new LogWriteError(code, file, written, firstLost, detail, { cause });
  };

  const unsubscribe = session.subscribe((event) => {
    waiting.push(event);
    if (event.type !== "assistant/chunk") flush(true);
    else if (waiting.length >= CHUNK_GROUP) flush(false);
  });
  let open = true;
  function stop(): void {
    if (!open) return;
    open = false;
    unsubscribe();
    closeSync(fd);
    unlock();
  }
  return () => {
    if (!open) return;
    try {
      // The chunks of a reply cut short (Ctrl-C, an error) still belong in the file; and with nothing
      // waiting, the checks alone say whether the file is still this log.
      flush(true);
    } finally {
      stop();
    }
  };
}

/** Opens `file` to append to it and starts it (startFile); a file that is not this log is closed again. */
function openLog(file: string, events: readonly SessionEvent[]): { fd: number; size: number } {
  const fd = openRegularFile(file, constants.O_RDWR | constants.O_APPEND); // every write goes to the end
  try {
    return { fd, size: startFile(fd, file, events) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Writes the events logged before the writer arrived into an empty file, or checks the file already holds them. */
function startFile(fd: number, file: string, events: readonly SessionEvent[]): number {
  const { size, mismatch } = heldAlready(fd, events);
  if (mismatch !== undefined) throw new NotThisLogError(file, mismatch);
  if (size > 0) return size;
  const expected = rowsOf(events);
  try {
    writeAll(fd, expected);
    fsyncSync(fd);
    return expected.length;
  } catch (cause) {
    const detail = `none of the ${events.length} events logged so far could be written (${(cause as Error).message}); ${takeBack(fd, 0)}`;
    throw new LogFileError("WRITE_FAILED", file, undefined, detail, { cause });
  }
}

/**
 * Reads the file a piece at a time and checks that each line is, byte for byte, how this writer writes
 * the events it holds: one event, or a packed row of the next few (log-rows.ts), as a writer that
 * started earlier grouped them. Any other way of writing them, a torn line, or a different log is `why`.
 */
function heldAlready(fd: number, events: readonly SessionEvent[]): { size: number; mismatch?: LogMismatch } {
  let size = 0;
  let held = 0; // events the lines so far hold
  let line = 0;
  for (const { bytes: read, terminated } of linesOf(piecesOf(fd))) {
    line++;
    // A UTF-8 byte order mark an editor put before the first line is not ours, but harms nothing: the
    // reader skips it (log-reader.ts) and lines appended after it read back as ever. So the log goes on.
    const skipped = line === 1 && startsWithBom(read) ? UTF8_BOM.length : 0;
    const bytes = read.subarray(skipped);
    size += skipped;
    const parsed = terminated ? parseLine(bytes) : undefined;
    const row = parsed?.ok ? entriesOfRow(parsed.value) : undefined;
    const count = row !== undefined && "entries" in row ? row.entries.length : 1;
    const ours = rowsOf(events.slice(held, held + count));
    if (held + count > events.length) return { size, mismatch: { kind: "more", events: events.length } };
    if (!terminated || !ours.equals(Buffer.concat([bytes, NEWLINE]))) return { size, mismatch: { kind: "line", line, event: held } };
    held += count;
    size += ours.length;
  }
  if (size > 0 && held < events.length) return { size, mismatch: { kind: "fewer", held, events: events.length } };
  return { size };
}

const NEWLINE = Buffer.from("\n");

function writeAll(fd: number, bytes: Buffer): void {
  // writeSync may write less than asked (a full disk, a signal); the rest must follow, in order.
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}

/**
 * A failed write may have left part of a line behind. That is our own mistake, not a crash's, so it is
 * cut off again (we hold the lock, so the bytes after `size` are ours): otherwise the next reader would
 * report a torn line, and repair would tell a crash story about a run that stopped on purpose.
 */
function takeBack(fd: number, size: number): string {
  try {
    ftruncateSync(fd, size);
    fsyncSync(fd);
    return "the partial line was taken back";
  } catch (error) {
    return `the partial line could not be taken back (${(error as Error).message}): the reader will call it torn`;
  }
}
