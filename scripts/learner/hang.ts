// Which test hangs, and where in the learner's code: for `npm run watch`'s runner (watch-runner.ts),
// whose vitest runs the test files in worker threads of its own process. From that process's main
// thread, which stays free, Node's inspector (its NodeWorker domain) can talk to each worker even while
// it is busy: ask what vitest is running there, whether its event loop still turns, and pause it to
// read the call stack.
//
// Why this is needed: vitest's own per-test time limit is a timer, and a timer only fires when the
// worker's event loop gets a turn. A test spinning in `for (;;) {}` never gives it one; neither does an
// async loop whose every `await` is of a promise already settled (a retry loop whose call fails at
// once), because such awaits run as microtasks, which all go before the next timer. vitest cannot tell
// either, nor even report which test is running (it sends its reports between tasks). So: every second
// this asks each worker what it is running; a test that has run for SUSPECT_AFTER_MS and whose worker's
// event loop does not turn within TURN_WITHIN_MS has hung. Pausing it gives the frames, which are in the
// code vitest transformed: each is mapped back to the learner's .ts line through the script's source map.
import inspector from "node:inspector";
import { SourceMap, type SourceMapPayload } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "../steps.ts";

/** A frame as a stack shows one: the file from the workbook's root, 1-based line and column. */
export interface Frame {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** A test that hung: its full name as vitest gives it (empty while its file was still loading), its file, and the stack. */
export interface Hang {
  readonly test: string;
  readonly testFile: string;
  /** Innermost first, as a stack is written. */
  readonly frames: readonly Frame[];
}

/** How long a test runs before it is suspected. */
const SUSPECT_AFTER_MS = 5000;
/**
 * How long a suspect's event loop may go without a turn. A long synchronous stretch of a sound test (a
 * property's hundred runs) can take 2 s on a busy machine: the full npm test at load 15 once called one
 * hung at 2 s. A loop that never yields fails any bound; a wider one only costs seconds.
 */
const TURN_WITHIN_MS = 4000;

/** What vitest is running in a worker: `globalThis.__vitest_worker__.current`, the task its runner set last. */
const RUNNING = `(() => {
  const names = [];
  let task = globalThis.__vitest_worker__?.current;
  const file = task?.file?.filepath ?? task?.filepath;
  for (; task !== undefined && task.filepath === undefined; task = task.suite) names.unshift(task.name);
  return JSON.stringify({ names, file });
})()`;

interface Running {
  readonly names: readonly string[];
  readonly file?: string;
}

interface ScriptInfo {
  readonly url: string;
  readonly sourceMapURL?: string;
}

/** A worker thread's inspector, reached from this thread's session (NodeWorker.sendMessageToWorker). */
class WorkerSession {
  #nextId = 1;
  readonly #replies = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();
  readonly #events = new Map<string, (params: unknown) => void>();
  readonly scripts = new Map<string, ScriptInfo>();

  constructor(
    private readonly session: inspector.Session,
    readonly sessionId: string,
  ) {}

  /** Resolves with the method's result; undefined when no answer came within `withinMs`. */
  send<T>(method: string, params: object = {}, withinMs = 2000): Promise<T | undefined> {
    const id = this.#nextId++;
    const message = JSON.stringify({ id, method, params });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#replies.delete(id);
        resolve(undefined);
      }, withinMs);
      this.#replies.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply.result as T | undefined);
      });
      this.session.post("NodeWorker.sendMessageToWorker", { sessionId: this.sessionId, message });
    });
  }

  /** The next event `method` from the worker, or undefined after `withinMs`. */
  next<T>(method: string, withinMs: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#events.delete(method);
        resolve(undefined);
      }, withinMs);
      this.#events.set(method, (params) => {
        clearTimeout(timer);
        this.#events.delete(method);
        resolve(params as T);
      });
    });
  }

  received(message: { id?: number; method?: string; params?: unknown; result?: unknown; error?: unknown }): void {
    if (message.id !== undefined) {
      this.#replies.get(message.id)?.(message);
      this.#replies.delete(message.id);
    } else if (message.method === "Debugger.scriptParsed") {
      const { scriptId, url, sourceMapURL } = message.params as { scriptId: string } & ScriptInfo;
      // Only the workbook's own files can be the learner's or a test: node_modules and Node's own are left out.
      if (url.startsWith("file://") && !url.includes("/node_modules/"))
        this.scripts.set(scriptId, { url, ...(sourceMapURL ? { sourceMapURL } : {}) });
    } else if (message.method !== undefined) this.#events.get(message.method)?.(message.params);
  }
}

export class HangWatch {
  readonly #workers = new Map<string, WorkerSession>();
  /** When each worker was first seen running its current test (by what it runs). */
  readonly #since = new Map<string, { readonly key: string; readonly at: number }>();

  private constructor(private readonly session: inspector.Session) {}

  /** Starts listening for this process's worker threads (vitest's, when it runs with the threads pool). */
  static start(): HangWatch {
    const session = new inspector.Session();
    session.connect();
    const watch = new HangWatch(session);
    session.on("NodeWorker.attachedToWorker", ({ params }) => {
      // Node's own module-loader thread (tsx's hooks run there) is not vitest's: pausing it would stall every import.
      if (!params.workerInfo.url.startsWith("node:")) watch.#workers.set(params.sessionId, new WorkerSession(session, params.sessionId));
    });
    session.on("NodeWorker.detachedFromWorker", ({ params }) => {
      watch.#workers.delete(params.sessionId);
      watch.#since.delete(params.sessionId);
    });
    session.on("NodeWorker.receivedMessageFromWorker", ({ params }) => {
      watch.#workers.get(params.sessionId)?.received(JSON.parse(params.message));
    });
    session.post("NodeWorker.enable", { waitForDebuggerOnStart: false });
    return watch;
  }

  /**
   * Looks at every worker once: the first test that has run SUSPECT_AFTER_MS or more while its worker's
   * event loop does not turn, with the stack it is spinning in; undefined when none has hung.
   */
  async check(now = Date.now()): Promise<Hang | undefined> {
    for (const worker of this.#workers.values()) {
      const running = await this.#running(worker);
      if (running?.file === undefined) {
        this.#since.delete(worker.sessionId);
        continue;
      }
      const key = JSON.stringify(running);
      const since = this.#since.get(worker.sessionId);
      if (since?.key !== key) {
        this.#since.set(worker.sessionId, { key, at: now });
        continue;
      }
      if (now - since.at < SUSPECT_AFTER_MS) continue;
      const turned = await worker.send(
        "Runtime.evaluate",
        { expression: "new Promise((turn) => setImmediate(turn))", awaitPromise: true },
        TURN_WITHIN_MS,
      );
      if (turned !== undefined) continue; // slow, but its own time limit can still stop it
      return { test: running.names.join(" > "), testFile: running.file, frames: await this.#stackOf(worker) };
    }
    return undefined;
  }

  /**
   * `run`, or the first hang seen while it runs (checked every `everyMs`), whichever comes first. The
   * hung run is left as it is: only killing its process stops a thread that never yields.
   */
  async during<T>(run: Promise<T>, everyMs = 1000): Promise<{ readonly done: T } | { readonly hang: Hang }> {
    this.#since.clear();
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    const hung = new Promise<Hang>((resolve) => {
      const tick = () => {
        if (!over) timer = setTimeout(() => void this.check().then((hang) => (hang === undefined ? tick() : resolve(hang))), everyMs);
      };
      tick();
    });
    try {
      return await Promise.race([run.then((done) => ({ done })), hung.then((hang) => ({ hang }))]);
    } finally {
      over = true;
      clearTimeout(timer);
    }
  }

  /** The stack of the busiest worker (the first that pauses): what a test that timed out left running. */
  async busy(): Promise<readonly Frame[]> {
    for (const worker of this.#workers.values()) {
      const frames = await this.#stackOf(worker, 500);
      if (frames.length > 0) return frames;
    }
    return [];
  }

  async #running(worker: WorkerSession): Promise<Running | undefined> {
    const reply = await worker.send<{ result: { value?: unknown } }>("Runtime.evaluate", { expression: RUNNING, returnByValue: true });
    const value = reply?.result.value;
    return typeof value === "string" ? (JSON.parse(value) as Running) : undefined;
  }

  /** Pauses the worker, reads its frames (mapped to the .ts source), and lets it go on. */
  async #stackOf(worker: WorkerSession, withinMs = 2000): Promise<Frame[]> {
    await worker.send("Debugger.enable"); // reports every script parsed so far, with its source map
    const paused = worker.next<{ callFrames: readonly CallFrame[] }>("Debugger.paused", withinMs);
    await worker.send("Debugger.pause");
    const frames = (await paused)?.callFrames.map((frame) => sourceFrame(frame, worker.scripts)) ?? [];
    await worker.send("Debugger.resume");
    await worker.send("Debugger.disable");
    return frames.filter((frame) => frame !== undefined);
  }

  close(): void {
    this.session.disconnect();
  }
}

interface CallFrame {
  readonly location: { readonly scriptId: string; readonly lineNumber: number; readonly columnNumber: number };
}

/** A paused frame where the learner reads it: through the script's source map, from the workbook's root. */
function sourceFrame({ location }: CallFrame, scripts: ReadonlyMap<string, ScriptInfo>): Frame | undefined {
  const script = scripts.get(location.scriptId);
  if (script === undefined) return undefined;
  const file = path
    .relative(root, fileURLToPath(script.url.replace(/[?#].*$/, "")))
    .split(path.sep)
    .join("/");
  const map = inlineSourceMap(script.sourceMapURL);
  const entry = map?.findEntry(location.lineNumber, location.columnNumber);
  if (entry !== undefined && "originalLine" in entry) return { file, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
  return { file, line: location.lineNumber + 1, column: location.columnNumber + 1 };
}

/** vitest inlines each transformed file's source map as a data: URL. */
function inlineSourceMap(url: string | undefined): SourceMap | undefined {
  const data = /^data:application\/json(?:;charset=[^;,]+)?;base64,(.*)$/.exec(url ?? "")?.[1];
  return data === undefined ? undefined : new SourceMap(JSON.parse(Buffer.from(data, "base64").toString("utf8")) as SourceMapPayload);
}
