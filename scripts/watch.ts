// `npm run watch`: the focused loop. It shows only the current step (the first not passing, in the
// learner's order) and re-runs only that step's tests each time a file in exercises/ is saved: the
// first failure's message, where it was thrown, and a progress bar over all steps (drawn by
// watch-screen.ts). When the step turns green it says so and moves on. Keys: h hint, l list, q quit,
// d the demo on your own code (npm run demo -- --mine, scripts/mine.ts).
// One vitest instance stays open the whole time, in a child process that can be killed when a test
// never ends (scripts/watch-runner.ts), so a re-run costs the tests themselves plus a few hundred
// milliseconds (measured by `npm run bench:watch`, see README).
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { hintCommand, hintStateFile } from "./hint.ts";
import { isMain } from "./learner.ts";
import { classify, nextStep, type StepReport, type StepStatus } from "./progress.ts";
import type { FileOutcome } from "./step-runner.ts";
import { exercisesDir, steps, type Step } from "./steps.ts";
import { demoSteps, recordRuns, runDemoOnYourFiles } from "./mine.ts";
import { renderScreen, type DemoRun, type Screen } from "./watch-screen.ts";
import { WatchRunner } from "./watch-runner.ts";

/** What the loop needs from a test runner: the real one is WatchRunner; tests pass a fake. */
export interface Runner {
  run(list: readonly Step[]): Promise<FileOutcome[]>;
  changed(file: string): void;
  close(): Promise<void>;
}

export interface LoopOptions {
  readonly runner: Runner;
  readonly draw: (screen: string) => void;
  readonly list?: readonly Step[];
  readonly hint?: (step: Step) => string;
  /** Called after every run with how long it took from the save (for npm run bench:watch). */
  readonly onResult?: (reports: readonly StepReport[], tookMs: number) => void;
  readonly now?: () => number;
  /** Key d: the demo on the learner's finished files (scripts/mine.ts); tests pass a fake. */
  readonly demo?: () => Promise<DemoRun>;
}

/** The loop's state and moves, apart from files, keys and the terminal so that tests can drive it. */
export class WatchLoop {
  #reports: StepReport[] = [];
  #screen: Omit<Screen, "reports"> = {};
  /** Runs happen one after another: the vitest instance runs one set of files at a time. */
  #queue: Promise<void> = Promise.resolve();
  #saveQueued = false;
  #savedAt: number | undefined;

  constructor(private readonly options: LoopOptions) {}

  get reports(): readonly StepReport[] {
    return this.#reports;
  }

  /**
   * Checks the steps in order up to the first one not passing and shows it; the steps after it are
   * checked next, in the background, for the progress bar (a save waits for that one run).
   */
  async start(): Promise<void> {
    const list = this.options.list ?? steps;
    this.#reports = list.map((step) => ({ step, status: { kind: "unchecked" } }));
    this.options.draw(pc.dim("正在检查练习步骤 / checking the steps …"));
    for (const { step } of this.#reports) {
      const [outcome] = await this.options.runner.run([step]);
      this.#set(step, classify(outcome!, step.id));
      if (this.#statusOf(step)?.kind !== "passed") break;
    }
    const unchecked = this.#reports.filter((report) => report.status.kind === "unchecked").map((report) => report.step);
    this.#screen = { checking: unchecked.length > 0 };
    this.#draw();
    if (unchecked.length > 0) {
      void this.#enqueue(async () => {
        const outcomes = await this.options.runner.run(unchecked);
        for (const [index, step] of unchecked.entries()) this.#set(step, classify(outcomes[index]!, step.id));
        this.#screen = { ...this.#screen, checking: false };
        this.#draw();
      });
    }
  }

  /** Waits for every run started so far (tests use it). */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** A file was saved: re-run the current step, after the run in progress; saves meanwhile make one run. */
  saved(file: string): Promise<void> {
    this.options.runner.changed(file);
    this.#savedAt ??= this.#now();
    if (this.#saveQueued) return this.#queue;
    this.#saveQueued = true;
    return this.#enqueue(async () => {
      this.#saveQueued = false;
      const savedAt = this.#savedAt ?? this.#now();
      this.#savedAt = undefined;
      this.#screen = { ...this.#screen, running: true };
      this.#draw();
      const passedNow = await this.#runCurrent();
      const tookMs = this.#now() - savedAt;
      // A new step drops the last one's hint; the list gives way to the result.
      const hint = passedNow.length > 0 ? undefined : this.#screen.hint;
      this.#screen = { ...this.#screen, running: false, showList: false, tookMs, passedNow, hint, demo: undefined };
      this.#draw();
      this.options.onResult?.(this.#reports, tookMs);
    });
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue.then(task).catch((error: unknown) => {
      this.options.draw(pc.red(`出错了 / something went wrong: ${String(error)}\n保存文件再试一次 / save a file to try again`));
    });
    return this.#queue;
  }

  /** Runs the current step; while it passes, moves on and runs the next. Returns the steps that turned green. */
  async #runCurrent(): Promise<Step[]> {
    const passedNow: Step[] = [];
    const all = nextStep(this.#reports) === undefined; // everything passed: a save re-checks them all
    const targets = all ? this.#reports.map((report) => report.step) : [nextStep(this.#reports)!.step];
    for (let list = targets; list.length > 0; ) {
      const outcomes = await this.options.runner.run(list);
      for (const [index, step] of list.entries()) this.#set(step, classify(outcomes[index]!, step.id));
      if (all) break;
      const [step] = list;
      if (this.#statusOf(step!)?.kind !== "passed") break;
      passedNow.push(step!);
      const next = nextStep(this.#reports);
      list = next === undefined ? [] : [next.step];
    }
    return passedNow;
  }

  #statusOf(step: Step): StepStatus | undefined {
    return this.#reports.find((report) => report.step === step)?.status;
  }

  #set(step: Step, status: StepStatus): void {
    this.#reports = this.#reports.map((report) => (report.step === step ? { step, status } : report));
  }

  /** A key press; returns false for quit. */
  key(key: string): boolean {
    if (key === "q" || key === "\u0003") return false;
    if (key === "l") this.#screen = { ...this.#screen, showList: this.#screen.showList !== true };
    if (key === "d") this.#runDemo();
    if (key === "h") {
      const current = nextStep(this.#reports);
      if (current !== undefined)
        this.#screen = { ...this.#screen, showList: false, hint: (this.options.hint ?? defaultHint)(current.step) };
    }
    this.#draw();
    return true;
  }

  /** Key d: once a step the demo uses is green, run the demo on your code and show what it printed. */
  #runDemo(): void {
    const green = this.#reports.some((report) => report.status.kind === "passed" && demoSteps().includes(report.step));
    if (!green) {
      this.#screen = { ...this.#screen, showList: false, demo: { waiting: true } };
      return;
    }
    this.#screen = { ...this.#screen, showList: false, hint: undefined, demo: { running: true } };
    void this.#enqueue(async () => {
      const run = await (this.options.demo ?? runDemoOnYourFiles)();
      this.#screen = { ...this.#screen, demo: run };
      this.#draw();
    });
  }

  #draw(): void {
    this.options.draw(renderScreen({ reports: this.#reports, ...this.#screen }));
  }

  #now(): number {
    return (this.options.now ?? performance.now.bind(performance))();
  }
}

/** One more hint each press, remembered like `npm run hint` does. */
function defaultHint(step: Step): string {
  return hintCommand([step.id], { stateFile: hintStateFile(), inWatch: true });
}

/** Saves in exercises/ (not the backups reset keeps in .backup/) as absolute paths. */
export function watchExercises(onSave: (file: string) => void, dir = exercisesDir): FSWatcher {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  return watch(dir, { recursive: true }, (_event, name) => {
    if (name === null || !name.endsWith(".ts") || name.split(/[\\/]/).some((part) => part.startsWith("."))) return;
    pending.add(path.join(dir, name));
    // Editors often write a file in two or three events; 25 ms gathers them into one run.
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = pending;
      pending = new Set();
      for (const file of files) onSave(file);
    }, 25);
  });
}

async function main(): Promise<void> {
  const pool = process.env.WORKBOOK_WATCH_POOL === "forks" ? "forks" : "threads";
  // Each run's verdicts are kept for `npm run demo -- --mine`, which then need not run them again.
  const runner = recordRuns(await WatchRunner.start({ pool }), classify);
  const clear = process.stdout.isTTY ? "\x1b[H\x1b[2J\x1b[3J" : "\n";
  const loop = new WatchLoop({ runner, draw: (screen) => process.stdout.write(`${clear}${screen}\n`) });
  await loop.start();
  const watcher = watchExercises((file) => void loop.saved(file));
  // Works even while a run is stuck: the runner's child process is killed, not asked to finish.
  const quit = async () => {
    watcher.close();
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.pause();
    await runner.close();
    process.stdout.write("\n再见 / bye. 进度 / progress: npm run progress\n");
    process.exit(0);
  };
  process.on("SIGINT", () => void quit());
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (data: string) => {
    for (const key of data) if (!loop.key(key)) void quit();
  });
}

if (isMain(import.meta.url)) await main();
