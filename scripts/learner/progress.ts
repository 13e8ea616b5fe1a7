// `npm run progress`: runs every step's tests against your files and prints where you are: one line
// per step (✓ passed, ✗ some failing, … waiting for an earlier step, · not started) and what to do
// next. In Chinese with the English beside it. `npm run watch` shows the same list on its `l` key.
import pc from "picocolors";
import { z } from "zod";
import { visible } from "../../chapters/common/text.ts";
import { stubStepOf } from "../../exercises/05-session-log/todo.ts";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { isMain, readArgs, runMain, shown } from "../command.ts";
// Type-only: `npm run watch` imports this file for classify, and must not wait for vitest to load
// before its first screen (runSteps loads the runner when it is called).
import { type FileOutcome, loadError, type StepRunner, type TestOutcome } from "./step-runner.ts";
import { exercisesDir, guideLink, steps, whereInBook, type Step } from "../steps.ts";

export type { FileOutcome, TestOutcome } from "./step-runner.ts";

const testOutcome = z.object({
  name: z.string(),
  state: z.enum(["passed", "failed", "skipped", "pending"]),
  errors: z.array(z.string()).readonly(),
  at: z.string().optional(),
  diff: z.string().optional(),
}) satisfies z.ZodType<TestOutcome>;

/**
 * A step's state after its tests ran, as `classify` gives it. A schema, so that `npm run watch` can
 * check the states it saved last time (.workbook/watch-state.json) field for field before drawing them.
 */
export const ranStatus = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("passed"), total: z.number() }),
  z.object({ kind: z.literal("failing"), failing: z.number(), total: z.number(), first: testOutcome }),
  /** No test passes and tests stop at a stub; `waitsOn` lists the steps whose stubs they hit. */
  z.object({ kind: z.literal("not-started"), total: z.number(), waitsOn: z.array(z.string()).readonly(), first: testOutcome }),
  /** Every failing test stops at the stub of another step: this step's own code may well be right. */
  z.object({ kind: z.literal("waiting"), failing: z.number(), total: z.number(), waitsOn: z.array(z.string()).readonly() }),
  z.object({ kind: z.literal("broken"), message: z.string() }),
  z.object({ kind: z.literal("missing") }),
]);

/** What classify says, or, in `npm run watch`, "unchecked": it has not run this step's tests yet (it checks the current step first). */
export type StepStatus = Readonly<z.output<typeof ranStatus>> | { readonly kind: "unchecked" };

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
  return { kind: "failing", failing: failed.length, total: ran.length, first: wrong };
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

/** `▰▰▱▱▱▱▱▱ 2/8`: one cell per step, filled when it passes. */
export function progressBar(reports: readonly StepReport[]): string {
  const cells = reports.map((report) => (report.status.kind === "passed" ? pc.green("▰") : pc.dim("▱"))).join("");
  const done = reports.filter((report) => report.status.kind === "passed").length;
  return `${cells} ${done}/${reports.length}`;
}

/** Two lines for one step: the mark, id, Chinese title and status; then the English title and the book section. */
export function stepLines(report: StepReport, reports: readonly StepReport[]): string[] {
  const { step, status } = report;
  const passed = new Set(reports.filter((r) => r.status.kind === "passed").map((r) => r.step.id));
  const idWidth = Math.max(...reports.map((r) => r.step.id.length));
  const challenge = step.kind === "challenge" ? pc.magenta("挑战 / challenge ") : "";
  const lines = [
    `  ${mark(status)} ${step.id.padEnd(idWidth)}  ${challenge}${step.titleZh} — ${describe(status, step, passed)}`,
    pc.dim(`  ${" ".repeat(idWidth + 2)}  ${step.title} · ${whereInBook(step)}`),
  ];
  // A file that does not even load (a typo, a missing export) is worth seeing on every step it breaks.
  if (status.kind === "broken") lines.push(pc.red(`      ${visible(firstLine(loadError(status.message)))}`));
  return lines;
}

/** The reason to show for a failing test: fast-check's "Property failed after 1 tests" says less than the error it wraps. */
export function reasonOf(test: TestOutcome): string | undefined {
  return test.errors.find((message) => !message.startsWith("Property failed")) ?? test.errors[0];
}

export function renderProgress(reports: readonly StepReport[]): string {
  const lines = [pc.bold("第 05 章 会话日志：你的进度 / Chapter 05 session log: your progress"), progressBar(reports), ""];
  for (const report of reports) lines.push(...stepLines(report, reports));
  lines.push("");
  const next = nextStep(reports);
  if (next === undefined) {
    lines.push(pc.green(pc.bold("全部通过，做得好！/ Every step passes. Well done!")));
    lines.push("和答案对照 / compare with the answers:", "  npm run compare -- <练习步骤 / step>");
    return lines.join("\n");
  }
  const { step, status } = next;
  if (status.kind === "failing") {
    // A failure quotes values from the learner's code and the tests' data: shown, never obeyed (visible).
    lines.push(pc.dim(`${step.id} 第一个失败的测试 / first failing test: ${visible(status.first.name)}`));
    const reason = reasonOf(status.first);
    if (reason !== undefined) lines.push(pc.dim(`  ${visible(firstLine(reason))}`));
  }
  lines.push(
    `${pc.bold("下一步 / next:")} 练习步骤 ${step.id} — ${step.titleZh} / ${step.title}`,
    `  专注模式，保存即重跑 / focused loop, re-runs on save:  npm run watch`,
    `  说明 / guide:  ${guideLink(step)}`,
    `  提示 / hint:   npm run hint -- ${step.id}`,
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
    case "unchecked":
      return pc.dim("-");
  }
}

function describe(status: StepStatus, step: Step, passed: ReadonlySet<string>): string {
  switch (status.kind) {
    case "passed":
      return pc.green(`通过 / passed (${status.total} 个测试 / tests)`);
    case "failing": {
      // Some of these failures may come from an earlier step still unfinished (05.5 runs your 05.3).
      const unmet = step.needs.filter((id) => !passed.has(id));
      const note = unmet.length === 0 ? "" : pc.dim(` (测试还会用到未完成的 / its tests also need, not done yet: ${unmet.join(", ")})`);
      return pc.red(`${status.failing}/${status.total} 个测试失败 / ${status.failing} of ${status.total} failing`) + note;
    }
    case "waiting": {
      const on = status.waitsOn.join(", ");
      return pc.yellow(`${status.failing}/${status.total} 个测试失败，都在等 ${on} / all ${status.failing} failing wait for ${on}`);
    }
    case "broken":
      return pc.red("测试无法运行 / its tests could not run");
    case "missing":
      return pc.yellow(`找不到测试文件 / test file not found: ${step.test}`);
    case "unchecked":
      return pc.dim("还没检查 / not checked yet");
    case "not-started": {
      // Its tests run earlier steps' code too (05.5 runs your Session and projection): say which of
      // those are not done yet, so the learner knows which file to open first.
      const waiting = [...step.needs, ...status.waitsOn].filter((id) => id !== step.id && !passed.has(id));
      const unmet = [...new Set(waiting)].sort();
      const note = unmet.length === 0 ? "" : ` (测试还会用到 / its tests also need: ${unmet.join(", ")})`;
      return pc.dim(`未开始 / not started${note}`);
    }
  }
}

/** Runs every step's tests once (or those of `list`) and classifies each. */
export async function runSteps(list: readonly Step[] = steps, runner?: StepRunner): Promise<StepReport[]> {
  const own = runner ?? (await (await import("./step-runner.ts")).StepRunner.start());
  try {
    const outcomes = await own.run(list);
    return list.map((step, index) => ({ step, status: classify(outcomes[index]!, step.id) }));
  } finally {
    if (runner === undefined) await own.close();
  }
}

/** The command line, read through the one flag table (chapters/common/flags.ts). */
export const COMMAND = { usage: ["npm run progress"], flags: {} } as const satisfies Command<Flags>;

if (isMain(import.meta.url)) {
  await runMain(async () => {
    readArgs(process.argv.slice(2), COMMAND);
    console.log(pc.dim(`正在运行 ${shown(exercisesDir)} 的练习测试（几秒钟）/ running the exercise tests (a few seconds) …`));
    console.log(renderProgress(await runSteps()));
    process.exitCode = 0; // failing tests are what progress reports, not an error of the command
  });
}
