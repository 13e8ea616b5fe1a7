// `npm run progress`: runs every step's tests against your files and prints where you are: one line
// per step (✓ passed, ✗ some failing, · not started) and what to do next. It runs vitest in-process
// in its default mode, i.e. the learner project "exercises" of vitest.config.ts, with a reporter
// that prints nothing; the results are read from the test modules vitest hands back.
import { existsSync } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { startVitest, type Reporter, type TestModule } from "vitest/node";
import { isMain, runMain, shown } from "./learner.ts";
import { exercisesDir, root, steps, type Step } from "./steps.ts";

/** What one test ended as, reduced to what the classification needs. */
export interface TestOutcome {
  readonly name: string;
  readonly state: "passed" | "failed" | "skipped" | "pending";
  /** Error messages, each followed by the messages of its `cause` chain (fast-check wraps errors). */
  readonly errors: readonly string[];
}

/** A step's test file after the run: missing, failed to load (errors), or its tests. */
export interface FileOutcome {
  readonly exists: boolean;
  readonly loadErrors: readonly string[];
  readonly tests: readonly TestOutcome[];
}

export type StepStatus =
  | { readonly kind: "passed"; readonly total: number }
  | { readonly kind: "failing"; readonly failing: number; readonly total: number; readonly first: TestOutcome }
  /** No test passes and tests stop at a stub; `waitsOn` lists the steps whose stubs they hit. */
  | { readonly kind: "not-started"; readonly total: number; readonly waitsOn: readonly string[] }
  /** Every failing test stops at the stub of another step: this step's own code may well be right. */
  | { readonly kind: "waiting"; readonly failing: number; readonly total: number; readonly waitsOn: readonly string[] }
  | { readonly kind: "broken"; readonly message: string }
  | { readonly kind: "missing" };

// The message todo() in exercises/05-session-log/todo.ts gives every NotImplementedError.
const stubMessage = /not implemented yet — step (\S+?):/;

/** `stepId` is the step the file tests: a failure at its own stub is its own, at another's it is not. */
export function classify(file: FileOutcome, stepId?: string): StepStatus {
  if (!file.exists) return { kind: "missing" };
  const [loadError] = file.loadErrors;
  if (loadError !== undefined) return { kind: "broken", message: loadError };
  const ran = file.tests.filter((test) => test.state === "passed" || test.state === "failed");
  if (ran.length === 0) return { kind: "broken", message: "no test ran" };
  const failed = ran.filter((test) => test.state === "failed");
  const [first] = failed;
  if (first === undefined) return { kind: "passed", total: ran.length };
  // Not started: nothing passes yet and the stub is still being hit. Usually every test stops at a
  // NotImplementedError; but a stub may also leave a value empty (p2's schema map), whose tests
  // then fail on an assertion, so "every failure is a stub error" would call an untouched step
  // half done.
  const stubSteps = failed.map(stubStepOf).filter((id) => id !== undefined);
  const waitsOn = [...new Set(stubSteps)].sort();
  if (failed.length === ran.length && stubSteps.length > 0) {
    return { kind: "not-started", total: ran.length, waitsOn };
  }
  // 05.4's tests also run the 05.3 projection: with 05.3 still a stub they fail, through no fault of
  // 05.4's code. Say what they wait for instead of calling the step failing.
  if (stubSteps.length === failed.length && stepId !== undefined && !waitsOn.includes(stepId)) {
    return { kind: "waiting", failing: failed.length, total: ran.length, waitsOn };
  }
  // Show a real failure (a wrong value) before one that only hit a stub not yet written.
  const wrong = failed.find((test) => stubStepOf(test) === undefined) ?? first;
  return { kind: "failing", failing: failed.length, total: ran.length, first: wrong };
}

/** The step whose stub stopped this test, if a NotImplementedError did. */
function stubStepOf(test: TestOutcome): string | undefined {
  for (const message of test.errors) {
    const match = stubMessage.exec(message);
    if (match) return match[1];
  }
  return undefined;
}

export interface StepReport {
  readonly step: Step;
  readonly status: StepStatus;
}

/** The first step not yet passed: the one to work on. */
export function nextStep(reports: readonly StepReport[]): StepReport | undefined {
  return reports.find((report) => report.status.kind !== "passed");
}

export function renderProgress(reports: readonly StepReport[]): string {
  const lines = [pc.bold("Chapter 05 会话日志 — your progress"), ""];
  const idWidth = Math.max(...reports.map((r) => r.step.id.length));
  const passed = new Set(reports.filter((r) => r.status.kind === "passed").map((r) => r.step.id));
  for (const { step, status } of reports) {
    const book = pc.dim(`(book ${step.bookSection})`);
    const describeStatus = describe(status, step, passed);
    lines.push(`  ${mark(status)} ${step.id.padEnd(idWidth)}  ${step.title} — ${describeStatus}  ${book}`);
    // A file that does not even load (a typo, a missing export) is worth seeing on every step it breaks.
    if (status.kind === "broken") lines.push(pc.red(`      ${firstLine(status.message)}`));
  }
  lines.push("");
  const next = nextStep(reports);
  if (next === undefined) {
    lines.push(pc.green(pc.bold("Every step passes. Well done!")) + " Compare your files with the answers: `npm run compare -- <step>`.");
    return lines.join("\n");
  }
  const { step, status } = next;
  if (status.kind === "failing") {
    lines.push(pc.dim(`First failing test of ${step.id}: ${status.first.name}`));
    // fast-check's own message ("Property failed after 1 tests") says less than the error it wraps.
    const reason = status.first.errors.find((message) => !message.startsWith("Property failed")) ?? status.first.errors[0];
    if (reason !== undefined) lines.push(pc.dim(`  ${firstLine(reason)}`));
  }
  lines.push(
    `${pc.bold("Next:")} step ${step.id} — ${step.title}. ` +
      `Read exercises/05-session-log/README.md#${step.readmeAnchor}; ` +
      `run \`npx vitest exercises/05-session-log/${step.test}\`; ` +
      `stuck? \`npm run hint -- ${step.id}\``,
  );
  return lines.join("\n");
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}

function mark(status: StepStatus): string {
  switch (status.kind) {
    case "passed":
      return pc.green("✓");
    case "failing":
    case "broken":
      return pc.red("✗");
    case "waiting":
      return pc.yellow("…");
    case "not-started":
      return pc.dim("·");
    case "missing":
      return pc.yellow("?");
  }
}

function describe(status: StepStatus, step: Step, passed: ReadonlySet<string>): string {
  switch (status.kind) {
    case "passed":
      return pc.green(`passed (${status.total} tests)`);
    case "failing": {
      // Some of these failures may come from an earlier step still unfinished (05.5 runs your 05.3).
      const unmet = step.needs.filter((id) => !passed.has(id));
      const note = unmet.length === 0 ? "" : pc.dim(` (its tests also need ${unmet.join(", ")}, not done yet)`);
      return pc.red(`${status.failing} of ${status.total} failing`) + note;
    }
    case "waiting":
      return pc.yellow(`${status.failing} of ${status.total} failing, all waiting for ${status.waitsOn.join(", ")}`);
    case "broken":
      return pc.red("its tests could not run");
    case "missing":
      return pc.yellow(`test file ${step.test} not found`);
    case "not-started": {
      // Its tests run earlier steps' code too (05.5 runs your Session and projection): say which of
      // those are not done yet, so the learner knows which file to open first.
      const waiting = [...step.needs, ...status.waitsOn].filter((id) => id !== step.id && !passed.has(id));
      const unmet = [...new Set(waiting)].sort();
      return unmet.length === 0 ? pc.dim("not started") : pc.dim(`not started (its tests also need ${unmet.join(", ")})`);
    }
  }
}

// ── running the tests ─────────────────────────────────────────────────────────────────────────────

function outcomeOf(module: TestModule | undefined, exists: boolean): FileOutcome {
  if (module === undefined) return { exists, loadErrors: exists ? ["vitest did not run this file"] : [], tests: [] };
  const tests = [...module.children.allTests()].map((test): TestOutcome => {
    const result = test.result();
    return { name: test.fullName, state: result.state, errors: (result.errors ?? []).flatMap(messagesOf) };
  });
  return { exists, loadErrors: module.errors().flatMap(messagesOf), tests };
}

/** An error's message and those of its causes: fast-check reports the real error as `cause`. */
function messagesOf(error: unknown): string[] {
  const messages: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { message, cause } = e as { message?: unknown; cause?: unknown };
    if (typeof message === "string") messages.push(message);
    e = cause;
  }
  return messages;
}

/** Runs the learner project on every step's test file; returns one outcome per step. */
export async function runSteps(list: readonly Step[] = steps): Promise<StepReport[]> {
  const files = list.map((step) => path.join(exercisesDir, step.test));
  const present = [...new Set(files.filter((file) => existsSync(file)))];
  let modules: readonly TestModule[] = [];
  if (present.length > 0) {
    const collect: Reporter = { onTestRunEnd: (testModules) => void (modules = testModules) };
    const vitest = await startVitest("test", present, {
      root,
      run: true,
      watch: false,
      project: ["exercises"],
      reporters: [collect],
      silent: true, // the tests' own console output
    });
    await vitest.close();
    process.exitCode = 0; // vitest marks the process failed when tests fail; for progress that is the point
  }
  return list.map((step, index) => {
    const file = files[index]!;
    const module = modules.find((candidate) => path.resolve(candidate.moduleId) === file);
    return { step, status: classify(outcomeOf(module, existsSync(file)), step.id) };
  });
}

if (isMain(import.meta.url)) {
  await runMain(async () => {
    console.log(pc.dim(`Running the exercise tests in ${shown(exercisesDir)} (a few seconds) …`));
    console.log(renderProgress(await runSteps()));
  });
}
