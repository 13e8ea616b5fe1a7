// The runner behind `npm run watch`: a StepRunner (one vitest instance) in a child process, so that
// a learner's endless loop can be stopped. Code stuck in `for (;;) {}` never yields, vitest cannot
// interrupt it and cannot even close; a child process can always be killed. A run that takes longer
// than `limitMs` is stopped, reported as the step's load error, and the child is started afresh.
// This file is both sides: the parent's WatchRunner, and the child (run with --child).
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FileOutcome } from "./step-runner.ts";
import type { Step } from "../steps.ts";

type ToChild =
  | { readonly kind: "run"; readonly id: number; readonly steps: readonly Step[] }
  | { readonly kind: "changed"; readonly file: string };
type ToParent =
  | { readonly kind: "ready" }
  | { readonly kind: "result"; readonly id: number; readonly outcomes: FileOutcome[] }
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

  #restart(): void {
    this.#child.kill("SIGKILL");
    [this.#child, this.#ready] = this.#spawn();
  }

  async close(): Promise<void> {
    this.#child.kill("SIGKILL"); // it holds nothing worth saving, and a stuck one would not close
  }
}

async function child(pool: "threads" | "forks"): Promise<void> {
  const { StepRunner } = await import("./step-runner.ts");
  const runner = await StepRunner.start({ pool });
  const send = (message: ToParent) => process.send?.(message);
  process.on("message", (message: ToChild) => {
    if (message.kind === "changed") runner.changed(message.file);
    else {
      runner.run(message.steps).then(
        (outcomes) => send({ kind: "result", id: message.id, outcomes }),
        (error: unknown) => send({ kind: "failed", id: message.id, message: String(error) }),
      );
    }
  });
  process.on("disconnect", () => process.exit(0)); // the watch ended
  send({ kind: "ready" });
}

if (process.argv[2] === "--child") await child(process.argv[3] === "forks" ? "forks" : "threads");
