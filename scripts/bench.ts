// How fast is the session log? Speed is measured here, never asserted in tests (timings vary by
// machine and load). Prints a Markdown table; the README quotes one run.
//   npm run bench
import { performance } from "node:perf_hooks";
import { freezeJson } from "../chapters/05-session-log/json.ts";
import { MAX_JSON_DEPTH } from "../chapters/05-session-log/json-value.ts";
import { Session } from "../chapters/05-session-log/session.ts";

/** Runs `work` several times and keeps the median, which shrugs off a slow outlier. */
function median(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

/** A log shaped like real runs: every turn is the book's 12-event calculator round trip. */
function calculatorSession(turns: number): Session {
  const session = new Session({ clock: () => 1_787_616_000_000 });
  for (let turn = 1; turn <= turns; turn++) {
    const call = { id: `call_00_${turn}`, name: "calculator", arguments: '{"expression":"1+2*3"}' };
    session.append("turn/start", { turn });
    session.append("user/message", { content: "1+2*3 等于几？" });
    session.append("request/header", { header: { model: "deepseek-flash", system: "You are helpful.", tools: [] }, reason: "initial" });
    session.append("step/start", { turn, step: 1 });
    session.append("assistant/message", { content: "", reasoning_content: "use the tool", tool_calls: [call] });
    session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
    session.append("tool/result", { call_id: call.id, content: "7", is_error: false });
    session.append("step/end", { turn, step: 1 });
    session.append("step/start", { turn, step: 2 });
    session.append("assistant/message", { content: "1 + 2 × 3 = 7", reasoning_content: "done", tool_calls: [] });
    session.append("step/end", { turn, step: 2 });
    session.append("turn/end", { turn, reason: "completed" });
  }
  return session;
}

function nested(depth: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

const rows: [string, string][] = [];
const ms = (value: number) => `${value.toFixed(2)} ms`;
calculatorSession(100).deriveMessages(); // warm the JIT up, so the first row is not mostly compile time

for (const turns of [10, 100, 1000]) {
  const events = turns * 12;
  const appendTime = median(5, () => void calculatorSession(turns));
  rows.push([`append ${events} events (${turns} turns)`, `${ms(appendTime)} (${Math.round(events / appendTime)} events/ms)`]);
  const session = calculatorSession(turns);
  // One call is too quick to time alone; time 100 and report the cost of one.
  const derive = median(9, () => {
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

console.log(`Node ${process.version}, ${process.platform}/${process.arch}, median of 5–9 runs\n`);
console.log("| operation | time (or count) |\n|---|---|");
for (const [operation, time] of rows) console.log(`| ${operation} | ${time} |`);
