// Runs steps' test files against the learner's own files (vitest's "exercises" project, in-process)
// and hands back what each test ended as. `npm run progress` runs every step once; `npm run watch`
// keeps one runner open (in a child process, scripts/learner/watch-runner.ts) and re-runs the current step on
// every save, which is what makes it fast: the Vite server and its transform cache are built once.
import { existsSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { createVitest, type TestModule, type TestSpecification, type Vitest } from "vitest/node";
import { exercisesDir, root, type Step } from "../steps.ts";

/** What one test ended as, reduced to what the classification needs. */
export interface TestOutcome {
  readonly name: string;
  readonly state: "passed" | "failed" | "skipped" | "pending";
  /** Error messages, each followed by the messages of its `cause` chain (fast-check wraps errors). */
  readonly errors: readonly string[];
  /** Where the first error was thrown in the learner's folder, e.g. `exercises/05-session-log/json.ts:14:10`. */
  readonly at?: string;
  /** An assertion's expected/received diff, when there is one. */
  readonly diff?: string;
}

/** A step's test file after the run: missing, failed to load (errors), or its tests. */
export interface FileOutcome {
  readonly exists: boolean;
  readonly loadErrors: readonly string[];
  readonly tests: readonly TestOutcome[];
}

export class StepRunner {
  private constructor(private readonly vitest: Vitest) {}

  static async start(options: { readonly pool?: "forks" | "threads" } = {}): Promise<StepRunner> {
    const vitest = await createVitest("test", {
      root,
      watch: false,
      project: ["exercises"],
      reporters: [{}], // nothing printed: the caller renders the outcomes
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
    const at = chain.map((error) => learnerFrame(error.stack)).find((frame) => frame !== undefined);
    return {
      name: test.fullName,
      state: result.state,
      errors: errors.flatMap((error) => causeChain(error).map((e) => e.message)),
      ...(typeof diff === "string" ? { diff } : {}),
      ...(at === undefined ? {} : { at }),
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

/** The first stack frame in a learner file (not a test), as `path:line:column` from the repo root. */
function learnerFrame(stack: string | undefined): string | undefined {
  const folder = `${path.relative(root, exercisesDir)}/`;
  for (const line of stack?.replaceAll("file://", "").split("\n") ?? []) {
    const match = /\(?((?:\/|[A-Za-z]:)[^():]+\.ts):(\d+):(\d+)\)?\s*$/.exec(line);
    const file = match?.[1] === undefined ? "" : path.relative(root, match[1]).split(path.sep).join("/");
    if (match && file.startsWith(folder) && !file.endsWith(".test.ts")) return `${file}:${match[2]}:${match[3]}`;
  }
  return undefined;
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
