// Beyond 5.3 and 5.6: the log on disk. A subscriber writes each event as one line of JSON (JSONL) the
// moment it is committed (log-writer.ts); a reader replays the file into a Session, dropping only a
// last line that a crash cut short; and repairLog closes the turn such a crash left open — by
// appending, never editing.
//
// The format: line n (from 1) is `JSON.stringify(event #n-1)` followed by "\n", in id order, UTF-8.
// JSON.stringify escapes every newline inside a string, so an event is always exactly one line.
import type { EventData, SessionEvent } from "../events.ts";
import { whereTheLoopStopped, type OpenStep } from "./loop-order.ts";
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
} from "./log-file-types.ts";
import { assertNoLiveWriter } from "./log-lock.ts";
import { readRegularFile } from "./regular-file.ts";
import { assembleInterrupted } from "../stream/stream-assembler.ts";
import { Session } from "../session.ts";
import { ReplayError } from "../session-types.ts";
import { decode, parseLine, startsWithBom, startsWithBracket, UTF8_BOM, utf16Bom } from "./jsonl.ts";

// ── writing: persistence is just a subscriber (log-writer.ts, with its lock in log-lock.ts) ────────
export { attachLogFile } from "./log-writer.ts";

// ── reading: every line is trusted only after it is checked ─────────────────────────────────────

/**
 * Reads a log file (JSONL, or a JSON array of events) into a Session; see parseLogText. Only a regular
 * file is read (regular-file.ts): a folder, a device such as /dev/zero (endless) or a FIFO (it waits for
 * a writer) is a LogFileError "NOT_A_FILE", and a file that cannot be opened is "UNREADABLE", each in a sentence.
 */
export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return parseLogText(readRegularFile(file), { source: file, ...options });
}

/**
 * Replays a saved log: JSONL as attachLogFile writes it, or the whole log as one JSON array (what the
 * demo's ④ prints). In JSONL a last line that a crash cut short is dropped and reported as `torn`; a
 * bad line anywhere else is a LogFileError naming it, never skipped; and an entry Session.fromLog
 * refuses is reported by its line (event #i is line i+1). A string is taken as UTF-8 text; bytes are
 * decoded strictly, so a line that is not valid UTF-8 is a bad line, not text with "�" in it.
 *
 * What an editor may have added is read past and reported: a UTF-8 byte order mark (`bom`) and CRLF
 * line ends (`crlf`). A file from which no event could be read is never an empty log: when its only
 * line is torn it is "NOTHING_READ" (only a file of zero bytes is an empty log).
 */
export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  const { source = "log", ...sessionOptions } = options;
  const raw = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  const bom = startsWithBom(raw);
  const bytes = bom ? raw.subarray(UTF8_BOM.length) : raw;
  const utf16 = utf16Bom(bytes);
  if (utf16 !== undefined)
    throw new LogFileError(
      "NOT_UTF8",
      source,
      undefined,
      `this is ${utf16} text (its first bytes are a UTF-16 byte order mark); a log is UTF-8`,
    );
  if (startsWithBracket(bytes)) {
    const session = replay(parseJsonArray(bytes, source), source, sessionOptions, () => undefined);
    return { session, torn: undefined, format: "json-array", bom, crlf: false };
  }
  const { entries, torn, crlf } = readLines(bytes, source);
  if (entries.length === 0 && torn !== undefined) throw nothingRead(source, torn);
  return { session: replay(entries, source, sessionOptions, (index) => index + 1), torn, format: "jsonl", bom, crlf };
}

function nothingRead(source: string, torn: TornLine): LogFileError {
  const what = torn.reason === "unterminated" ? "has no newline at its end" : "is not an event's JSON";
  return new LogFileError(
    "NOTHING_READ",
    source,
    1,
    `no event could be read: the file's only line ${what} (${torn.bytes} bytes). This is not an empty log; a log is UTF-8 JSONL (one event per line) or one JSON array of events`,
  );
}

/** Parses each line; only the last may be torn. `crlf`: some line ended "\r\n" (JSON reads the "\r" as space). */
function readLines(bytes: Uint8Array, source: string): { entries: unknown[]; torn: TornLine | undefined; crlf: boolean } {
  const entries: unknown[] = [];
  let crlf = false;
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) return { entries, torn: { line, reason: "unterminated", bytes: bytes.length - start }, crlf };
    crlf ||= bytes[newline - 1] === 0x0d;
    const entry = parseLine(bytes.subarray(start, newline));
    const isLast = newline === bytes.length - 1;
    if (entry.ok) entries.push(entry.value);
    else if (isLast) return { entries, torn: { line, reason: "not-json", bytes: newline + 1 - start }, crlf };
    else
      throw new LogFileError(
        "BAD_LINE",
        source,
        line,
        `${entry.why}; only the last line can be torn by a crash, so a bad line before it means a damaged file`,
      );
    start = newline + 1;
  }
  return { entries, torn: undefined, crlf };
}

function parseJsonArray(bytes: Uint8Array, source: string): unknown {
  const text = decode(bytes);
  if (text === undefined) throw new LogFileError("BAD_JSON", source, undefined, "the log is not valid UTF-8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new LogFileError(
      "BAD_JSON",
      source,
      undefined,
      `a log that starts with "[" is one JSON array of events, but this is not JSON (${(error as Error).message})`,
    );
  }
}

/**
 * Session.fromLog, with its ReplayError's event index told as the line the event was on. `trusted`:
 * the entries are this reader's own JSON.parse results, held by no one else, so the session freezes
 * them in place instead of copying them (same checks, same errors; see session.ts). A Session without
 * that option (a learner's, under `--mine`) ignores it and copies, as the book's does.
 */
function replay(
  entries: unknown,
  source: string,
  options: Omit<ReadOptions, "source">,
  lineOf: (index: number) => number | undefined,
): Session {
  try {
    return Session.fromLog(entries, { ...options, trusted: true });
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    throw new LogFileError("REPLAY", source, lineOf(error.index), error.message, { cause: error });
  }
}

// ── repair: a crash leaves the last turn open; close it by appending ────────────────────────────

/**
 * Closes the last turn if a crash left it open (see closingEvents), by appending to `session`, which it
 * returns: a writer attached to the session saves the repair too, and the events already logged stay
 * exactly as they were. A log with every turn closed is returned as it is. A log this loop could not
 * have left (loop-order.ts) is a RepairError, and nothing is appended.
 */
export function repairLog(session: Session): Session {
  for (const { type, data } of closingEvents(session.events)) session.append(type, data);
  return session;
}

/**
 * What a repair appends, in order: nothing when every turn is closed; RepairError for a log no crash of
 * this loop leaves. Given the `file` the events were read from, a file another process holds the writer's
 * lock on is refused too: its last turn is not torn, it is still running.
 */
export function closingEvents(events: readonly SessionEvent[], options: { readonly file?: string } = {}): ClosingEvent[] {
  if (options.file !== undefined) refuseLiveWriter(options.file);
  const stop = whereTheLoopStopped(events);
  if (!stop.fits) throw new RepairError(stop.index, stop.why);
  if (stop.open === undefined) return [];
  const { turn, step, answered } = stop.open;
  const closing: ClosingEvent[] = step === undefined ? [] : closeStep(step);
  // The loop appends turn/end "completed" right after a final answer: when the log holds that answer, say so.
  closing.push(
    close(
      "turn/end",
      answered ? { turn, reason: "completed", message: TURN_FINISHED } : { turn, reason: "interrupted", message: TURN_INTERRUPTED },
    ),
  );
  return closing;
}

const close = <T extends "tool/call" | "tool/result" | "step/end" | "turn/end" | "assistant/message">(
  type: T,
  data: EventData<T>,
): ClosingEvent => ({
  type,
  data: data as EventData<string>,
});

function refuseLiveWriter(file: string): void {
  try {
    assertNoLiveWriter(file);
  } catch (error) {
    if (!(error instanceof LogFileError) || error.code !== "LOCKED") throw error;
    throw new RepairError(undefined, error.message, { cause: error });
  }
}

function closeStep({ turn, step, chunks, running, notStarted }: OpenStep): ClosingEvent[] {
  const closing: ClosingEvent[] = [];
  // A stream cut before its message: keep what the user already saw, citing the chunks it came from.
  const seen = assembleInterrupted(chunks.map((event) => event.data.chunk));
  if (seen !== null) {
    const { content, reasoning_content = null } = seen;
    const chunk_ids = chunks.map((event) => event.id);
    closing.push(close("assistant/message", { content, reasoning_content, tool_calls: [], chunk_ids, interrupted: true }));
  }
  if (running !== undefined) closing.push(answer(running.id, OUTCOME_UNKNOWN));
  // A reply asking for several calls is logged before the first runs; a crash can leave later ones unstarted.
  for (const call of notStarted) {
    closing.push(close("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }), answer(call.id, NOT_STARTED));
  }
  closing.push(close("step/end", { turn, step }));
  return closing;
}

function answer(callId: string, content: string): ClosingEvent {
  return close("tool/result", { call_id: callId, content, is_error: true });
}
