// What every benchmark shares: a timer and a median one, and a log shaped like real runs (the book's 12-event
// calculator round trip, turn after turn) to append from.
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import { Session } from "../../chapters/05-session-log/session.ts";

/** Times `work` once, in milliseconds. */
export function time(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

/** Runs `work` several times and keeps the median, which shrugs off a slow outlier (or a GC pause). */
export function median(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(time(work));
  return middle(times);
}

/** The load average right now (1, 5 and 15 minutes, as /proc/loadavg has it), to print beside a timing: numbers vary with it. */
export function loadNow(): string {
  return `load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")} on ${cpus().length} cores`;
}

/** The median of measured times. */
export function middle(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export interface EventInput {
  readonly type: string;
  readonly data: JsonObject;
}

/** One calculator round trip: 12 events, 4 of which become messages. */
function calculatorTurn(turn: number): EventInput[] {
  const call = { id: `call_00_${turn}`, name: "calculator", arguments: '{"expression":"1+2*3"}' };
  return [
    { type: "turn/start", data: { turn } },
    { type: "user/message", data: { content: "1+2*3 等于几？" } },
    {
      type: "request/header",
      data: { header: { model: "deepseek-flash", system: "You are helpful.", tools: [] }, reason: "initial" },
    },
    { type: "step/start", data: { turn, step: 1 } },
    { type: "assistant/message", data: { content: "", reasoning_content: "use the tool", tool_calls: [call] } },
    { type: "tool/call", data: { call_id: call.id, name: call.name, arguments: call.arguments } },
    { type: "tool/result", data: { call_id: call.id, content: "7", is_error: false } },
    { type: "step/end", data: { turn, step: 1 } },
    { type: "step/start", data: { turn, step: 2 } },
    { type: "assistant/message", data: { content: "1 + 2 × 3 = 7", reasoning_content: "done", tool_calls: [] } },
    { type: "step/end", data: { turn, step: 2 } },
    { type: "turn/end", data: { turn, reason: "completed" } },
  ];
}

/** The first `count` events of a run of calculator turns (the last turn may be cut short). */
export function calculatorEvents(count: number): EventInput[] {
  const events: EventInput[] = [];
  for (let turn = 1; events.length < count; turn++) events.push(...calculatorTurn(turn));
  return events.slice(0, count);
}

export function newSession(): Session {
  return new Session({ clock: () => 1_787_616_000_000 });
}

/** A session holding `turns` calculator round trips. */
export function calculatorSession(turns: number): Session {
  const session = newSession();
  for (const { type, data } of calculatorEvents(turns * 12)) session.append(type, data);
  return session;
}

/** From now on, every line `console.log` prints is also kept, to be written to docs/benchmarks.md. */
export function keepPrinted(): string[] {
  const printed: string[] = [];
  const print = console.log;
  console.log = (...parts: unknown[]) => {
    printed.push(parts.map(String).join(" "));
    print(...parts);
  };
  return printed;
}

/** docs/benchmarks.md: the one page of measured figures, as `npm run bench` printed them; the READMEs link here. */
export function writeBenchmarksPage(file: string, printed: readonly string[]): void {
  const intro = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (scripts/bench/bench.ts): every figure below is from the run that wrote this page, with the load",
    "average beside it. Timings are measured here, never asserted in tests. Run `npm run bench` again to refresh the page.",
    "",
  ];
  writeFileSync(file, `${[...intro, ...printed].join("\n").trimEnd()}\n`);
}
