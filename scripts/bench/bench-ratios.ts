// The log's own speed as ratios (issue 22): each operation against the floor any JavaScript program
// pays for the same data, JSON.parse / JSON.stringify. A ratio is measured in pairs, the operation and
// its floor one right after the other, so both run under the same load; the table shows the median of
// the pairs' ratios. Called by `npm run bench`; alone, `npx tsx scripts/bench/bench-ratios.ts`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { readLogFile } from "../../chapters/05-session-log/disk/log-file.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { calculatorEvents, calculatorSession, loadNow, middle, newSession, time } from "./bench-lib.ts";
import { streamedTurn } from "./bench-replay.ts";

export interface RatioRow {
  readonly what: string;
  readonly ratio: number;
  /** The ratio must be at most this. */
  readonly goal: number;
  /** What was timed, in milliseconds: the operation's and the floor's medians. */
  readonly detail: string;
}

const PAIRS = 15; // on a shared machine a single pair can be off by 2×; the median of 15 settles

/** Runs the floor and then the operation PAIRS times; `prepare` makes each pair's fresh input first. */
function pairs<T>(what: string, goal: number, prepare: () => T, floor: (input: T) => void, operation: (input: T) => void): RatioRow {
  const ratios: number[] = [];
  const floors: number[] = [];
  const operations: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const input = prepare();
    const floorMs = time(() => floor(input));
    const operationMs = time(() => operation(input));
    ratios.push(operationMs / floorMs);
    floors.push(floorMs);
    operations.push(operationMs);
  }
  const detail = `${middle(operations).toFixed(1)} ms ÷ ${middle(floors).toFixed(1)} ms`;
  return { what, ratio: middle(ratios), goal, detail };
}

const parseLines = (lines: readonly string[]) => lines.map((line): unknown => JSON.parse(line));

/** Appending events one by one, against copying their data through JSON text (the cheapest deep copy). */
function appendRow(): RatioRow {
  const events = calculatorEvents(12_000);
  return pairs(
    "append one event ÷ `JSON.parse(JSON.stringify(data))` (12,000 calculator events)",
    1.5,
    () => undefined,
    () => {
      for (const { data } of events) JSON.parse(JSON.stringify(data));
    },
    () => {
      const session = newSession();
      for (const { type, data } of events) session.append(type, data);
    },
  );
}

/**
 * Replaying lines the caller has parsed (as the log file reader hands them over: `trusted`), against
 * parsing them. Each pair parses afresh, so the replay meets data no one has frozen yet.
 */
function replayRow(what: string, lines: readonly string[], goal: number): RatioRow {
  let entries: unknown[] = [];
  return pairs(
    what,
    goal,
    () => undefined,
    () => {
      entries = parseLines(lines);
    },
    () => void Session.fromLog(entries, { trusted: true }),
  );
}

/** A file of `target` events, mostly chunks (bench-replay.ts's streamed turns), and its lines. */
function streamedLog(target: number): string[] {
  const session = new Session();
  for (let turn = 1; session.events.length < target; turn++) streamedTurn(session, turn, 400);
  return session.events.map((event) => JSON.stringify(event));
}

/** The whole reader (read the file, check each line, replay), against parsing the same file's lines. */
function readerRow(lines: readonly string[]): RatioRow {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-ratios-"));
  const file = path.join(dir, "streamed.jsonl");
  try {
    writeFileSync(file, lines.map((line) => `${line}\n`).join(""));
    return pairs(
      `readLogFile of ${lines.length.toLocaleString("en")} events, mostly chunks ÷ JSON.parse of the file's lines`,
      1,
      () => undefined,
      () => {
        for (const line of readFileSync(file, "utf8").split("\n")) if (line !== "") JSON.parse(line);
      },
      () => void readLogFile(file),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Issue 22's rows 1–3, plus the replay alone of the chunk-heavy log (what row 3 spends beyond reading). */
export function measureRatios(): RatioRow[] {
  calculatorSession(100); // warm the JIT up
  const plain = calculatorSession(1_000).events.map((event) => JSON.stringify(event));
  const streamed = streamedLog(100_000);
  return [
    appendRow(),
    replayRow(
      `Session.fromLog of a plain log (${plain.length.toLocaleString("en")} calculator events) ÷ JSON.parse of its lines`,
      plain,
      1,
    ),
    replayRow(`Session.fromLog of ${streamed.length.toLocaleString("en")} events, mostly chunks ÷ JSON.parse of its lines`, streamed, 1),
    readerRow(streamed),
  ];
}

/** The ratios as a Markdown table, with the load before and after (ratios move with it, less than times do). */
export function printRatios(rows: readonly RatioRow[], loadBefore: string): void {
  console.log(`\nThe log's speed as ratios (issue 22; median of ${PAIRS} pairs; ${loadBefore} before)\n`);
  console.log("| ratio | measured | goal | met? |\n|---|---|---|---|");
  for (const { what, ratio, goal, detail } of rows) {
    console.log(`| ${what} | ${ratio.toFixed(2)}× (${detail}) | ≤ ${goal}× | ${ratio <= goal ? "met" : "not met"} |`);
  }
  console.log(`\n${loadNow()} after`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const load = loadNow();
  printRatios(measureRatios(), load);
}
