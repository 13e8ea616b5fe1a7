// Beyond 5.3 and 5.6: the log on disk. A subscriber writes each event as one line of JSON (JSONL) the
// moment it is committed (log-writer.ts); a reader replays the file into a Session, dropping only a
// last line that a crash cut short; and repairLog closes the turn such a crash left open — by
// appending, never editing.
//
// The format: line n (from 1) is `JSON.stringify(event #n-1)` followed by "\n", in id order, UTF-8.
// JSON.stringify escapes every newline inside a string, so an event is always exactly one line.
import { readFileSync } from "node:fs";
import { isEventOfType, type SessionEvent } from "./events.ts";
import { findLogProblems, type LogProblem } from "./invariants.ts";
import {
  LogFileError,
  NOT_STARTED,
  OUTCOME_UNKNOWN,
  RepairError,
  TURN_INTERRUPTED,
  type LoadedLog,
  type ReadOptions,
  type TornLine,
} from "./log-file-types.ts";
import { Session } from "./session.ts";
import { ReplayError } from "./session-types.ts";
import { decode, parseLine, startsWithBracket } from "./jsonl.ts";

// ── writing: persistence is just a subscriber (log-writer.ts, with its lock in log-lock.ts) ────────
export { attachLogFile } from "./log-writer.ts";

// ── reading: every line is trusted only after it is checked ─────────────────────────────────────

/** Reads a log file (JSONL, or a JSON array of events) into a Session; see parseLogText. */
export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return parseLogText(readFileSync(file), { source: file, ...options });
}

/**
 * Replays a saved log: JSONL as attachLogFile writes it, or the whole log as one JSON array (what the
 * demo's ④ prints). In JSONL a last line that a crash cut short is dropped and reported as `torn`; a
 * bad line anywhere else is a LogFileError naming it, never skipped; and an entry Session.fromLog
 * refuses is reported by its line (event #i is line i+1). A string is taken as UTF-8 text; bytes are
 * decoded strictly, so a line that is not valid UTF-8 is a bad line, not text with "�" in it.
 */
export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  const { source = "log", ...sessionOptions } = options;
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  if (startsWithBracket(bytes)) {
    const entries = parseJsonArray(bytes, source);
    return { session: replay(entries, source, sessionOptions, () => undefined), torn: undefined, format: "json-array" };
  }
  const { entries, torn } = readLines(bytes, source);
  return { session: replay(entries, source, sessionOptions, (index) => index + 1), torn, format: "jsonl" };
}

/** Parses each line; only the last may be torn. */
function readLines(bytes: Uint8Array, source: string): { entries: unknown[]; torn: TornLine | undefined } {
  const entries: unknown[] = [];
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) return { entries, torn: { line, reason: "unterminated", bytes: bytes.length - start } };
    const entry = parseLine(bytes.subarray(start, newline));
    const isLast = newline === bytes.length - 1;
    if (entry.ok) entries.push(entry.value);
    else if (isLast) return { entries, torn: { line, reason: "not-json", bytes: newline + 1 - start } };
    else
      throw new LogFileError(
        "BAD_LINE",
        source,
        line,
        `${entry.why}; only the last line can be torn by a crash, so a bad line before it means a damaged file`,
      );
    start = newline + 1;
  }
  return { entries, torn: undefined };
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

/** Session.fromLog, with its ReplayError's event index told as the line the event was on. */
function replay(
  entries: unknown,
  source: string,
  options: Omit<ReadOptions, "source">,
  lineOf: (index: number) => number | undefined,
): Session {
  try {
    return Session.fromLog(entries, options);
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    throw new LogFileError("REPLAY", source, lineOf(error.index), error.message, { cause: error });
  }
}

// ── repair: a crash leaves the last turn open; close it by appending ────────────────────────────

/**
 * Closes the last turn if a crash left it open — an error result for each call the turn left
 * unanswered, step/end for the open step, turn/end { reason: "error" } — by appending to `session`,
 * which it returns: a writer attached to the session saves the repair too, and the events already
 * logged stay exactly as they were. A log with no problem is returned as it is; one whose problems
 * are not what a crash leaves (findLogProblems says which) is a RepairError, and nothing is appended.
 */
export function repairLog(session: Session): Session {
  const events = session.events;
  const problems = findLogProblems(events);
  if (problems.length === 0) return session;
  const turnStart = lastTurnLeftOpen(events, problems);
  for (const problem of problems) {
    if (problem.code === "UNANSWERED_TOOL_CALL") answer(session, dataAt(events, problem.index, "tool/call").call_id, OUTCOME_UNKNOWN);
  }
  // A reply asking for several calls is logged before the first runs; a crash can leave later ones unstarted.
  for (const call of neverStarted(events.slice(turnStart))) {
    session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
    answer(session, call.id, NOT_STARTED);
  }
  const openStep = problems.find((problem) => problem.code === "OPEN_STEP");
  if (openStep) session.append("step/end", dataAt(events, openStep.index, "step/start"));
  const { turn } = dataAt(events, turnStart, "turn/start");
  session.append("turn/end", { turn, reason: "error", message: TURN_INTERRUPTED });
  return session;
}

/** The index of the last turn/start, when every problem is one a crash in that turn explains. */
function lastTurnLeftOpen(events: readonly SessionEvent[], problems: readonly LogProblem[]): number {
  const turnStart = events.findLastIndex((event) => event.type === "turn/start");
  const stepStart = events.findLastIndex((event) => event.type === "step/start");
  const crashLeft = (problem: LogProblem): boolean =>
    (problem.code === "OPEN_TURN" && problem.index === turnStart) ||
    (problem.code === "OPEN_STEP" && problem.index === stepStart && stepStart > turnStart) ||
    (problem.code === "UNANSWERED_TOOL_CALL" && problem.index > turnStart);
  const others = problems.filter((problem) => !crashLeft(problem));
  if (others.length > 0) throw new RepairError(others);
  if (!problems.some((problem) => problem.code === "OPEN_TURN")) throw new RepairError(problems);
  return turnStart;
}

function neverStarted(turn: readonly SessionEvent[]) {
  const started = new Set(turn.filter((event) => isEventOfType(event, "tool/call")).map((event) => event.data.call_id));
  const asked = turn.flatMap((event) => (isEventOfType(event, "assistant/message") ? event.data.tool_calls : []));
  return asked.filter((call) => !started.has(call.id));
}

function answer(session: Session, callId: string, content: string): void {
  session.append("tool/result", { call_id: callId, content, is_error: true });
}

function dataAt<T extends "turn/start" | "step/start" | "tool/call">(events: readonly SessionEvent[], index: number, type: T) {
  const event = events[index];
  if (event === undefined || !isEventOfType(event, type)) throw new Error(`event #${index} is not ${type}`);
  return event.data;
}
