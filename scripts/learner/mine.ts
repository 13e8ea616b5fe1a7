// `--mine` for the demo and the view: run the chapter with each learner file whose steps are done
// standing in for the answer. The swap happens at module resolution (scripts/learner/mine-hook.ts, registered
// by `startMine` before any chapter file loads), from the mapping the vitest plugin that swaps files (swapFiles) uses:
// `answerFiles()` in the step manifest, learner file → answer. For a file whose every step is done the
// hook turns that mapping round (an import of the answer loads the learner's file); for the others it
// keeps it (an import of the learner's file, from another learner file, loads the answer).
//
// "Done" means the step's own tests pass against the learner's files now on disk (those that wait for
// another step's stub aside: that step's answer runs). A file byte-identical to its shipped stub is not
// done, with nothing to run. Otherwise the results kept by the last run of those tests are used while the
// files they load are unchanged (scripts/learner/results.ts), and the tests run only when they changed
// (in a child process that a stuck loop cannot hold up, as in `npm run watch`).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { tellYourThrow, YOUR_FILES, type NotDone, type YourFile } from "../../chapters/05-session-log/demo/mine.ts";
import type { HookData } from "./mine-hook.ts";
import type { StepStatus } from "./status.ts";
import { fingerprint, heldResults, keepResults, resultsFile, type StepTests } from "./results.ts";
import { answerFiles, chapterDir, exercisesDir, root, shippedStubs, steps, type Step } from "../steps.ts";

/** The steps `--mine` can swap: those whose answer is the chapter's (the book's 练习 are not in the demo). */
export const demoSteps = (): Step[] => steps.filter((step) => isInside(chapterDir, step.answerDir));

const isInside = (folder: string, file: string) => !path.relative(folder, file).startsWith("..");

/** A step's state as `--mine` needs it: done, or why not. */
export type Verdict = "done" | NotDone;

export function verdictOf(status: StepStatus): Verdict {
  switch (status.kind) {
    case "passed":
    // Its own part passes; the tests that fail stop at another step's stub, whose answer runs in its place.
    case "waiting":
    // The code runs (tsx does not check types): --mine can run it, though the step is not done yet.
    case "mistyped":
      return "done";
    case "not-started":
    case "failing":
    case "broken":
      return status.kind;
    default:
      return "broken";
  }
}

/**
 * Each learner file of the demo steps: the learner's (every step that writes it done) or the answer,
 * with why. `as` gives, for a file, where the code that stands as the learner's is (tests only).
 */
export function yourFiles(verdicts: ReadonlyMap<string, Verdict>, as: ReadonlyMap<string, string> = new Map()): YourFile[] {
  const files = [...new Set(demoSteps().map((step) => step.file))];
  return files.map((file) => {
    const owners = demoSteps().filter((step) => step.file === file);
    const notDone = owners.flatMap((step) => {
      const why = verdicts.get(step.id) ?? "stub";
      return why === "done" ? [] : [{ step: step.id, why }];
    });
    const where = as.get(file) ?? path.join(exercisesDir, file);
    return { file, steps: owners.map((step) => step.id), path: where, ...(notDone.length > 0 ? { notDone } : {}) };
  });
}

/** The hook's mapping (URLs), from the manifest's learner file → answer. */
export function resolveMapping(files: readonly YourFile[]): Map<string, string> {
  const url = (file: string) => pathToFileURL(file).href;
  const mapping = new Map<string, string>();
  const answers = answerFiles();
  for (const file of files) {
    const learner = path.join(exercisesDir, file.file);
    const answer = answers.get(learner);
    if (answer === undefined) continue;
    if (file.notDone !== undefined) mapping.set(url(learner), url(answer));
    else {
      mapping.set(url(answer), url(file.path));
      if (file.path !== learner) mapping.set(url(learner), url(file.path));
    }
  }
  return mapping;
}

// ── is a step done? ──────────────────────────────────────────────────────────────────────────────

/** What runs a step's tests: WatchRunner, or a fake in tests. */
export interface CheckTests extends StepTests {
  close(): Promise<void>;
}

export interface CheckOptions {
  readonly resultsFile?: string;
  /** The learner's folder (tests use a copy). */
  readonly dir?: string;
  readonly start?: () => Promise<CheckTests>;
  /** Told once, before tests run (they can take a while). */
  readonly onRun?: (list: readonly Step[]) => void;
}

/** Each demo step's verdict, running only the tests whose files changed since they last ran (results.ts). */
export async function checkSteps(options: CheckOptions = {}): Promise<Map<string, Verdict>> {
  const file = options.resultsFile ?? resultsFile();
  const dir = options.dir ?? exercisesDir;
  const held = heldResults(demoSteps(), file, dir);
  const verdicts = new Map<string, Verdict>();
  const toRun: Step[] = [];
  for (const step of demoSteps()) {
    const status = held.get(step.id);
    if (isShippedStub(step, dir)) verdicts.set(step.id, "stub");
    else if (status !== undefined) verdicts.set(step.id, verdictOf(status));
    else toRun.push(step);
  }
  if (toRun.length > 0) {
    options.onRun?.(toRun);
    const tests = await (options.start ?? startWatchRunner)();
    try {
      const before = toRun.map((step) => fingerprint(step, dir));
      const { classify } = await import("./status.ts");
      const outcomes = await tests.run(toRun);
      const ran = toRun.map((step, index) => {
        const outcome = outcomes[index];
        const status: StepStatus = outcome === undefined ? { kind: "broken", message: "no result" } : classify(outcome, step.id);
        verdicts.set(step.id, verdictOf(status));
        return { step, fingerprint: before[index] ?? "", status };
      });
      keepResults(ran, file);
    } finally {
      await tests.close();
    }
  }
  return verdicts;
}

async function startWatchRunner(): Promise<CheckTests> {
  const { WatchRunner } = await import("./watch-runner.ts");
  return WatchRunner.start();
}

function isShippedStub(step: Step, dir: string): boolean {
  const learner = path.join(dir, step.file);
  const stub = shippedStubs().get(path.join(exercisesDir, step.file));
  return stub !== undefined && existsSync(learner) && readFileSync(learner).equals(readFileSync(stub));
}

// ── starting a run ───────────────────────────────────────────────────────────────────────────────

/**
 * For tests: `WORKBOOK_MINE_AS` is a JSON object from a learner file name to the file (from the repo
 * root) that stands as the learner's, done; every other file counts as its untouched stub. No test runs.
 */
function mineAsFrom(env: NodeJS.ProcessEnv): Map<string, string> | undefined {
  const text = env.WORKBOOK_MINE_AS;
  if (text === undefined || text === "") return undefined;
  const given = JSON.parse(text) as { [file: string]: string };
  return new Map(Object.entries(given).map(([file, to]) => [file, path.resolve(root, to)]));
}

/**
 * Decides which files are the learner's, registers the resolve hook, and tells the chapter the one way
 * it hears it: WORKBOOK_YOUR_FILES in the run's environment (chapters/05-session-log/demo/mine.ts).
 */
export async function startMine(env: NodeJS.ProcessEnv = process.env, say: (line: string) => void = console.error): Promise<YourFile[]> {
  const as = mineAsFrom(env);
  const verdicts =
    as === undefined
      ? await checkSteps({
          onRun: (list) =>
            say(
              `正在运行练习步骤 ${list.map((step) => step.id).join("、")} 的测试… / running the tests of ${list.map((s) => s.id).join(", ")} …`,
            ),
        })
      : new Map(demoSteps().map((step): [string, Verdict] => [step.id, as.has(step.file) ? "done" : "stub"]));
  const files = yourFiles(verdicts, as);
  const data: HookData = { entries: [...resolveMapping(files)] };
  register("./mine-hook.ts", import.meta.url, { data });
  env[YOUR_FILES] = JSON.stringify(files);
  return files;
}

/**
 * Imports each of the learner's files that runs, before the program does: one that throws while being
 * imported is then told as a throw during the run is (the file, its step, the line, no stack, its text
 * made visible), with exit code 1. Undefined when all load; the program then finds them loaded.
 */
export async function loadYourFiles(files: readonly YourFile[], out: (line: string) => void = console.log): Promise<number | undefined> {
  const answers = answerFiles();
  for (const file of files.filter((yours) => yours.notDone === undefined)) {
    // Imported as the chapter imports it, through its answer, which the hook turns into your file.
    const answer = answers.get(path.join(exercisesDir, file.file));
    if (answer === undefined) continue;
    try {
      await import(pathToFileURL(answer).href);
    } catch (error) {
      return tellYourThrow(error, out, process.env, "load", file);
    }
  }
  return undefined;
}

// ── npm run watch's key d ────────────────────────────────────────────────────────────────────────

/** What `npm run demo -- --mine` printed (stdout, then stderr) and how it ended; stopped after `limitMs`. */
export function runDemoOnYourFiles(limitMs = 120_000): Promise<{ readonly code: number; readonly output: string }> {
  return new Promise((resolve) => {
    // The learner's own command, so what watch shows is what they would see typing it.
    const child = spawn("npm", ["run", "--silent", "demo", "--", "--mine"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined },
      detached: true, // its own process group: a stuck run is stopped with everything it started
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = ""; // both streams, in the order they arrive
    const add = (chunk: Buffer) => (output += chunk.toString());
    child.stdout.on("data", add);
    child.stderr.on("data", add);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      output += `\n演示运行超过 ${limitMs / 1000} 秒，已停止 / the demo ran over ${limitMs / 1000} s and was stopped`;
    }, limitMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output: output.trimEnd() });
    });
  });
}
