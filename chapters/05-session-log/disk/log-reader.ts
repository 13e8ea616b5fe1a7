// The log on disk, reading side (05.7): a file is replayed into a Session line by line, checking every
// line, dropping only a last line that a crash cut short. The file is read a piece at a time
// (read-lines.ts), never as one buffer, and a file larger than the reader takes is refused in a
// sentence before a byte is read (MAX_LOG_BYTES); one whose events would cost more memory than a loaded
// log may have is refused at the line where the count passes that (log-memory.ts). A packed row of
// chunks (log-rows.ts) is unpacked into the events it holds, so a line may hold several events and
// errors name the line, not the event's index.
import { closeSync } from "node:fs";
import { LogFileError, MAX_ARRAY_BYTES, MAX_LOG_BYTES, type LoadedLog, type ReadOptions, type TornLine } from "./log-file-types.ts";
import { ARRAY_COST_PER_BYTE, lineCost, memoryForALog, tooMuchMemory } from "./log-memory.ts";
import { entriesOfRow } from "./log-rows.ts";
import { linesOf, piecesOf, type Line } from "./read-lines.ts";
import { openToRead } from "./regular-file.ts";
import { freezeParsedJson } from "../fast/json-fast.ts";
import { Session } from "../session.ts";
import { ReplayError } from "../session-types.ts";
import { decode, parseLine, startsWithBom, startsWithBracket, UTF8_BOM, utf16Bom } from "./jsonl.ts";

/**
 * Reads a log file (JSONL, or a JSON array of events) into a Session; see parseLogText. Only a regular
 * file is read (regular-file.ts): a folder, a device such as /dev/zero (endless) or a FIFO (it waits for
 * a writer) is a LogFileError "NOT_A_FILE", a file that cannot be opened is "UNREADABLE", one larger
 * than MAX_LOG_BYTES is "TOO_LARGE", and one too large for this process's memory is
 * "TOO_LARGE_IN_MEMORY", each in a sentence.
 */
export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  const { fd, size } = openToRead(file);
  try {
    if (size > MAX_LOG_BYTES) throw tooLarge(file, MAX_LOG_BYTES, "a log");
    return parsePieces(piecesOf(fd), size, { source: file, ...options });
  } finally {
    closeSync(fd);
  }
}

/**
 * Replays a saved log: JSONL as attachLogFile writes it, or the whole log as one JSON array (what the
 * demo's ④ prints). In JSONL a last line that a crash cut short is dropped and reported as `torn`; a
 * bad line anywhere else is a LogFileError naming it, never skipped; and an entry Session.fromLog
 * refuses is reported by the line it was on. A string is taken as UTF-8 text; bytes are decoded
 * strictly, so a line that is not valid UTF-8 is a bad line, not text with "�" in it.
 *
 * What an editor may have added is read past and reported: a UTF-8 byte order mark (`bom`) and CRLF
 * line ends (`crlf`). A file from which no event could be read is never an empty log: when its only
 * line is torn it is "NOTHING_READ" (only a file of zero bytes is an empty log).
 */
export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  // Stryker disable next-line ConditionalExpression: Buffer.from of bytes is a copy of the same bytes, read the same way
  const bytes = typeof input === "string" ? Buffer.from(input) : input; // Buffer.from takes a string as UTF-8
  return parsePieces([bytes], bytes.length, options);
}

/**
 * parseLogText over `size` bytes that come in pieces: the first piece tells the format, the rest follow.
 * A JSON array is parsed whole, so one larger than MAX_ARRAY_BYTES, or whose parse would not fit the
 * memory a log may have (log-memory.ts), is refused before more is read; JSONL is refused at the line
 * where what it would cost passes that.
 */
function parsePieces(pieces: Iterable<Uint8Array>, size: number, options: ReadOptions): LoadedLog {
  const { source = "log", ...sessionOptions } = options;
  const limit = memoryForALog();
  const rest = pieces[Symbol.iterator]();
  const raw = rest.next().value ?? new Uint8Array();
  const bom = startsWithBom(raw);
  const first = bom ? raw.subarray(UTF8_BOM.length) : raw;
  const utf16 = utf16Bom(first);
  if (utf16 !== undefined) throw notUtf8(source, utf16);
  const bytes = chain(first, rest);
  if (startsWithBracket(first)) {
    if (size > MAX_ARRAY_BYTES) throw tooLarge(source, MAX_ARRAY_BYTES, "a JSON array log");
    const cost = size * ARRAY_COST_PER_BYTE;
    if (cost > limit) throw tooMuchMemory(source, undefined, undefined, cost, limit);
    const session = replay(parseJsonArray(Buffer.concat([...bytes]), source), source, sessionOptions, () => undefined);
    return { session, torn: undefined, format: "json-array", bom, crlf: false };
  }
  const { entries, torn, crlf, lineOfEvent } = readLines(linesOf(bytes), source, { size, limit });
  if (entries.length === 0 && torn !== undefined) throw nothingRead(source, torn);
  return { session: replay(entries, source, sessionOptions, lineOfEvent), torn, format: "jsonl", bom, crlf };
}

function* chain(first: Uint8Array, rest: Iterator<Uint8Array>): Generator<Uint8Array> {
  yield first;
  for (let next = rest.next(); next.done !== true; next = rest.next()) yield next.value;
}

/**
 * Parses each line and unpacks its rows, counting what they will cost in memory up to `limit` (of a file
 * of `size` bytes); only the last line may be torn. `crlf`: some line ended "\r\n".
 */
function readLines(lines: Iterable<Line>, source: string, { size, limit }: { size: number; limit: number }) {
  const entries: unknown[] = [];
  // Only packed rows, which hold several events, are remembered: a plain log keeps no table of its lines.
  // Stryker disable next-line ArrayDeclaration: equivalent, an entry that is not a row never matches in lineOfEvent
  const rows: { line: number; first: number; count: number }[] = [];
  const types = new Map<string, string>(); // one copy of each event type (see shareType)
  const chunks = new Map<string, object>(); // one copy of each text chunk read (see shareChunk)
  let crlf = false;
  let line = 0;
  let [cost, read] = [0, 0]; // what the lines so far cost in memory, and their bytes
  let notJson: { line: number; why: string; bytes: number } | undefined; // torn, unless another line follows
  for (const { bytes, terminated } of lines) {
    line++;
    if (notJson !== undefined) throw badLine(source, notJson.line, notJson.why);
    if (!terminated) return { entries, torn: torn(line, "unterminated", bytes.length), crlf, lineOfEvent };
    crlf ||= bytes[bytes.length - 1] === 0x0d;
    const parsed = parseLine(bytes);
    if (!parsed.ok) {
      notJson = { line, why: parsed.why, bytes: bytes.length + 1 };
      continue;
    }
    shareType(parsed.value, types);
    const row = entriesOfRow(parsed.value);
    if ("why" in row) throw badLine(source, line, `the line is a damaged packed row (${row.why})`); // JSON, so no crash tore it
    if ("error" in row) {
      // What replay would say of that event, said now: the rest of the file is not read for nothing.
      const index = entries.length + row.chunk;
      throw replayRefused(source, line, new ReplayError(index, "SCHEMA", row.error.message, { cause: row.error }));
    }
    let shared = 0;
    for (const entry of row.entries) if (shareChunk(entry, chunks)) shared++;
    cost += lineCost(bytes.length, row.entries.length, shared);
    read += bytes.length + 1;
    if (cost > limit) throw tooMuchMemory(source, line, entries.length + row.entries.length, cost * Math.max(1, size / read), limit);
    // Stryker disable next-line EqualityOperator: equivalent, a one-event line kept as a row counts the same; only memory tells
    if (row.entries.length > 1) rows.push({ line, first: entries.length, count: row.entries.length });
    for (const entry of row.entries) entries.push(entry);
  }
  return { entries, torn: notJson && torn(notJson.line, "not-json", notJson.bytes), crlf, lineOfEvent };

  /** The line event #index was read from (asked once, of the event replay refuses): counted on from the last row before it. */
  function lineOfEvent(index: number): number {
    // Stryker disable next-line EqualityOperator: equivalent, a row's first event counted on from the row before lands on the same line
    const row = rows.findLast(({ first }) => first <= index);
    if (row === undefined) return index + 1;
    const after = index - (row.first + row.count - 1); // how many one-event lines past the row's last event
    return row.line + Math.max(0, after);
  }
}

/**
 * JSON.parse makes a new string for each "assistant/chunk" it reads (V8 shares only strings of up to
 * 10 characters): the entry's type is swapped for the first copy read, 24 bytes an event kept less.
 */
// Stryker disable all: only memory tells which of two equal strings an entry holds (throwing on null, 7 or "packed" fails tests)
function shareType(value: unknown, types: Map<string, string>): void {
  if (typeof value !== "object" || value === null || !("type" in value) || typeof value.type !== "string") return;
  const shared = types.get(value.type);
  if (shared === undefined) types.set(value.type, value.type);
  else value.type = shared;
}
// Stryker restore all

/**
 * A streamed reply is token-sized pieces, and tokens repeat ("的", "，", " the"): an entry whose chunk is a
 * `{kind, text}` of text or reasoning equal to one read before gets that first one instead (replay freezes
 * both): SHARED_CHUNK_BYTES an event less, and true. At most SHARED_CHUNKS different chunks are remembered.
 */
function shareChunk(entry: unknown, chunks: Map<string, object>): boolean {
  if (!isRecord(entry) || entry.type !== "assistant/chunk" || !isRecord(entry.data)) return false;
  const { chunk } = entry.data;
  if (!isRecord(chunk) || (chunk.kind !== "text" && chunk.kind !== "reasoning") || typeof chunk.text !== "string") return false;
  const keys = Object.keys(chunk);
  if (keys.length !== 2 || keys[1] !== "text") return false; // exactly {kind, text}, in that order
  const key = `${chunk.kind}:${chunk.text}`;
  const shared = chunks.get(key);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the bound only caps memory, for logs of 65,536 different chunks and more.
  if (shared === undefined && chunks.size < SHARED_CHUNKS) chunks.set(key, chunk);
  if (shared !== undefined) entry.data.chunk = shared;
  return shared !== undefined;
}

/** How many different chunks shareChunk remembers: a model's vocabulary is about 128,000 tokens, most rare. */
const SHARED_CHUNKS = 65_536;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const torn = (line: number, reason: TornLine["reason"], bytes: number): TornLine => ({ line, reason, bytes });

function badLine(source: string, line: number, why: string): LogFileError {
  return new LogFileError(
    "BAD_LINE",
    source,
    line,
    `${why}; only the last line can be torn by a crash, so a bad line before it means a damaged file`,
  );
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

function notUtf8(source: string, utf16: string): LogFileError {
  const why = `this is ${utf16} text (its first bytes are a UTF-16 byte order mark); a log is UTF-8`;
  return new LogFileError("NOT_UTF8", source, undefined, why);
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

function tooLarge(source: string, limit: number, what: string): LogFileError {
  return new LogFileError(
    "TOO_LARGE",
    source,
    undefined,
    `the file is larger than ${limit / 2 ** 20} MiB, the most ${what} may be here: a loaded log is kept in memory, every event of it, so a larger file is refused rather than left to run out of memory`,
  );
}

/**
 * Session.fromLog, with its ReplayError's event index told as the line the event was on. The entries
 * are this reader's own JSON.parse results (unpacked rows included), held by no one else, so the
 * session may freeze them in place instead of copying them (freezeParsedJson: same checks, same
 * errors). A Session without that option (a learner's, under `--mine`) ignores it and copies, as the
 * book's does.
 */
function replay(
  entries: unknown,
  source: string,
  options: Omit<ReadOptions, "source">,
  lineOf: (index: number) => number | undefined,
): Session {
  try {
    return Session.fromLog(entries, { ...options, quickFreeze: freezeParsedJson });
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    throw replayRefused(source, lineOf(error.index), error);
  }
}

function replayRefused(source: string, line: number | undefined, error: ReplayError): LogFileError {
  return new LogFileError("REPLAY", source, line, error.message, { cause: error });
}
