// How fast is the session log? Speed is measured here, never asserted in tests (timings vary by
// machine and load). Prints Markdown tables, writes them to docs/benchmarks.md (the READMEs link
// there), and draws docs/incremental-projection.svg (step 05.6).
//   npm run bench
import path from "node:path";
import { freezeJson } from "../../chapters/05-session-log/json.ts";
import { MAX_JSON_DEPTH } from "../../chapters/05-session-log/json-value.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { measureApart } from "./bench-incremental.ts";
import { calculatorSession, keepPrinted, loadNow, median, writeBenchmarksPage } from "./bench-lib.ts";
import { diskRows } from "./bench-disk.ts";
import { pageRows } from "./bench-page.ts";
import { measureQuickPaths, measureRatios, printQuickPaths, printRatios } from "./bench-ratios.ts";
import { measureReplay } from "./bench-replay.ts";
import { writeCostPlot } from "./bench-plot.ts";
import { root } from "../steps.ts";

const printed = keepPrinted(); // for docs/benchmarks.md, written at the end

function nested(depth: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

const rows: [string, string][] = [];
// Below 0.1 ms in microseconds: an incremental deriveMessages() would otherwise print as "0.00 ms".
const ms = (value: number) => (value < 0.1 ? `${(value * 1_000).toFixed(1)} µs` : `${value.toFixed(2)} ms`);
calculatorSession(100).deriveMessages(); // warm the JIT up, so the first row is not mostly compile time

for (const turns of [10, 100, 1000]) {
  const events = turns * 12;
  const appendTime = median(5, () => void calculatorSession(turns));
  rows.push([`append ${events} events (${turns} turns)`, `${ms(appendTime)} (${Math.round(events / appendTime)} events/ms)`]);
  const session = calculatorSession(turns);
  // One call is too quick to time alone; time 100 and report the cost of one.
  const derive =
    median(9, () => {
      for (let call = 0; call < 100; call++) void session.deriveMessages();
    }) / 100;
  rows.push([`one deriveMessages over ${events} events → ${turns * 4} messages`, ms(derive)]);
  const text = JSON.stringify(session.events);
  const replay = median(5, () => void Session.fromLog(JSON.parse(text)));
  rows.push([`JSON.parse + Session.fromLog of ${events} events (${Math.round(text.length / 1024)} KiB)`, ms(replay)]);
}

// A subscriber that reads `events` after every append makes each append copy the log: O(n) each.
const readEveryTime = median(5, () => {
  const session = new Session();
  session.subscribe(() => void session.events);
  for (let turn = 0; turn < 1000; turn++) session.append("user/message", { content: "hi" });
});
rows.push(["1,000 appends, `events` read after each (snapshot rebuilt each time)", ms(readEveryTime)]);
const session = calculatorSession(100);
const snapshotReads = median(9, () => {
  for (let read = 0; read < 100_000; read++) void session.events;
});
rows.push(["100,000 reads of `events` between appends (cached snapshot)", ms(snapshotReads)]);
const deep = nested(MAX_JSON_DEPTH);
rows.push([`freezeJson of ${MAX_JSON_DEPTH} nested arrays (MAX_JSON_DEPTH)`, ms(median(5, () => void freezeJson(deep)))]);

/** The deepest nesting JSON.stringify writes before it overflows, from this (nearly empty) stack. */
function deepestStringify(frozen: boolean): number {
  let fits = 1;
  let overflows = 100_000;
  while (overflows - fits > 1) {
    const middle = Math.floor((fits + overflows) / 2);
    try {
      JSON.stringify(frozen ? freezeLevels(middle) : nested(middle));
      fits = middle;
    } catch {
      overflows = middle;
    }
  }
  return fits;
}

/** Nested arrays, each frozen, as the log holds them: JSON.stringify takes a slower path for those. */
function freezeLevels(depth: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = Object.freeze([value]);
  return value;
}
// Why MAX_JSON_DEPTH is what it is: a saved log must stay well below these (see json-value.ts).
rows.push(["deepest nesting JSON.stringify writes: frozen arrays (levels, nearly empty stack)", String(deepestStringify(true))]);
rows.push(["deepest nesting JSON.stringify writes: plain arrays (levels, nearly empty stack)", String(deepestStringify(false))]);

rows.push(...diskRows()); // the log on disk with streamed replies (bench-disk.ts)

const machine = `Node ${process.version}, ${process.platform}/${process.arch}`;
console.log(`${machine}, median of 5–9 runs, ${loadNow()} at the start\n`);
console.log("| operation | time (or count) |\n|---|---|");
for (const [operation, time] of rows) console.log(`| ${operation} | ${time} |`);

// ── issue 22: the log's own speed, as ratios against JSON.parse / JSON.stringify (bench-ratios.ts) ──
const loadBeforeRatios = loadNow();
printRatios(measureRatios(), loadBeforeRatios);
const loadBeforeQuickPaths = loadNow();
printQuickPaths(measureQuickPaths(), loadBeforeQuickPaths);

// ── step 05.6: incremental projection, as ratios (machine-independent enough to quote) ─────────────

// Each in a fresh process of its own, so neither inherits the other's heap (see bench-incremental.ts).
const full = measureApart("full");
const incremental = measureApart("incremental");
const times = (ratio: number) => `${ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(ratio < 10 ? 2 : 1)}×`;
console.log(
  `\nStep 05.6 — the full projection (deriveMessages(session.events), before 05.6) vs the session's incremental deriveMessages()\n`,
);
console.log("| ratio | full | incremental | target |\n|---|---|---|---|");
console.log(
  `| one derivation right after an append ÷ JSON.stringify of the same ${incremental.messages.toLocaleString("en")} messages | ${times(full.deriveVsStringify)} | ${times(incremental.deriveVsStringify)} | ≤ 0.02× |`,
);
for (const [index, [count, ratio]] of incremental.appendAndDerive.entries()) {
  const fullRatio = full.appendAndDerive[index]?.[1] ?? Number.NaN;
  const target = count <= 4_000 ? "≤ 2×" : "≤ 4×";
  console.log(
    `| ${count.toLocaleString("en")} appends, deriving after each ÷ the appends alone | ${times(fullRatio)} | ${times(ratio)} | ${target} |`,
  );
}

// ── the timeline page: a 100,000-event log, mostly stream chunks, opened in Chromium ──────────────
console.log("\nThe timeline page (scripts/bench/bench-page.ts; skipped without Chromium)\n");
console.log("| page | time to open |\n|---|---|");
for (const [what, figure] of await pageRows(100_000, "chunks")) console.log(`| ${what} | ${figure} |`);

// ── step 05.7: reading a log back, against JSON.parse of the same file's lines ─────────────────────

const replay = measureReplay();
console.log(
  `\nStep 05.7 — replay (readLogFile: read, check each line, Session.fromLog) of ${replay.events.toLocaleString("en")} events, ${replay.chunks.toLocaleString("en")} of them chunks (${(replay.bytes / 2 ** 20).toFixed(1)} MiB)\n`,
);
console.log("| ratio | measured | target |\n|---|---|---|");
console.log(
  `| replay ÷ JSON.parse of every line (${ms(replay.replayMs)} ÷ ${ms(replay.parseMs)}) | ${times(replay.replayMs / replay.parseMs)} | ≤ 3× |`,
);

const plot = path.join(root, "docs/incremental-projection.svg");
await writeCostPlot([...full.points, ...incremental.points], plot, `measured by npm run bench · ${machine}`);
console.log(`\nPlot: cost per step against session length → ${path.relative(root, plot)}`);
console.log(`${loadNow()} at the end`);
writeBenchmarksPage(path.join(root, "docs/benchmarks.md"), printed);
