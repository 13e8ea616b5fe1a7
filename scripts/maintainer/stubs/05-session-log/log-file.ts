// Step 05.7 (challenge, past the book) — the log on disk. The book's 对照官方 table says the official
// persistence plugin "订阅 session/event，需要保存时再写入磁盘"; the book itself only replays. Here you write that
// subscriber, read its file back after a crash, and close what the crash left open, by appending only.
//
// attachLogFile(session, file)    each event becomes one line, JSON.stringify(event) + "\n", written and
//                                 flushed (writeSync, fsyncSync) before append returns; the file's lock first.
// readLogFile / parseLogText      back through Session.fromLog: a torn last line is dropped and reported, any
//                                 other bad line is an error naming its number.
// closingEvents / repairLog       what closes the last turn the crash left open, appended through the session.
//
// Every failure is a LogFileError(code, source, line, detail); its message reads "<source> line <n>: <detail>"
// (" line <n>" only when a line is to blame). The tests look for these words in it, so write them so:
//   NOT_A_FILE    line undefined; the detail says what it is: "this is a folder", "this is a device" (/dev/zero),
//                 "this is a pipe" (a FIFO)
//   UNREADABLE    line undefined; the detail `cannot open it (${error.message})`, the system's error kept as the
//                 cause: "missing.jsonl: cannot open it (ENOENT: no such file or directory, …)"
//   NOTHING_READ  line 1; the detail starts "no event could be read"
//   NOT_UTF8      the detail names the encoding: "UTF-16LE" or "UTF-16BE"
//   BAD_JSON      line undefined, so the message starts "<source>: "
//   BAD_LINE, NOT_THIS_LOG   `line` is the line to blame (NOT_THIS_LOG: the first line that differs)
//   REPLAY        line = the ReplayError's index + 1, the ReplayError as the cause
//   FILE_CHANGED  the detail names the first event that did not reach the file: "event #N"
// A repair refused because a live writer holds the file keeps the LogFileError's words ("another process is
// writing this log"): new RepairError(undefined, error.message, { cause: error }).
// The rules in full: exercises/05-session-log/README.md#step-05-7 and 05.7-log-on-disk.test.ts.
// Run: npx vitest exercises/05-session-log/05.7-log-on-disk.test.ts
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import {
  LogFileError,
  NOT_STARTED,
  OUTCOME_UNKNOWN,
  RepairError,
  TURN_FINISHED,
  TURN_INTERRUPTED,
  type ClosingEvent,
  type LoadedLog,
  type ReadOptions,
  type TornLine,
} from "../../chapters/05-session-log/disk/log-file-types.ts";
import { assertNoLiveWriter, lockLogFile } from "../../chapters/05-session-log/disk/log-lock.ts";
import { whereTheLoopStopped } from "../../chapters/05-session-log/disk/loop-order.ts";
import { assembleInterrupted } from "../../chapters/05-session-log/stream/stream-assembler.ts";
import type { Session } from "../../chapters/05-session-log/session.ts";
import { type SessionLog } from "../../chapters/05-session-log/session-types.ts";
import { todo } from "./todo.ts";

// Given (chapters/05-session-log/disk/log-file-types.ts): what reading gives back (LoadedLog, TornLine), the
// options (ReadOptions), the errors LogFileError(code, source, line, detail, { cause }) and
// RepairError(index, why), and what a repair says (TURN_INTERRUPTED, TURN_FINISHED, OUTCOME_UNKNOWN,
// NOT_STARTED). Given for repair: whereTheLoopStopped (loop-order.ts) and assembleInterrupted
// (stream-assembler.ts). Imported above with the chapter's pieces you will need; node:fs is yours to add.
// Given for the writer: lockLogFile(file) (log-lock.ts) takes the file's lock (one log, one writer, across
// processes, whatever name or link the file is reached by) and returns the function that releases it.
// It makes the file if there is none, and refuses anything but a regular file (a folder, /dev/null, a
// FIFO: LogFileError "NOT_A_FILE") before it locks anything: call it before you open the file.

/**
 * Saves the session's log to `file` as it grows; returns the function that stops (closes the file and
 * releases its lock). Takes the lock first: a file another writer holds is LogFileError "LOCKED" (the
 * error lockLogFile throws). Throws "NOT_THIS_LOG" for a file that holds anything but this session's
 * events so far. At the first write that fails — the file changed since the last one ("FILE_CHANGED"),
 * or the disk refused it ("WRITE_FAILED") — it takes back any part of a line it wrote, stops for good,
 * and throws the LogFileError from the listener, so the Session hands it to `onListenerError`.
 */
export function attachLogFile(session: SessionLog, file: string): () => void {
  return todo(
    "05.7",
    `attachLogFile：把已经记下的 ${session.events.length} 条事件写进 ${file} 再订阅`,
    `attachLogFile: write the ${session.events.length} events logged so far to ${file}, then subscribe`,
  );
}

/**
 * Reads a log file into a Session: parseLogText of its bytes, with `source` set to the path. Only a regular
 * file: anything else (a folder, /dev/zero, a FIFO) is LogFileError "NOT_A_FILE" before a byte is read
 * (open with O_NONBLOCK, then fstat), and a file that cannot be opened is "UNREADABLE".
 */
export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return todo(
    "05.7",
    `readLogFile：按字节读入 ${file} 再解析（options：${Object.keys(options).join("、") || "无"}）`,
    `readLogFile: read ${file} as bytes and parse it (options: ${Object.keys(options).join(", ") || "none"})`,
  );
}

/**
 * JSONL (one event per line) or a JSON array of events → a Session (Session.fromLog), plus the torn last
 * line if a crash left one. A bad line before the last: LogFileError "BAD_LINE" with its line number.
 * An entry fromLog refuses: LogFileError "REPLAY", line = the ReplayError's index + 1, cause = the ReplayError.
 * A UTF-8 byte order mark is skipped (`bom: true`), CRLF line ends reported (`crlf: true`); a UTF-16 file is
 * "NOT_UTF8"; a file whose only line is torn is "NOTHING_READ", never an empty log.
 */
export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  return todo(
    "05.7",
    `parseLogText：把 ${input.length} 个${typeof input === "string" ? "字符" : "字节"}切成行（source：${options.source ?? "log"}）`,
    `parseLogText: split ${input.length} ${typeof input === "string" ? "characters" : "bytes"} into lines (source: ${options.source ?? "log"})`,
  );
}

/**
 * What repairLog appends to close the last turn, in order; [] when every turn is closed. Given:
 * whereTheLoopStopped (chapters/05-session-log/disk/loop-order.ts) says where the loop stopped, or which event
 * it could not have written (then throw RepairError(index, why)). An open step gets an is_error tool/result
 * for a running call, tool/call + tool/result for calls never started, and step/end; a stream cut before its
 * message first gets assistant/message { ...assembleInterrupted(chunks), chunk_ids, interrupted: true }.
 * Last, turn/end: reason "completed" (TURN_FINISHED) when the final answer was logged, else "interrupted".
 * Given the `file`, first refuse (RepairError, index undefined) while a live writer holds it: assertNoLiveWriter
 * (log-lock.ts) throws LogFileError "LOCKED" then.
 */
export function closingEvents(events: readonly SessionEvent[], options: { readonly file?: string } = {}): ClosingEvent[] {
  return todo(
    "05.7",
    `closingEvents：在 ${events.length} 条事件里找出循环停在哪里（file：${options.file ?? "无"}）`,
    `closingEvents: find where the loop stopped in ${events.length} events (file: ${options.file ?? "none"})`,
  );
}

/** Appends closingEvents(session.events) to `session`, and returns `session`. */
export function repairLog(session: Session): Session {
  return todo(
    "05.7",
    `repairLog：把这 ${session.events.length} 条事件里崩溃留下、还开着的部分闭合起来`,
    `repairLog: close what a crash left open in ${session.events.length} events`,
  );
}
