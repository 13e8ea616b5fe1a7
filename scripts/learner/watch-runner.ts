// The runner behind `npm run watch`: a StepRunner (one vitest instance) in a child process, so that
// a learner's endless loop can be stopped. Code stuck in `for (;;) {}` never yields, vitest cannot
// interrupt it and cannot even close; a child process can always be killed. In the child, hang.ts
// watches vitest's worker threads: a test that hangs (its event loop never turns) is found within
// seconds, with the line of the learner's it spins in; a test that fails on its own time limit stops
// the run at once (the next tests would each wait out theirs). Either way the test is reported, and
// the child is started afresh. A run that takes longer than `limitMs` all the same is stopped too.
// The child also keeps a TypeScript language service warm (typecheck.ts), for each save's type errors.
// This file is both sides: the parent's WatchRunner, and the child (run with --child).
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Hang } from "./hang.ts";
import type { TypeProblem } from "./type-problems.ts";
import { learnerFrames, testFrame, type FileOutcome, type TestOutcome } from "./step-runner.ts";
import { exercisesDir, type Step } from "../steps.ts";

/** A test that never ended: how hang.ts found it, and vitest's own message when its time limit stopped it. */
type Stopped = Hang & { readonly timedOut?: string };

type ToChild =
  | { readonly kind: "run"; readonly id: number; readonly steps: readonly Step[] }
  | { readonly kind: "types"; readonly id: number; readonly files: readonly string[] }
  | { readonly kind: "changed"; readonly file: string };
type ToParent =
  | { readonly kind: "ready" }
  | { readonly kind: "typed"; readonly id: number; readonly problems: TypeProblem[][] }
  | { readonly kind: "result"; readonly id: number; readonly outcomes: FileOutcome[] }
  | { readonly kind: "hung"; readonly id: number; readonly hang: Stopped }
  | { readonly kind: "failed"; readonly id: number; readonly message: string };

export interface WatchRunnerOptions {
  readonly pool?: "threads" | "forks";
  /** A run taking longer than this is stopped (an endless loop, or code far too slow). */
  readonly limitMs?: number;
}

export class WatchRunner {
  #child: ChildProcess;
  #ready: Promise<void>;
  #nextId = 0;

  private constructor(private readonly options: WatchRunnerOptions) {
    [this.#child, this.#ready] = this.#spawn();
  }

  static async start(options: WatchRunnerOptions = {}): Promise<WatchRunner> {
    const runner = WatchRunner.spawn(options);
    await runner.#ready;
    return runner;
  }

  /** The runner at once, its child still starting: a run waits for it, and close() need not. */
  static spawn(options: WatchRunnerOptions = {}): WatchRunner {
    return new WatchRunner(options);
  }

  #spawn(): [ChildProcess, Promise<void>] {
    const child = fork(fileURLToPath(import.meta.url), ["--child", this.options.pool ?? "threads"], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.on("message", (message: ToParent) => message.kind === "ready" && resolve());
      child.once("exit", (code) => reject(new Error(`the test runner stopped before it was ready (exit code ${code})`)));
    });
    ready.catch(() => {}); // a child killed later rejects a promise nobody awaits any more
    return [child, ready];
  }

  /** The child's process id: a new one after a run is stopped. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  changed(file: string): void {
    this.#child.send({ kind: "changed", file } satisfies ToChild);
  }

  async run(list: readonly Step[], limitMs = this.options.limitMs ?? 30_000): Promise<FileOutcome[]> {
    await this.#ready;
    const id = this.#nextId++;
    const child = this.#child;
    return new Promise<FileOutcome[]>((resolve) => {
      const finish = (outcomes: FileOutcome[]) => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(outcomes);
      };
      const stopped = (why: string) => list.map((): FileOutcome => ({ exists: true, loadErrors: [why], tests: [] }));
      const onMessage = (message: ToParent) => {
        if (message.kind === "result" && message.id === id) finish(message.outcomes);
        if (message.kind === "failed" && message.id === id) finish(stopped(message.message));
        if (message.kind === "hung" && message.id === id) {
          this.#restart(); // the hung thread never yields: only its process can be stopped
          finish(hungOutcomes(list, message.hang));
        }
      };
      const onExit = () => finish(stopped("the test runner stopped unexpectedly; save again to re-run"));
      const timer = setTimeout(() => {
        this.#restart();
        finish(
          stopped(
            `测试运行超过 ${limitMs / 1000} 秒，已停止：有死循环，或者代码太慢？改好后保存即重跑。\n` +
              `The tests ran over ${limitMs / 1000} s and were stopped: an endless loop, or code far too slow? Save to re-run.`,
          ),
        );
      }, limitMs);
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send({ kind: "run", id, steps: list } satisfies ToChild);
    });
  }

  /**
   * The type errors of each file (the learner's), from the child's warm language service; undefined when
   * the child stopped meanwhile (a hang restarts it: the next save asks again).
   */
  async types(files: readonly string[]): Promise<TypeProblem[][] | undefined> {
    await this.#ready;
    const id = this.#nextId++;
    const child = this.#child;
    return new Promise((resolve) => {
      const onMessage = (message: ToParent) => {
        if (message.kind === "typed" && message.id === id) finish(message.problems);
      };
      const finish = (problems: TypeProblem[][] | undefined) => {
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(problems);
      };
      const onExit = () => finish(undefined);
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send({ kind: "types", id, files } satisfies ToChild);
    });
  }

  #restart(): void {
    this.#child.kill("SIGKILL");
    [this.#child, this.#ready] = this.#spawn();
  }

  async close(): Promise<void> {
    this.#child.kill("SIGKILL"); // it holds nothing worth saving, and a stuck one would not close
  }
}

/**
 * What a run stopped by a hung test hands back: for its step, that test, told Chinese first with why it
 * was stopped and where; for any other step of the run, that the run stopped.
 */
export function hungOutcomes(list: readonly Step[], hang: Stopped): FileOutcome[] {
  const hungStep = list.find((step) => path.join(exercisesDir, step.test) === path.resolve(hang.testFile));
  const at = learnerFrames(hang.frames);
  const testAt = at === undefined ? testFrame(hang.frames) : undefined;
  const test: TestOutcome = {
    name: hang.test === "" ? `${path.basename(hang.testFile)}（加载测试文件时 / while loading the test file）` : hang.test,
    state: "failed",
    errors: [hangMessage(hang)],
    ...(at === undefined ? {} : { at }),
    ...(testAt === undefined ? {} : { testAt }),
  };
  const why = `运行停止了：练习步骤 ${hungStep?.id ?? "?"} 的一个测试卡住了，保存即重跑 / the run stopped: a test of step ${hungStep?.id ?? "?"} hung. Save to re-run.`;
  return list.map((step) =>
    step === hungStep ? { exists: true, loadErrors: [], tests: [], hung: test } : { exists: true, loadErrors: [why], tests: [] },
  );
}

function hangMessage({ timedOut }: Stopped): string {
  const seconds = Number(/(\d+)ms/.exec(timedOut ?? "")?.[1] ?? Number.NaN) / 1000;
  if (timedOut !== undefined) {
    return (
      `这个测试超过了自己的时限（${seconds} 秒），已停止，其余测试没有运行：它在等一个一直没有完成的 Promise，或者一个一直在重试的循环。改好后保存即重跑。\n` +
      `The test ran past its own time limit (${seconds} s) and was stopped, and the tests after it did not run: it waits for a promise that never settles, or for a loop that keeps retrying. Save to re-run.`
    );
  }
  return (
    "这个测试运行了几秒还没结束，期间事件循环一次也没轮到，已停止，其余测试没有运行。多半是死循环：同步的 `for (;;)`，" +
    "或者一个只 await 已经完成的 Promise 的重试循环（这样的 await 排在微任务里，计时器一直轮不到，所以测试自己的时限也停不下它）。改好后保存即重跑。\n" +
    "The test ran for seconds without ending and its event loop never got a turn, so it was stopped, and the tests after it did not run. " +
    "Most likely an endless loop: a synchronous `for (;;)`, or a retry loop that only awaits promises already settled " +
    "(such awaits queue as microtasks, so no timer ever runs: not even the test's own time limit). Save to re-run."
  );
}

async function child(pool: "threads" | "forks"): Promise<void> {
  const { StepRunner } = await import("./step-runner.ts");
  const { HangWatch } = await import("./hang.ts");
  const { TypeChecker } = await import("./typecheck.ts");
  const { learnerFiles } = await import("../steps.ts");
  let types: InstanceType<typeof TypeChecker> | undefined; // made at the first question: it takes a second or two
  // vitest's threads run in this process, where the inspector can reach them (forks are other processes).
  const hangs = pool === "threads" ? HangWatch.start() : undefined;
  const send = (message: ToParent) => process.send?.(message);
  let running: number | undefined;
  const runner = await StepRunner.start({
    pool,
    // Stop at the first test over its time limit; what it left running (a retry loop) shows where.
    onTimedOut: ({ name, file, message }) => {
      const id = running;
      if (id === undefined) return;
      running = undefined;
      void (hangs?.busy() ?? Promise.resolve([])).then((frames) =>
        send({ kind: "hung", id, hang: { test: name, testFile: file, frames, timedOut: message } }),
      );
    },
  });
  process.on("message", (message: ToChild) => {
    if (message.kind === "changed") {
      runner.changed(message.file);
      return;
    }
    if (message.kind === "types") {
      types ??= new TypeChecker(learnerFiles());
      const checker = types;
      send({ kind: "typed", id: message.id, problems: message.files.map((file) => checker.check(file)) });
      return;
    }
    const { id } = message;
    running = id;
    const run = runner.run(message.steps);
    (hangs === undefined ? run.then((done) => ({ done })) : hangs.during(run)).then(
      (ended) => {
        if (running !== id) return; // told already: a test timed out
        running = undefined;
        send("hang" in ended ? { kind: "hung", id, hang: ended.hang } : { kind: "result", id, outcomes: ended.done });
      },
      (error: unknown) => send({ kind: "failed", id, message: String(error) }),
    );
  });
  process.on("disconnect", () => process.exit(0)); // the watch ended
  send({ kind: "ready" });
}

if (process.argv[2] === "--child") await child(process.argv[3] === "forks" ? "forks" : "threads");
