// `npm run bench:watch`: how long `npm run watch` takes to start, and from saving a file to showing the
// result, for steps 05.1–05.3. It works in a copy of the workbook in a temporary folder (your exercise
// files are never touched).
// Start: the real `npm run watch` process (node --import tsx scripts/learner/watch.ts), timed from spawning it
// to its first screen (with and without a saved last known state), to the current step's result, and
// to every step checked; beside a bare `node --import tsx` start that runs nothing.
// Save → result: the real loop (fs watcher, vitest runner, classification), saving the step's file
// again and again, timing each save to its result:
//   red    the file is the untouched stub: every test stops at todo()
//   green  the file is the answer: every test runs to the end and passes (the slowest case)
// and, for each save, to its file's type errors (the watch runner's warm TypeScript language service)
// Medians and maxima over the repetitions, each with the load average when it was measured; timings
// vary with load, so they are printed, never asserted.
//   npm run bench:watch [-- --runs 10 --starts 3 --pool forks]   (threads is what watch uses; forks for comparison)
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadNow, middle } from "./bench-lib.ts";
import type { StepReport, StepStatus } from "../learner/status.ts";
import { WatchRunner } from "../learner/watch-runner.ts";
import { exercisesDir, findStep, shippedStubsDir, steps, type Step } from "../steps.ts";
import { answerAsLearnerFile, copyWorkbook } from "../workbook-copy.ts";
import { stepsImporting } from "../learner/imports.ts";
import { watchExercises, WatchLoop } from "../learner/watch.ts";

const benchSteps = ["05.1", "05.2", "05.3"];

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

interface Timed {
  readonly times: number[];
  /** From each save to its type errors on screen. */
  readonly typesTimes: number[];
  /** How the step's tests ended on the last save, e.g. "73/73 passed": proof the run was what it claims. */
  readonly outcome: string;
}

async function timeSaves(step: Step, content: string, runs: number, pool: "threads" | "forks"): Promise<Timed> {
  const file = path.join(exercisesDir, step.file);
  writeFileSync(file, content);
  const runner = await WatchRunner.start({ pool });
  let settle: ((ms: number) => void) | undefined;
  let typed: ((ms: number) => void) | undefined;
  let outcome = "";
  const onResult = (reports: readonly StepReport[]) => {
    outcome = describeOutcome(reports[0]?.status);
    settle?.(performance.now());
  };
  // The save's type errors on screen (they follow the result; the language service is warm after the first save).
  const onTypes = () => typed?.(performance.now());
  const loop = new WatchLoop({ runner, draw: () => {}, list: [step], onResult, onTypes, dependents: stepsImporting });
  await loop.start();
  const watcher = watchExercises((saved) => void loop.saved(saved));
  const times: number[] = [];
  const typesTimes: number[] = [];
  try {
    for (let run = 0; run <= runs; run++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const shown = new Promise<number>((resolve) => (settle = resolve));
      const types = new Promise<number>((resolve) => (typed = resolve));
      const savedAt = performance.now();
      writeFileSync(file, `${content}\n// save ${run}\n`);
      const elapsed = (await shown) - savedAt;
      const typesElapsed = (await types) - savedAt;
      // The first run after start warms the worker and the language service up.
      if (run > 0) {
        times.push(elapsed);
        typesTimes.push(typesElapsed);
      }
    }
  } finally {
    watcher.close();
    await runner.close();
  }
  return { times, typesTimes, outcome };
}

function describeOutcome(status: StepStatus | undefined): string {
  switch (status?.kind) {
    case "passed":
      return `${status.total}/${status.total} passed`;
    case "failing":
      return `${status.total - status.failing}/${status.total} passed`;
    case "not-started":
      return `0/${status.total} passed (each stops at todo())`;
    default:
      return status?.kind ?? "no run";
  }
}

function summary({ times, typesTimes, outcome }: Timed): string {
  const spread = (list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return `median ${Math.round(middle(list))} ms, max ${Math.round(sorted[sorted.length - 1] ?? Number.NaN)} ms`;
  };
  return `${spread(times)} | ${spread(typesTimes)} | ${outcome} | ${times.map(Math.round).join(" ")} | ${loadNow()}`;
}

/** Milliseconds from spawning `npm run watch` to each milestone on its screen; then it is told q. */
interface StartTimes {
  readonly firstScreen: number;
  /** The current step's own result (05.1 untouched: "not started"). */
  readonly result: number;
  /** Every step checked: the screen stops saying it is checking. */
  readonly allChecked: number;
}

function timeStart(stateDir: string): Promise<StartTimes> {
  const startedAt = performance.now();
  const watch = spawn(process.execPath, ["--import", "tsx", "scripts/learner/watch.ts"], {
    env: { ...process.env, WORKBOOK_STATE_DIR: stateDir },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let screen = "";
  const seen: Partial<Record<keyof StartTimes, number>> = {};
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => watch.kill("SIGKILL"), 180_000);
    watch.stdout.setEncoding("utf8");
    watch.stdout.on("data", (chunk: string) => {
      screen = (screen + chunk).slice(-20_000);
      const last = screen.slice(screen.lastIndexOf("第 05 章"));
      const at = performance.now() - startedAt;
      if (last.includes("练习步骤 05.1")) seen.firstScreen ??= at;
      if (last.includes("还没开始") && !last.includes("上次的结果")) seen.result ??= at;
      if (seen.result !== undefined && last.includes("保存文件即重跑")) {
        seen.allChecked ??= at;
        watch.stdin.write("q");
      }
    });
    watch.on("exit", () => {
      clearTimeout(timer);
      const { firstScreen, result, allChecked } = seen;
      if (firstScreen === undefined || result === undefined || allChecked === undefined)
        reject(new Error(`watch stopped early:\n${screen}`));
      else resolve({ firstScreen, result, allChecked });
    });
  });
}

async function timeStarts(starts: number): Promise<void> {
  const bare: number[] = [];
  for (let run = 0; run < starts; run++) {
    const startedAt = performance.now();
    spawnSync(process.execPath, ["--import", "tsx", "-e", ""]);
    bare.push(performance.now() - startedAt);
  }
  console.log(`| start | median (ms) | each (ms) | load |\n|---|---|---|---|`);
  const row = (what: string, times: number[]) =>
    console.log(`| ${what} | ${Math.round(middle(times))} | ${times.map(Math.round).join(" ")} | ${loadNow()} |`);
  row("bare `node --import tsx` (runs nothing)", bare);
  const stateDir = mkdtempSync(path.join(tmpdir(), "workbook-bench-state-"));
  try {
    const fresh = await timeStart(stateDir); // no state yet: as on a fresh clone; it saves one
    row("watch, first screen, fresh clone (no last known state)", [fresh.firstScreen]);
    const again: StartTimes[] = [];
    for (let run = 0; run < starts; run++) again.push(await timeStart(stateDir));
    row(
      "watch, first screen, with the last known state",
      again.map((times) => times.firstScreen),
    );
    row(
      "watch, the current step's result",
      [fresh, ...again].map((times) => times.result),
    );
    row(
      "watch, every step checked",
      [fresh, ...again].map((times) => times.allChecked),
    );
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
  console.log("");
}

async function inCopy(): Promise<void> {
  const runs = Number(option("--runs", "10"));
  const pool = option("--pool", "threads") === "forks" ? "forks" : "threads";
  await timeStarts(Number(option("--starts", "3"))); // first, while every learner file is the shipped stub
  console.log(
    `| step | state | save → result (${runs} saves, pool ${pool}) | save → type errors | the step's tests | each save → result (ms) | load |\n|---|---|---|---|---|---|---|`,
  );
  for (const id of benchSteps) {
    const step = findStep(id)!;
    // Earlier steps answered, so that this one is the current step and its tests can pass.
    for (const done of steps.slice(0, steps.indexOf(step))) writeFileSync(path.join(exercisesDir, done.file), answerAsLearnerFile(done));
    const red = await timeSaves(step, readFileSync(path.join(shippedStubsDir, step.file), "utf8"), runs, pool);
    console.log(`| ${id} | red (stub) | ${summary(red)} |`);
    const green = await timeSaves(step, answerAsLearnerFile(step), runs, pool);
    console.log(`| ${id} | green (answer) | ${summary(green)} |`);
  }
  console.log(`\nat the end: ${loadNow()}`);
}

if (process.argv.includes("--in-copy")) {
  await inCopy();
} else {
  const copy = copyWorkbook("workbook-bench-watch-");
  try {
    const args = [path.join(copy.root, "scripts/bench/bench-watch.ts"), "--in-copy", ...process.argv.slice(2)];
    const result = spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: copy.root, stdio: "inherit" });
    process.exitCode = result.status ?? 1;
  } finally {
    copy.remove();
  }
}
