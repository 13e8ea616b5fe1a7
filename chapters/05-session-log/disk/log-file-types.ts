// What the log on disk promises, apart from how log-file.ts keeps the promise: what reading a file
// gives back, what a torn last line is, and the errors for a file or a log that cannot be trusted.
// The workbook gives these to the learner in step 05.7, and the timeline page reads logs through them.
import type { EventData } from "../events.ts";
import type { Session } from "../session.ts";
import type { SessionOptions } from "../session-types.ts";

/**
 * The last line of a JSONL log that a crash cut short, dropped by the reader. `unterminated`: no
 * newline at the end (the write stopped mid-line); `not-json`: a whole line that is not an event's
 * JSON (say, zeros a power loss left behind).
 */
export interface TornLine {
  /** 1-based, like an editor's line numbers. */
  readonly line: number;
  readonly reason: "unterminated" | "not-json";
  /** How many bytes were dropped. */
  readonly bytes: number;
}

/** A log read back from disk: the session it replays into, and the torn last line, if any, that was left out. */
export interface LoadedLog {
  readonly session: Session;
  readonly torn: TornLine | undefined;
  /** `jsonl`: one event per line, as the writer saves it; `json-array`: the whole log as one JSON array. */
  readonly format: "jsonl" | "json-array";
  /** The file began with a UTF-8 byte order mark (an editor's), which was skipped. */
  readonly bom: boolean;
  /** Some JSONL line ended "\r\n" (Windows line ends), not the writer's "\n". */
  readonly crlf: boolean;
}

export interface ReadOptions extends SessionOptions {
  /** Names the log in error messages, e.g. the file's path. */
  readonly source?: string;
}

/**
 * The largest JSONL log the reader takes, refused by its size before a byte is read. A loaded log lives
 * in memory, every event of it (the demo, the timeline and repair all need the whole session), so a
 * smaller file is still refused, at a line, when its events would cost more memory than a loaded log may
 * have in this process (log-memory.ts): what a log costs is counted by its events, not its bytes.
 */
export const MAX_LOG_BYTES = 512 * 2 ** 20;
/** The largest log written as one JSON array: it is one JSON text, parsed whole, as one string. */
export const MAX_ARRAY_BYTES = 256 * 2 ** 20;

export type LogFileErrorCode =
  /** The path is not a regular file (a folder, a device, a FIFO): nothing is read from it. */
  | "NOT_A_FILE"
  /** The file cannot be opened (missing, no permission); `cause` is the system's error. */
  | "UNREADABLE"
  /** Larger than the reader takes (MAX_LOG_BYTES, MAX_ARRAY_BYTES): refused before it is read. */
  | "TOO_LARGE"
  /** Its events would take more memory than a loaded log may have here (log-memory.ts): a LogMemoryError. */
  | "TOO_LARGE_IN_MEMORY"
  /** The file is not UTF-8 text (it opens with a UTF-16 byte order mark). */
  | "NOT_UTF8"
  /** Not one event could be read (the only line is torn): never taken for an empty log. */
  | "NOTHING_READ"
  /** A line before the last is not an event's JSON: a corrupt file, never skipped. */
  | "BAD_LINE"
  /** A JSON array log that is not valid JSON. */
  | "BAD_JSON"
  /** An entry broke a replay rule; `cause` is Session.fromLog's ReplayError. */
  | "REPLAY"
  /** A writer was pointed at a file that does not hold exactly its session's events. */
  | "NOT_THIS_LOG"
  /** The file changed under a writer (another writer appended to it): nothing more is written. */
  | "FILE_CHANGED"
  /** The path no longer names the file the writer holds open (renamed over, moved, deleted): nothing more is written. */
  | "FILE_REPLACED"
  /** A write failed (a full disk, a file size limit): the writer took back its partial line and stopped. */
  | "WRITE_FAILED"
  /** Another live process holds the file's lock (log-lock.ts): one log, one writer. */
  | "LOCKED";

/** A log file that cannot be read or written as it is. `line` (1-based) says where, when a line is to blame. */
export class LogFileError extends Error {
  override readonly name = "LogFileError";
  constructor(
    readonly code: LogFileErrorCode,
    readonly source: string,
    readonly line: number | undefined,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${source}${line === undefined ? "" : ` line ${line}`}: ${detail}`, options);
  }
}

/**
 * A log refused for what it would cost in memory (log-memory.ts), at the line where the count passed the
 * limit: `estimate` and `limit` in bytes, `events` read by then (a JSON array: undefined, refused by its
 * size before it is parsed), and `heap`, a `--max-old-space-size` (MiB) that would take it. The file itself
 * may be fine.
 */
export class LogMemoryError extends LogFileError {
  declare readonly code: "TOO_LARGE_IN_MEMORY";
  constructor(
    source: string,
    line: number | undefined,
    readonly memory: { readonly events: number | undefined; readonly estimate: number; readonly limit: number; readonly heap: number },
    detail: string,
  ) {
    super("TOO_LARGE_IN_MEMORY", source, line, detail);
  }
}

export type WriterStop = Extract<LogFileErrorCode, "FILE_CHANGED" | "FILE_REPLACED" | "WRITE_FAILED" | "LOCKED">;

/** A writer stopped for good: `written` events reached the file, each one whole, and none from `firstLost` on will. */
export class LogWriteError extends LogFileError {
  declare readonly code: WriterStop;
  constructor(
    code: WriterStop,
    source: string,
    readonly written: number,
    readonly firstLost: number,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(code, source, undefined, detail, options);
  }
}

/**
 * What a writer found in a file that does not hold exactly its session's events so far, kept as numbers
 * so that each language can say it: the first line that is not the session's event #`event` (another
 * session's log, or a torn line), more events than the session's `events`, or only the first `held`.
 */
export type LogMismatch =
  | { readonly kind: "line"; readonly line: number; readonly event: number }
  | { readonly kind: "more"; readonly events: number }
  | { readonly kind: "fewer"; readonly held: number; readonly events: number };

/** A writer refused a file that holds something else than its session's log: nothing is appended to it. */
export class NotThisLogError extends LogFileError {
  declare readonly code: "NOT_THIS_LOG";
  constructor(
    source: string,
    readonly mismatch: LogMismatch,
  ) {
    super("NOT_THIS_LOG", source, undefined, `refusing to append: ${mismatchInEnglish(mismatch)}`);
  }
}

function mismatchInEnglish(mismatch: LogMismatch): string {
  if (mismatch.kind === "more")
    return mismatch.events === 0
      ? "the file holds events, and this session has none yet"
      : `the file holds more than this session's ${mismatch.events} events`;
  if (mismatch.kind === "fewer") return `the file holds only ${mismatch.held} of this session's ${mismatch.events} events`;
  return `line ${mismatch.line} of the file is not event #${mismatch.event} of this session (another session's log, or a torn line)`;
}

/**
 * A log that repair will not append to: one this loop cannot leave when it dies (loop-order.ts says which
 * event could not have been written where it is), or one another process is still writing.
 */
export class RepairError extends Error {
  override readonly name = "RepairError";
  constructor(
    /** The first event the loop could not have written there; undefined when the refusal is about the whole file. */
    readonly index: number | undefined,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      `cannot repair this log by appending: ${index === undefined ? "" : `event #${index} `}${detail}. ` +
        "Only a log the agent loop leaves when it is killed can be closed; anything else is a damaged log to look at by hand.",
      options,
    );
  }
}

/** An event a repair appends: what `session.append(type, data)` takes. */
export interface ClosingEvent {
  readonly type: string;
  readonly data: EventData<string>;
}

// ── what a repair says ──
// What the model reads on the next turn, so each says what happened and that nothing was retried.
export const TURN_INTERRUPTED =
  "interrupted: the run stopped before this turn ended (the process was killed or crashed); closed when the log was loaded";
export const TURN_FINISHED =
  "completed: the final answer was logged, but the run stopped before it logged the turn's end; closed when the log was loaded";
export const OUTCOME_UNKNOWN = "error: interrupted while this tool call was running; its outcome is unknown and it was not run again";
export const NOT_STARTED = "error: interrupted before this tool call started; it never ran";
