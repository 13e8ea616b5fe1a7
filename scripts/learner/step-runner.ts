// Runs steps' test files against the learner's own files (vitest's "exercises" project, in-process)
// and hands back what each test ended as. `npm run progress` runs every step once; `npm run watch`
// keeps one runner open (in a child process, scripts/learner/watch-runner.ts) and re-runs the current step on
// every save, which is what makes it fast: the Vite server and its transform cache are built once.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { createVitest, type TestModule, type TestSpecification, type Vitest } from "vitest/node";
import { exercisesDir, learnerFiles, root, type Step } from "../steps.ts";
import type { Frame } from "./hang.ts";

/** What one test ended as, reduced to what the classification needs. */
export interface TestOutcome {
  readonly name: string;
  readonly state: "passed" | "failed" | "skipped" | "pending";
  /** Error messages, each followed by the messages of its `cause` chain (fast-check wraps errors). */
  readonly errors: readonly string[];
  /**
   * Where the first error was thrown in the learner's files, e.g. `exercises/05-session-log/json.ts:14:10`;
   * when it went through several of them, each from the caller down, joined by " → "
   * (`…/agent-loop.ts:40:5 → …/session.ts:90:7 → …/json.ts:46:13`): the line that threw may only be
   * checking a value a caller passed it.
   */
  readonly at?: string;
  /** When no learner file is on the stack (a plain assertion): the test's own line, and its code. */
  readonly testAt?: { readonly where: string; readonly code: string };
  /** An assertion's expected/received diff, when there is one. */
  readonly diff?: string;
}

/** A step's test file after the run: missing, failed to load (errors), or its tests. */
export interface FileOutcome {
  readonly exists: boolean;
  readonly loadErrors: readonly string[];
  readonly tests: readonly TestOutcome[];
  /** A test that never ended and was stopped (scripts/learner/hang.ts): the run stopped with it. */
  readonly hung?: TestOutcome;
}

export interface StepRunnerOptions {
  readonly pool?: "forks" | "threads";
  /** Told each test that failed on its own time limit, as soon as it does (the run may go on for a long while). */
  readonly onTimedOut?: (test: { readonly name: string; readonly file: string; readonly message: string }) => void;
}

export class StepRunner {
  private constructor(private readonly vitest: Vitest) {}

  static async start(options: StepRunnerOptions = {}): Promise<StepRunner> {
    const { onTimedOut } = options;
    const vitest = await createVitest("test", {
      root,
      watch: false,
      project: ["exercises"],
      // Nothing printed (the caller renders the outcomes); a test over its time limit is told at once.
      reporters: [
        {
          onTestCaseResult(test) {
            const message = test.result().errors?.[0]?.message ?? "";
            if (/^Test timed out in \d+ms/.test(message)) onTimedOut?.({ name: test.fullName, file: test.module.moduleId, message });
          },
        },
      ],
      silent: true, // the tests' own console output
      ...(options.pool === undefined ? {} : { pool: options.pool }),
    });
    await vitest.standalone();
    return new StepRunner(vitest);
  }

  /** Forgets what vitest knows of `file`, so the next run reads it again (after a save). */
  changed(file: string): void {
    this.vitest.invalidateFile(file);
  }

  /** Runs the test files of `list` (each once, though steps may share one) and maps them back to steps. */
  async run(list: readonly Step[]): Promise<FileOutcome[]> {
    const files = list.map((step) => path.join(exercisesDir, step.test));
    const present = [...new Set(files.filter((file) => existsSync(file)))];
    let modules: readonly TestModule[] = [];
    if (present.length > 0) {
      const specifications: TestSpecification[] = await this.vitest.globTestSpecifications(present);
      modules = (await this.vitest.runTestSpecifications(specifications)).testModules;
    }
    return files.map((file) => {
      const module = modules.find((candidate) => path.resolve(candidate.moduleId) === file);
      return outcomeOf(module, existsSync(file));
    });
  }

  async close(): Promise<void> {
    await this.vitest.close();
  }
}

function outcomeOf(module: TestModule | undefined, exists: boolean): FileOutcome {
  if (module === undefined) return { exists, loadErrors: exists ? ["vitest did not run this file"] : [], tests: [] };
  const tests = [...module.children.allTests()].map((test): TestOutcome => {
    const result = test.result();
    const errors = result.errors ?? [];
    const chain = errors[0] === undefined ? [] : causeChain(errors[0]);
    const diff = chain.find((error) => typeof error.diff === "string")?.diff;
    // The deepest cause that went through the learner's files: where their code threw, under any wrapper
    // (thrownAs's failure, the loop's AgentRunError) that only carries it.
    const at = chain.map((error) => learnerFrames(framesOf(error.stack))).findLast((frames) => frames !== undefined);
    const testAt =
      at === undefined ? chain.map((error) => testFrame(framesOf(error.stack))).find((frame) => frame !== undefined) : undefined;
    return {
      name: test.fullName,
      state: result.state,
      errors: errors.flatMap((error) => causeChain(error).map((e) => e.message)),
      ...(typeof diff === "string" ? { diff } : {}),
      ...(at === undefined ? {} : { at }),
      ...(testAt === undefined ? {} : { testAt }),
    };
  });
  return { exists, loadErrors: module.errors().flatMap((error) => causeChain(error).map((e) => e.message)), tests };
}

interface ReportedError {
  readonly message: string;
  readonly stack?: string;
  readonly diff?: unknown;
}

/** An error and its causes: fast-check reports the real error as the `cause` of "Property failed". */
function causeChain(error: unknown): ReportedError[] {
  const chain: ReportedError[] = [];
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    const { message, stack, diff, cause } = e as {
      message?: unknown;
      stack?: unknown;
      diff?: unknown;
      cause?: unknown;
    };
    chain.push({
      message: typeof message === "string" ? message : String(message),
      ...(typeof stack === "string" ? { stack } : {}),
      diff,
    });
    e = cause;
  }
  return chain;
}

/** A stack's frames, `file` from the repo root, innermost first. */
function framesOf(stack: string | undefined): Frame[] {
  const frames: Frame[] = [];
  for (const text of stack?.replaceAll("file://", "").split("\n") ?? []) {
    const match = /\(?((?:\/|[A-Za-z]:)[^():]+\.ts):(\d+):(\d+)\)?\s*$/.exec(text);
    const [, file, line, column] = match ?? [];
    if (file !== undefined && line !== undefined && column !== undefined) {
      frames.push({ file: path.relative(root, file).split(path.sep).join("/"), line: Number(line), column: Number(column) });
    }
  }
  return frames;
}

/** The learner's files, from the repo root (json.ts, session.ts, …: not the tests or their helpers). */
const yourFiles = new Set(learnerFiles().map((file) => path.relative(root, file).split(path.sep).join("/")));

/**
 * The frames (innermost first) in the learner's files as `path:line:column`, from the outermost caller
 * down to the innermost, joined by " → "; undefined when none is there. Of frames in a row in one file
 * (a recursion, a helper) only the innermost is said: the line where it called the next file, or threw.
 */
export function learnerFrames(frames: readonly Frame[]): string | undefined {
  const yours = frames.filter((frame) => yourFiles.has(frame.file));
  const said = yours.filter((frame, index) => frame.file !== yours[index - 1]?.file);
  return said.length === 0
    ? undefined
    : said
        .map((frame) => `${frame.file}:${frame.line}:${frame.column}`)
        .reverse()
        .join(" → ");
}

/** The innermost frame in a test file of the learner's folder, with that line's code. */
export function testFrame(frames: readonly Frame[]): { where: string; code: string } | undefined {
  const folder = `${path.relative(root, exercisesDir).split(path.sep).join("/")}/`;
  const frame = frames.find((candidate) => candidate.file.startsWith(folder) && candidate.file.endsWith(".test.ts"));
  if (frame === undefined) return undefined;
  let code = "";
  try {
    code = readFileSync(path.join(root, frame.file), "utf8").split("\n")[frame.line - 1]?.trim() ?? "";
  } catch {
    // The line's code is a help, not a must.
  }
  return { where: `${frame.file}:${frame.line}:${frame.column}`, code };
}

/**
 * Why a test file could not load, as text to read: the transform's colour codes go, and a parse error
 * (`[PARSE_ERROR] Unexpected token` in a box drawn around `json.ts:30:24`) is told as the file, line
 * and column in words, then the lines of code it points at.
 */
export function loadError(message: string): string {
  const text = stripVTControlCharacters(message);
  const parse =
    /\[PARSE_ERROR\]\s*(?<what>[^\n]*)\n[\s\S]*?╭─\[\s*(?<file>[^\n]+?):(?<line>\d+):(?<column>\d+)\s*\]\n(?<frame>[\s\S]*)/u.exec(text);
  if (parse?.groups === undefined) return text;
  const { what, file, line, column, frame } = parse.groups;
  // The code frame without its box: the numbered line, and the marks under it.
  const code = (frame ?? "").split("\n").filter((row) => /│\s*\S/u.test(row) && !/╯|╰─+\s*$/u.test(row));
  return [
    `语法错误：${file} 第 ${line} 行第 ${column} 列解析不了 / Syntax error: ${file} line ${line}, column ${column} does not parse`,
    `  ${what}`,
    ...code,
  ].join("\n");
}
