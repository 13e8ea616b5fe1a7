import { findLogProblems } from "../../chapters/05-session-log/invariants.ts";
import {
  LogFileError,
  RepairError,
  type LoadedLog,
  type ReadOptions,
  type TornLine,
} from "../../chapters/05-session-log/log-file-types.ts";
import { lockLogFile } from "../../chapters/05-session-log/log-lock.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { ReplayError, type SessionLog } from "../../chapters/05-session-log/session-types.ts";
import { todo } from "./todo.ts";

// Given (chapters/05-session-log/log-file-types.ts): what reading gives back (LoadedLog, TornLine), the
// options (ReadOptions), and the errors: LogFileError(code, source, line, detail, { cause }) and
// RepairError(problems). Also imported above: the chapter's Session (Session.fromLog), ReplayError
// (what fromLog throws) and findLogProblems (invariants.ts). node:fs is yours to add.
// Also given, for the writer: lockLogFile(file) in chapters/05-session-log/log-lock.ts takes the file's
// lock (one log, one writer, across processes) and returns the function that releases it.

/**
 * Saves the session's log to `file` as it grows; returns the function that stops (closes the file and
 * releases its lock). Takes the lock first: a file another writer holds is LogFileError "LOCKED" (the
 * error lockLogFile throws). Throws "NOT_THIS_LOG" for a file that holds anything but this session's
 * events so far. At the first write that fails — the file changed since the last one ("FILE_CHANGED"),
 * or the disk refused it ("WRITE_FAILED") — it takes back any part of a line it wrote, stops for good,
 * and throws the LogFileError from the listener, so the Session hands it to `onListenerError`.
 */
export function attachLogFile(session: SessionLog, file: string): () => void {
  return todo("05.7", `attachLogFile: write the ${session.events.length} events logged so far to ${file}, then subscribe`);
}

/** Reads a log file into a Session: parseLogText of its bytes, with `source` set to the path. */
export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return todo("05.7", `readLogFile: read ${file} as bytes and parse it (options: ${Object.keys(options).join(", ") || "none"})`);
}

/**
 * JSONL (one event per line) or a JSON array of events → a Session (Session.fromLog), plus the torn last
 * line if a crash left one. A bad line before the last: LogFileError "BAD_LINE" with its line number.
 * An entry fromLog refuses: LogFileError "REPLAY", line = the ReplayError's index + 1, cause = the ReplayError.
 */
export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  return todo(
    "05.7",
    `parseLogText: split ${input.length} ${typeof input === "string" ? "characters" : "bytes"} into lines (source: ${options.source ?? "log"})`,
  );
}

/**
 * Closes the last turn if a crash left it open, by appending to `session`, and returns `session`:
 * an is_error tool/result for each unanswered call, step/end for the open step, turn/end { reason: "error" }.
 * Use findLogProblems (chapters/05-session-log/invariants.ts) to find what is open.
 */
export function repairLog(session: Session): Session {
  return todo("05.7", `repairLog: find what a crash left open in ${session.events.length} events`);
}
