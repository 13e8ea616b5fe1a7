// What a step's test run comes to: `classify` reads the outcomes of its test file (scripts/learner/step-runner.ts)
// into one state (passed, failing, waiting for another step's stub, not started, …), the same for
// `npm run progress`, `npm run watch` and `--mine`. A schema, so that what was saved (the watch's last
// known states, the results kept under a fingerprint) is checked field for field when read back.
import { z } from "zod";
import { stubStepOf } from "../../exercises/05-session-log/todo.ts";
import type { FileOutcome, TestOutcome } from "./step-runner.ts";
import type { TypeProblem } from "./type-problems.ts";
import type { Step } from "../steps.ts";

const testOutcome = z.object({
  name: z.string(),
  state: z.enum(["passed", "failed", "skipped", "pending"]),
  errors: z.array(z.string()).readonly(),
  at: z.string().optional(),
  testAt: z.object({ where: z.string(), code: z.string() }).optional(),
  diff: z.string().optional(),
}) satisfies z.ZodType<TestOutcome>;

export const typeProblem = z.object({
  file: z.string(),
  line: z.number(),
  column: z.number(),
  code: z.number(),
  zh: z.array(z.string()).readonly(),
  en: z.array(z.string()).readonly(),
}) satisfies z.ZodType<TypeProblem>;

/**
 * A step's state after its tests ran, as `classify` gives it. A schema, so that `npm run watch` can
 * check the states it saved last time (.workbook/watch-state.json) field for field before drawing them.
 */
export const ranStatus = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("passed"), total: z.number() }),
  /**
   * Some tests fail on this step's own code. `waitsOn`: other steps whose stubs the rest of the failures
   * stop at (`waiting` of them), as the failures show it, not as the manifest guesses.
   */
  z.object({
    kind: z.literal("failing"),
    failing: z.number(),
    total: z.number(),
    first: testOutcome,
    waiting: z.number().optional(),
    waitsOn: z.array(z.string()).readonly().optional(),
  }),
  /** No test passes and tests stop at a stub; `waitsOn` lists the steps whose stubs they hit. */
  z.object({ kind: z.literal("not-started"), total: z.number(), waitsOn: z.array(z.string()).readonly(), first: testOutcome }),
  /** Every failing test stops at the stub of another step: this step's own code may well be right. */
  z.object({ kind: z.literal("waiting"), failing: z.number(), total: z.number(), waitsOn: z.array(z.string()).readonly() }),
  z.object({ kind: z.literal("broken"), message: z.string() }),
  /** Every test passes, but the step's file does not type-check (CI runs tsc too): not done yet. */
  z.object({ kind: z.literal("mistyped"), total: z.number(), problems: z.array(typeProblem).readonly() }),
  /** A test never ended and was stopped (scripts/learner/hang.ts): `first` says which, why and where. */
  z.object({ kind: z.literal("hung"), first: testOutcome }),
  z.object({ kind: z.literal("missing") }),
]);

/** What classify says, or, in `npm run watch`, "unchecked": it has not run this step's tests yet (it checks the current step first). */
export type StepStatus = Readonly<z.output<typeof ranStatus>> | { readonly kind: "unchecked" };

/** `stepId` is the step the file tests: a failure at its own stub is its own, at another's it is not. */
export function classify(file: FileOutcome, stepId?: string): StepStatus {
  if (!file.exists) return { kind: "missing" };
  if (file.hung !== undefined) return { kind: "hung", first: file.hung };
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
  const stubSteps = failed.map(stubStepIn).filter((id) => id !== undefined);
  const waitsOn = [...new Set(stubSteps)].sort();
  if (failed.length === ran.length && stubSteps.length > 0) {
    return { kind: "not-started", total: ran.length, waitsOn, first };
  }
  // 05.4's tests also run the 05.3 projection: with 05.3 still a stub they fail, through no fault of
  // 05.4's code. Say what they wait for instead of calling the step failing.
  if (stubSteps.length === failed.length && stepId !== undefined && !waitsOn.includes(stepId)) {
    return { kind: "waiting", failing: failed.length, total: ran.length, waitsOn };
  }
  // Show a real failure (a wrong value) before one that only hit a stub not yet written.
  const wrong = failed.find((test) => stubStepIn(test) === undefined) ?? first;
  const others = stubSteps.filter((id) => id !== stepId);
  const failing = { kind: "failing", failing: failed.length, total: ran.length, first: wrong } as const;
  return others.length === 0 ? failing : { ...failing, waiting: others.length, waitsOn: [...new Set(others)].sort() };
}

/** A step's status once its file's type errors are known: passing tests with type errors are not done. */
export function withTypes(status: StepStatus, problems: readonly TypeProblem[] | undefined): StepStatus {
  if (status.kind !== "passed" || problems === undefined || problems.length === 0) return status;
  return { kind: "mistyped", total: status.total, problems };
}

/** The step whose stub stopped this test, if a NotImplementedError did (todo.ts defines the format). */
function stubStepIn(test: TestOutcome): string | undefined {
  return test.errors.map(stubStepOf).find((id) => id !== undefined);
}

export interface StepReport {
  readonly step: Step;
  readonly status: StepStatus;
}

/** The first step not yet passed, in the learner's order: the one to work on. */
export function nextStep(reports: readonly StepReport[]): StepReport | undefined {
  return reports.find((report) => report.status.kind !== "passed");
}
