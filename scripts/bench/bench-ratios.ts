// The log's own speed as ratios (issue 22): each operation against the floor any JavaScript program
// pays for the same data, JSON.parse / JSON.stringify; and each quick path past the book (issue 27)
// against the careful path it short-cuts. A ratio is measured in pairs, the two timed one right after
// the other, so both run under the same load; the table shows the median of the pairs' ratios. Called
// by `npm run bench`; alone, `npx tsx scripts/bench/bench-ratios.ts`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { readLogFile } from "../../chapters/05-session-log/disk/log-file.ts";
import { copyPlainJson, freezeParsedJson } from "../../chapters/05-session-log/fast/json-fast.ts";
import { freezeJson } from "../../chapters/05-session-log/json.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
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
 * Replaying lines the caller has parsed (as the log file reader hands them over: frozen in place by
 * freezeParsedJson), against parsing them. Each pair parses afresh, so the replay meets data no one has
 * frozen yet.
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
    () => void Session.fromLog(entries, { quickFreeze: freezeParsedJson }),
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

// ── the quick paths past the book (chapters/05-session-log/fast/), each against the careful path ──

export interface QuickPathRow {
  readonly path: string;
  readonly where: string;
  /** The careful path's time ÷ the quick path's: the gain. A quick path stays only at ≥ QUICK_PATH_GOAL. */
  readonly gain: number;
  readonly detail: string;
  /** The row the quick path is for, which decides whether it stays; the others show it elsewhere. */
  readonly decides: boolean;
}

/** What a quick path must buy on its own row to stay (issue 27): less is not worth a second way. */
export const QUICK_PATH_GOAL = 1.5;

/** Median of `careful ÷ quick` over PAIRS pairs, each timed back to back on fresh input. */
function gainOf(careful: () => number, quick: () => number): { gain: number; detail: string } {
  const gains: number[] = [];
  const carefulMs: number[] = [];
  const quickMs: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const c = careful();
    const q = quick();
    gains.push(c / q);
    carefulMs.push(c);
    quickMs.push(q);
  }
  return { gain: middle(gains), detail: `${middle(carefulMs).toFixed(1)} ms ÷ ${middle(quickMs).toFixed(1)} ms` };
}

/**
 * copyPlainJson, on append's own row. Append calls copyPlainJson once per event and, without it,
 * would call freezeJson instead; so the careful append's time is the append's, less the quick copies,
 * plus the careful walks of the same data, all three timed in the same pair.
 */
function appendGain(what: string, events: readonly { type: string; data: JsonObject }[], decides: boolean): QuickPathRow {
  const quickAndCareful = () => {
    const append = time(() => {
      const session = newSession();
      for (const { type, data } of events) session.append(type, data);
    });
    const copies = time(() => {
      for (const { data } of events) copyPlainJson(data);
    });
    const walks = time(() => {
      for (const { data } of events) freezeJson(data);
    });
    return { careful: append - copies + walks, quick: append };
  };
  let last = { careful: 0, quick: 1 };
  const { gain, detail } = gainOf(
    () => {
      last = quickAndCareful();
      return last.careful;
    },
    () => last.quick,
  );
  return { path: "copyPlainJson (fast/json-fast.ts) before freezeJson's careful walk", where: what, gain, detail, decides };
}

/**
 * freezeParsedJson, on Session.fromLog's row: the default replay (a quick copy) against the reader's
 * (in place). Its own row is the log the reader is for: a large one is a streamed run's, mostly chunks.
 */
function replayGain(what: string, lines: readonly string[], decides: boolean): QuickPathRow {
  let copied: unknown[] = [];
  let inPlace: unknown[] = [];
  const { gain, detail } = gainOf(
    () => {
      copied = parseLines(lines);
      return time(() => void Session.fromLog(copied));
    },
    () => {
      inPlace = parseLines(lines);
      return time(() => void Session.fromLog(inPlace, { quickFreeze: freezeParsedJson }));
    },
  );
  return {
    path: "freezeParsedJson (fast/json-fast.ts): the reader's parse frozen in place, not copied",
    where: what,
    gain,
    detail,
    decides,
  };
}

/**
 * A quick path measured and then deleted, kept here so that the table says why it is gone: measured on
 * builds with and without it, at commit 5c111f9 (issue 27).
 */
const DELETED: readonly string[] = [
  "| schema-check.ts: a predicate compiled from zod's `_zod.def`, tried before zod's `safeParse` | append 12,000 calculator events; 100,000 events, mostly chunks | 0.98×–1.01× (append with ÷ without, 3 runs each, load 2–11); the check alone 1.1×–1.9× (load 18) | deleted: zod 4 compiles its own parser (its default JIT), so a second schema engine bought nothing on append |",
];

export function measureQuickPaths(): QuickPathRow[] {
  const plain = calculatorSession(1_000).events;
  const streamed = streamedLog(100_000);
  return [
    appendGain("append 12,000 calculator events", calculatorEvents(12_000), true),
    appendGain(
      `append ${streamed.length.toLocaleString("en")} events, mostly chunks`,
      streamed.map((line) => JSON.parse(line) as { type: string; data: JsonObject }),
      false,
    ),
    replayGain(
      `Session.fromLog of ${plain.length.toLocaleString("en")} calculator events`,
      plain.map((event) => JSON.stringify(event)),
      false,
    ),
    replayGain(`Session.fromLog of ${streamed.length.toLocaleString("en")} events, mostly chunks`, streamed, true),
  ];
}

export function printQuickPaths(rows: readonly QuickPathRow[], loadBefore: string): void {
  console.log(
    `\nThe quick paths past the book, each against the careful path it short-cuts (careful ÷ quick, median of ${PAIRS} pairs; ${loadBefore} before). One stays only where it buys ≥ ${QUICK_PATH_GOAL}× on its own row.\n`,
  );
  console.log("| quick path | row | careful ÷ quick | kept? (decided on its own row) |\n|---|---|---|---|");
  for (const { path: quick, where, gain, detail, decides } of rows) {
    const verdict = !decides ? "(not its own row)" : gain >= QUICK_PATH_GOAL ? "kept" : `delete it: below ${QUICK_PATH_GOAL}×`;
    console.log(`| ${quick} | ${where} | ${gain.toFixed(2)}× (${detail}) | ${verdict} |`);
  }
  for (const row of DELETED) console.log(row);
  console.log(`\n${loadNow()} after`);
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
  const loadBeforeQuick = loadNow();
  printQuickPaths(measureQuickPaths(), loadBeforeQuick);
}
