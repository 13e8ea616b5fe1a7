// `npm run watch`: the focused loop. It shows only the current step (the first not passing, in the
// learner's order, or the one named: `npm run watch -- 05.6`) and re-runs that step's tests each
// time a file in exercises/ is saved: the first failure's message, where it was thrown, and a
// progress bar over all steps (drawn by watch-screen.ts). When the step turns green it says so and
// moves on; a step asked for by name (or picked in the list) stays on screen until the learner moves.
// A save also re-runs, right after, every other step whose tests import the saved file, and says which
// it broke. Keys: h hint, l list (↑/↓ and Enter pick a step), n next step in order, q quit,
// d the demo on your own code (npm run demo -- --mine, scripts/learner/mine.ts).
// One vitest instance stays open the whole time, in a child process that can be killed when a test
// never ends (scripts/learner/watch-runner.ts), so a re-run costs the tests themselves plus a few hundred
// milliseconds. Starting that instance takes seconds, so the first screen does not wait for it: it
// shows each step's last known state (kept in .workbook/watch-state.json) and updates as the tests
// answer (both measured by `npm run bench:watch`, see README).
import { readdirSync, readFileSync, watch } from "node:fs";
import path from "node:path";
import { emitKeypressEvents, type Key } from "node:readline";
import pc from "picocolors";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { hintCommand, hintStateFile } from "./hint.ts";
import { isMain, readArgs, requireStep, runMain } from "../command.ts";
import { filesReached } from "./imports.ts";
import { classify, nextStep, ranStatus, type StepReport, type StepStatus } from "./progress.ts";
import type { FileOutcome } from "./step-runner.ts";
import { readStateFile, stateFile, writeStateFile } from "./state-file.ts";
import { exercisesDir, steps, type Step } from "../steps.ts";
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
  /** The step asked for by name (`npm run watch -- 05.6`): shown first, and it stays until the learner moves. */
  readonly focus?: Step;
  /**
   * The steps whose tests import any of `files`, directly or not, re-run after the current one on a
   * save: `npm run watch` passes stepsImporting; without it a save re-runs the current step alone.
   */
  readonly dependents?: (files: readonly string[], list: readonly Step[]) => readonly Step[];
  /** Each step's state when the loop last ran (by step id): shown at once, until its tests answer again. */
  readonly lastKnown?: Readonly<Record<string, StepStatus>>;
  /** Called with every step's state after each run, to be shown at the next start. */
  readonly remember?: (states: Readonly<Record<string, StepStatus>>) => void;
  /** Called after every run with how long it took from the save (for npm run bench:watch). */
  readonly onResult?: (reports: readonly StepReport[], tookMs: number) => void;
  readonly now?: () => number;
  /** Key d: the demo on the learner's finished files (scripts/learner/mine.ts); tests pass a fake. */
  readonly demo?: () => Promise<DemoRun>;
}

/** The loop's state and moves, apart from files, keys and the terminal so that tests can drive it. */
export class WatchLoop {
  #reports: StepReport[] = [];
  #screen: Omit<Screen, "reports"> = {};
  /** A step asked for by name or picked in the list: on screen, passing or not, until the learner moves. */
  #focus: Step | undefined;
  /** Steps not checked since the start, or since a save of a file their tests import. */
  #stale = new Set<Step>();
  /** Each step a save touched, with its state's kind before: its next run says whether it turned green or broke. */
  #beforeSave = new Map<Step, StepStatus["kind"]>();
  /** Runs happen one after another: the vitest instance runs one set of files at a time. */
  #queue: Promise<void> = Promise.resolve();
  #saved = new Set<string>();
  #saveQueued = false;
  #checkQueued = false;
  #savedAt: number | undefined;

  constructor(private readonly options: LoopOptions) {
    this.#focus = options.focus;
  }

  get reports(): readonly StepReport[] {
    return this.#reports;
  }

  /**
   * Shows the current step at once, with each step's last known state; then checks the focused step
   * or the steps in order up to the first one not passing, and shows it; the other steps are checked
   * next, in the background, for the progress bar and the list (a save waits for that one run).
   */
  async start(): Promise<void> {
    const list = this.options.list ?? steps;
    const known = this.options.lastKnown ?? {};
    this.#reports = list.map((step) => ({ step, status: known[step.id] ?? { kind: "unchecked" } }));
    this.#stale = new Set(list);
    this.#screen = { checking: true };
    this.#draw();
    // Queued like every run, so that a save made meanwhile waits for it.
    await this.#enqueue(async () => {
      const first = this.#focus === undefined ? list : [this.#focus];
      for (const step of first) {
        await this.#run([step]);
        if (this.#statusOf(step)?.kind !== "passed") break;
      }
      this.#screen = { ...this.#screen, checking: this.#stale.size > 0 };
      this.#draw();
    });
    this.#checkStale();
  }

  /**
   * Checks, in the background, every stale step in the learner's order, one step a run: each run gets
   * the runner's whole time limit (six steps' tests at once can pass it on a loaded machine), and a
   * save made meanwhile goes before the next. Redraws with what a save changed among them.
   */
  #checkStale(): void {
    if (this.#checkQueued || this.#stale.size === 0) return;
    this.#checkQueued = true;
    void this.#enqueue(async () => {
      this.#checkQueued = false;
      const step = this.#reports.find((report) => this.#stale.has(report.step))?.step;
      if (step !== undefined) await this.#run([step]);
      const changed = this.#changed(step === undefined ? [] : [step]);
      const passedNow = [...(this.#screen.passedNow ?? []), ...changed.passedNow];
      const brokenNow = [...(this.#screen.brokenNow ?? []), ...changed.brokenNow];
      this.#screen = { ...this.#screen, checking: this.#stale.size > 0, passedNow, brokenNow };
      this.#draw();
      this.#checkStale();
    });
  }

  /** Waits for every run started so far, and those they started (tests use it). */
  async settled(): Promise<void> {
    for (let queue: Promise<void> | undefined; queue !== this.#queue; ) {
      queue = this.#queue;
      await queue;
    }
  }

  /**
   * A file was saved: after the run in progress, re-run the current step and show it; then, in the
   * background, every step whose tests import the file (a change made for one step can break another:
   * 05.2 and 05.4 share session.ts), and say which turned green and which broke. Saves meanwhile make one run.
   */
  saved(file: string): Promise<void> {
    this.options.runner.changed(file);
    this.#saved.add(file);
    this.#savedAt ??= this.#now();
    if (this.#saveQueued) return this.#queue;
    this.#saveQueued = true;
    return this.#enqueue(async () => {
      this.#saveQueued = false;
      const files = [...this.#saved];
      this.#saved.clear();
      const savedAt = this.#savedAt ?? this.#now();
      this.#savedAt = undefined;
      this.#screen = { ...this.#screen, running: true };
      this.#draw();
      const before = new Map(this.#reports.map((report) => [report.step, report.status.kind]));
      const shown = this.#current()?.step;
      const ran = await this.#runCurrent(before);
      const { passedNow, brokenNow } = this.#changed(ran);
      const tookMs = this.#now() - savedAt;
      // A new step on screen drops the last one's hint; the list gives way to the result.
      const hint = this.#current()?.step === shown ? this.#screen.hint : undefined;
      this.#screen = { ...this.#screen, running: false, cursor: undefined, tookMs, passedNow, brokenNow, hint, demo: undefined };
      this.#draw();
      this.options.onResult?.(this.#reports, tookMs);
      // Then the other steps whose tests import a saved file: worked out after the result is on screen.
      const touched = this.#dependents(files).filter((step) => !ran.includes(step));
      this.#noteBefore(touched, before);
      for (const step of touched) this.#stale.add(step);
      if (this.#stale.size === 0) return;
      this.#screen = { ...this.#screen, checking: true };
      this.#draw();
      this.#checkStale();
    });
  }

  /** The steps whose tests import `files`; when that cannot be worked out, every step. */
  #dependents(files: readonly string[]): readonly Step[] {
    const all = this.#reports.map((report) => report.step);
    try {
      return this.options.dependents?.(files, all) ?? [];
    } catch {
      return all;
    }
  }

  /**
   * Runs the current step (every step once all pass). A step asked for by name stays; otherwise,
   * while the current step passes, the next is run and shown. Returns the steps run.
   */
  async #runCurrent(before: ReadonlyMap<Step, StepStatus["kind"]>): Promise<Step[]> {
    const ran: Step[] = [];
    const current = this.#current()?.step;
    for (let list = current === undefined ? this.#reports.map((report) => report.step) : [current]; list.length > 0; ) {
      this.#noteBefore(list, before);
      await this.#run(list);
      ran.push(...list);
      if (this.#focus !== undefined) break;
      const next = this.#current()?.step;
      list = next === undefined || ran.includes(next) ? [] : [next];
    }
    return ran;
  }

  /** Keeps each step's state before a save's run of it (the first save's, when saves come faster than runs). */
  #noteBefore(list: readonly Step[], before: ReadonlyMap<Step, StepStatus["kind"]>): void {
    for (const step of list) if (!this.#beforeSave.has(step)) this.#beforeSave.set(step, before.get(step) ?? "unchecked");
  }

  /** Of `ran`, the steps a save turned green and those it broke: each said once, after its first run since. */
  #changed(ran: readonly Step[]): { passedNow: Step[]; brokenNow: Step[] } {
    const passedNow: Step[] = [];
    const brokenNow: Step[] = [];
    for (const step of ran) {
      const before = this.#beforeSave.get(step);
      this.#beforeSave.delete(step);
      const passes = this.#statusOf(step)?.kind === "passed";
      if (passes && before !== undefined && before !== "passed" && before !== "unchecked") passedNow.push(step);
      if (!passes && before === "passed") brokenNow.push(step);
    }
    return { passedNow, brokenNow };
  }

  /** Runs the tests of `list` at once and keeps what each step's run found. */
  async #run(list: readonly Step[]): Promise<void> {
    const outcomes = await this.options.runner.run(list);
    for (const [index, step] of list.entries()) {
      const outcome = outcomes[index];
      this.#set(step, outcome === undefined ? { kind: "broken", message: "no result from the test runner" } : classify(outcome, step.id));
    }
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue
      .then(task)
      .then(() => this.#remember())
      .catch((error: unknown) => {
        this.options.draw(pc.red(`出错了 / something went wrong: ${String(error)}\n保存文件再试一次 / save a file to try again`));
      });
    return this.#queue;
  }

  /** The step on screen: the one asked for by name, whatever its state; else the first not passing. */
  #current(): StepReport | undefined {
    const focused = this.#reports.find((report) => report.step === this.#focus);
    return focused ?? nextStep(this.#reports);
  }

  #statusOf(step: Step): StepStatus | undefined {
    return this.#reports.find((report) => report.step === step)?.status;
  }

  #set(step: Step, status: StepStatus): void {
    this.#reports = this.#reports.map((report) => (report.step === step ? { step, status } : report));
    this.#stale.delete(step);
  }

  #remember(): void {
    const checked = this.#reports.filter((report) => report.status.kind !== "unchecked");
    this.options.remember?.(Object.fromEntries(checked.map((report) => [report.step.id, report.status])));
  }

  /** A key press, as onKeys names it (`up`, `return`, `q`); returns false for quit. */
  key(key: string): boolean {
    if (key === "q" || key === "ctrl-c") return false;
    if (this.#screen.cursor === undefined || !this.#pickKey(key, this.#screen.cursor)) {
      if (key === "l") this.#openList();
      if (key === "n" && this.#focus !== undefined) this.#show(undefined);
      if (key === "d") this.#runDemo();
      if (key === "h") {
        const current = this.#current();
        if (current !== undefined)
          this.#screen = { ...this.#screen, cursor: undefined, hint: (this.options.hint ?? defaultHint)(current.step) };
      }
    }
    this.#draw();
    return true;
  }

  /** Key l: the list, with the cursor on the step on screen. */
  #openList(): void {
    const on = this.#current()?.step ?? this.#reports[0]?.step;
    this.#screen = { ...this.#screen, cursor: on?.id };
    this.#checkStale();
  }

  /** The keys of the open list: ↑/↓ (or k/j) move the cursor, Enter shows that step, l or Esc close it. */
  #pickKey(key: string, cursor: string): boolean {
    const ids = this.#reports.map((report) => report.step.id);
    const at = ids.indexOf(cursor);
    // ↑ and k go up a step, ↓ and j down (as in vim and less).
    const move = key === "up" || key === "k" ? -1 : key === "down" || key === "j" ? 1 : 0;
    if (move !== 0) {
      this.#screen = { ...this.#screen, cursor: ids[Math.min(ids.length - 1, Math.max(0, at + move))] };
    } else if (key === "return" || key === "enter") {
      this.#show(this.#reports[at]?.step);
    } else if (key === "l" || key === "escape") {
      this.#screen = { ...this.#screen, cursor: undefined };
    } else return false;
    return true;
  }

  /** Shows `step` until the learner moves (undefined: the first not passing, in order), with its own hints. */
  #show(step: Step | undefined): void {
    const before = this.#current()?.step;
    this.#focus = step;
    const moved = this.#current()?.step !== before;
    this.#screen = { ...this.#screen, cursor: undefined, ...(moved ? { hint: undefined, passedNow: [], brokenNow: [] } : {}) };
  }

  /** Key d: once a step the demo uses is green, run the demo on your code and show what it printed. */
  #runDemo(): void {
    const green = this.#reports.some((report) => report.status.kind === "passed" && demoSteps().includes(report.step));
    if (!green) {
      this.#screen = { ...this.#screen, cursor: undefined, demo: { waiting: true } };
      return;
    }
    this.#screen = { ...this.#screen, cursor: undefined, hint: undefined, demo: { running: true } };
    void this.#enqueue(async () => {
      const run = await (this.options.demo ?? runDemoOnYourFiles)();
      this.#screen = { ...this.#screen, demo: run };
      this.#draw();
    });
  }

  #draw(): void {
    const lastKnown = [...this.#stale].filter((step) => this.#statusOf(step)?.kind !== "unchecked").map((step) => step.id);
    const focused = this.#focus !== undefined;
    this.options.draw(renderScreen({ reports: this.#reports, ...this.#screen, current: this.#current(), focused, lastKnown }));
  }

  #now(): number {
    return (this.options.now ?? performance.now.bind(performance))();
  }
}

/**
 * The steps of `list` whose test file imports one of `files`, directly or through other files of the
 * exercise folder, as the files stand now (a learner may add an import). Each file is read once a call.
 */
export function stepsImporting(files: readonly string[], list: readonly Step[], dir = exercisesDir): Step[] {
  const texts = new Map<string, string>();
  const read = (file: string) => {
    const text = texts.get(file) ?? readFileSync(file, "utf8");
    texts.set(file, text);
    return text;
  };
  return list.filter((step) => {
    const reached = filesReached(path.join(dir, step.test), dir, read);
    return files.some((file) => reached.has(path.resolve(file)));
  });
}

/**
 * Calls `onKey` with each key pressed on `input`, named as Node's readline names it (`up`, `down`,
 * `return`, `escape`, a letter) whatever sequence the terminal sends (ESC [ A and ESC O A are both
 * `up`); Ctrl-C, which raw mode delivers as a key, is `ctrl-c`.
 */
export function onKeys(input: NodeJS.ReadableStream, onKey: (key: string) => void): void {
  emitKeypressEvents(input);
  input.on("keypress", (_text: string | undefined, key: Key) => {
    onKey(key.ctrl === true && key.name === "c" ? "ctrl-c" : (key.name ?? key.sequence ?? ""));
  });
}

/** One more hint each press, remembered like `npm run hint` does. */
function defaultHint(step: Step): string {
  return hintCommand([step.id], { stateFile: hintStateFile(), inWatch: true });
}

/**
 * Saves in exercises/ (not the backups reset keeps in .backup/) as absolute paths, however the file
 * was written. Each folder gets a watch of its own rather than one recursive watch: on Linux, Node
 * 20's recursive watch follows each file, so once a file is replaced by a rename (an editor's safe
 * save, `sed -i`, `git checkout`, `npm run reset`) no later save of it is seen. A folder's own watch
 * hears every name in it, old file or new.
 */
export function watchExercises(onSave: (file: string) => void, dir = exercisesDir): { close(): void } {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watchers = foldersIn(dir).map((folder) =>
    watch(folder, (_event, name) => {
      if (name === null || !name.endsWith(".ts") || name.startsWith(".")) return;
      pending.add(path.join(folder, name));
      // Editors often write a file in two or three events; 25 ms gathers them into one run.
      clearTimeout(timer);
      timer = setTimeout(() => {
        const files = pending;
        pending = new Set();
        for (const file of files) onSave(file);
      }, 25);
    }),
  );
  return {
    close: () => {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** `dir` and every folder under it, hidden ones (.backup) left out. */
function foldersIn(dir: string): string[] {
  const inside = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith("."));
  return [dir, ...inside.flatMap((entry) => foldersIn(path.join(dir, entry.name)))];
}

const COMMAND = {
  usage: ["npm run watch", "npm run watch -- <练习步骤 / step>   先看这个练习步骤，例如 05.6 / show this step first, e.g. 05.6"],
  flags: {},
  positionals: true,
} as const satisfies Command<Flags>;

/** The step named on the command line, if any (--help and a wrong flag are a FlagsAnswer, for runMain). */
export function readWatchArgs(argv: readonly string[], list: readonly Step[] = steps): { focus: Step | undefined } {
  const { id } = readArgs(argv, COMMAND);
  return { focus: id === undefined ? undefined : requireStep(id, "watch", list) };
}

/** Where the loop keeps each step's last known state: beside the hints, in .workbook/ (ignored by git). */
export function watchStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return stateFile("watch-state.json", env);
}

/**
 * The states saved last time, by step id. A missing or unreadable file means none, and an entry not
 * in the shape the screen draws (an older workbook's, say) is dropped: they are only a head start.
 */
export function readWatchState(file: string): Record<string, StepStatus> {
  const state: Record<string, StepStatus> = {};
  for (const [id, saved] of Object.entries(readStateFile(file))) {
    const read = ranStatus.safeParse(saved);
    if (read.success) state[id] = read.data;
  }
  return state;
}

function writeWatchState(file: string, states: Readonly<Record<string, StepStatus>>): void {
  try {
    writeStateFile(file, states);
  } catch {
    // Only a head start for the next first screen: the loop works without it.
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const args = readWatchArgs(argv);
  const pool = process.env.WORKBOOK_WATCH_POOL === "forks" ? "forks" : "threads";
  // Not awaited: vitest starts in its child process while the first screen is already up. Each run's
  // verdicts are kept for `npm run demo -- --mine`, which then need not run them again.
  const runner = recordRuns(WatchRunner.spawn({ pool }), classify);
  const clear = process.stdout.isTTY ? "\x1b[H\x1b[2J\x1b[3J" : "\n";
  const stateFile = watchStateFile();
  const loop = new WatchLoop({
    runner,
    focus: args.focus,
    dependents: stepsImporting,
    lastKnown: readWatchState(stateFile),
    remember: (states) => writeWatchState(stateFile, states),
    draw: (screen) => process.stdout.write(`${clear}${screen}\n`),
  });
  const started = loop.start();
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
  onKeys(process.stdin, (key) => {
    if (!loop.key(key)) void quit();
  });
  await started;
}

if (isMain(import.meta.url)) await runMain(() => main(process.argv.slice(2)));
