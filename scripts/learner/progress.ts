// `npm run progress`: runs every step's tests against your files and prints where you are: one line
// per step (✓ passed, ✗ some failing, … waiting for an earlier step, · not started) and what to do
// next. In Chinese with the English beside it. `npm run watch` shows the same list on its `l` key.
import path from "node:path";
import pc from "picocolors";
import { visible } from "../../chapters/common/text.ts";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { isMain, readArgs, runMain } from "../command.ts";
// Type-only: `npm run watch` imports this file, and must not wait for vitest to load before its first
// screen (runSteps loads the runner when it is called).
import { loadError, type TestOutcome } from "./step-runner.ts";
import { exercisesDir, guideLink, steps, whereInBook, type Step } from "../steps.ts";

import { typeErrors, typeProblemLines } from "./type-problems.ts";
import { classify, nextStep, withTypes, type StepReport, type StepStatus } from "./status.ts";

/** `▰▰▱▱▱▱▱▱ 2/8`: one cell per step, filled when it passes. */
export function progressBar(reports: readonly StepReport[]): string {
  const cells = reports.map((report) => (report.status.kind === "passed" ? pc.green("▰") : pc.dim("▱"))).join("");
  const done = reports.filter((report) => report.status.kind === "passed").length;
  return `${cells} ${done}/${reports.length}`;
}

/** Two lines for one step: the mark, id, Chinese title and status; then the English title and the book section. */
export function stepLines(report: StepReport, reports: readonly StepReport[]): string[] {
  const { step, status } = report;
  const idWidth = Math.max(...reports.map((r) => r.step.id.length));
  const challenge = step.kind === "challenge" ? pc.magenta("挑战 / challenge ") : "";
  const lines = [
    `  ${mark(status)} ${step.id.padEnd(idWidth)}  ${challenge}${step.titleZh} — ${describe(status, step, reports)}`,
    pc.dim(`  ${" ".repeat(idWidth + 2)}  ${step.title} · ${whereInBook(step)}`),
  ];
  // A file that does not even load (a typo, a missing export) is worth seeing on every step it breaks.
  if (status.kind === "broken") lines.push(pc.red(`      ${visible(firstLine(loadError(status.message)))}`));
  if (status.kind === "mistyped") lines.push(...typeProblemLines(status.problems, 1).map((line) => pc.red(`      ${visible(line)}`)));
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
  const first = nextStep(reports);
  // A step whose own part passes and whose other tests wait for another step: that step is the one to do.
  const cause = first?.status.kind === "waiting" ? causes(first.status.waitsOn, reports, first.step.id)[0] : undefined;
  const next = reports.find((report) => report.step.id === cause) ?? first;
  if (first !== undefined && next !== undefined && next !== first) {
    lines.push(
      pc.dim(
        `练习步骤 ${first.step.id}：你自己的部分都通过了，其余测试在等 ${next.step.id} / ${first.step.id}: your own part passes, its other tests wait for ${next.step.id}`,
      ),
    );
  }
  if (next === undefined) {
    lines.push(pc.green(pc.bold("全部通过，做得好！/ Every step passes. Well done!")));
    lines.push("和答案对照 / compare with the answers:", "  npm run compare -- <练习步骤 / step>");
    return lines.join("\n");
  }
  const { step, status } = next;
  if (status.kind === "failing" || status.kind === "hung") {
    // A failure quotes values from the learner's code and the tests' data: shown, never obeyed (visible).
    lines.push(pc.dim(`${step.id} 第一个失败的测试 / first failing test: ${visible(status.first.name)}`));
    const reason = reasonOf(status.first);
    if (reason !== undefined) lines.push(pc.dim(`  ${visible(firstLine(reason))}`));
  }
  if (status.kind === "mistyped") {
    lines.push(
      pc.dim(
        `${step.id} 的类型错误；要全部列出，运行 npm run typecheck / ${step.id}'s type errors; to list them all, run: npm run typecheck`,
      ),
    );
    lines.push(...typeProblemLines(status.problems).map((line) => pc.dim(`  ${visible(line)}`)));
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
    case "hung":
    case "mistyped":
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

/**
 * Of `ids` (steps a step's tests run, or whose stubs they stopped at), those not done, each traced to what
 * it waits for in turn: a step whose own failures all stop at another's stub is not the cause, that
 * other step is (after `npm run reset -- 05.6`, 05.2–05.5 all wait for 05.6). `self` is never its own cause.
 */
export function causes(ids: readonly string[], reports: readonly StepReport[], self: string): string[] {
  const found = new Set<string>();
  const visit = (id: string, seen: ReadonlySet<string>): void => {
    const status = reports.find((report) => report.step.id === id)?.status;
    if (status?.kind === "passed" || seen.has(id)) return;
    if (status?.kind === "waiting") for (const on of status.waitsOn) visit(on, new Set([...seen, id]));
    else found.add(id);
  };
  for (const id of ids) visit(id, new Set());
  found.delete(self);
  return [...found].sort();
}

function describe(status: StepStatus, step: Step, reports: readonly StepReport[]): string {
  switch (status.kind) {
    case "passed":
      return pc.green(`通过 / passed (${status.total} 个测试 / tests)`);
    case "failing": {
      // Some of these failures may come from steps not done yet (05.5 runs your 05.3): those its failures
      // stopped at, and the earlier steps its tests run, traced to what they in turn wait for.
      const unmet = causes([...(status.waitsOn ?? []), ...step.needs], reports, step.id);
      const waiting = status.waiting === undefined ? "" : `，其中 ${status.waiting} 个在等 ${(status.waitsOn ?? []).join("、")}`;
      const waitingEn = status.waiting === undefined ? "" : ` (${status.waiting} of them wait for ${(status.waitsOn ?? []).join(", ")})`;
      const note =
        unmet.length === 0
          ? ""
          : pc.dim(` · 测试还会用到还没完成的练习步骤 ${unmet.join("、")} / its tests also need steps not done yet: ${unmet.join(", ")}`);
      return (
        pc.red(`${status.failing}/${status.total} 个测试失败${waiting} / ${status.failing} of ${status.total} failing${waitingEn}`) + note
      );
    }
    case "waiting": {
      const on = causes(status.waitsOn, reports, step.id);
      const zh = on.join("、");
      return pc.yellow(
        `你这一步自己的部分都通过了；另有 ${status.failing}/${status.total} 个测试在等 ${zh} / your own part passes; ${status.failing} of ${status.total} tests wait for ${on.join(", ")}`,
      );
    }
    case "broken":
      return pc.red("测试无法运行 / its tests could not run");
    case "hung":
      return pc.red(`一个测试卡住了，已停止 / a test hung and was stopped — ${visible(status.first.name)}`);
    case "mistyped":
      return pc.red(
        `测试都通过了，但文件有 ${status.problems.length} 个类型错误 / the tests pass, but the file has ${typeErrors(status.problems.length)}`,
      );
    case "missing":
      return pc.yellow(`找不到测试文件 / test file not found: ${step.test}`);
    case "unchecked":
      return pc.dim("还没检查 / not checked yet");
    case "not-started": {
      // Its tests run earlier steps' code too (05.5 runs your Session and projection): say which of
      // those are not done yet, so the learner knows which file to open first.
      const unmet = causes([...step.needs, ...status.waitsOn], reports, step.id);
      const note =
        unmet.length === 0
          ? ""
          : ` · 测试还会用到还没完成的练习步骤 ${unmet.join("、")} / its tests also need steps not done yet: ${unmet.join(", ")}`;
      return pc.dim(`未开始 / not started${note}`);
    }
  }
}

/** Runs every step's tests once (or those of `list`), classifies each, and type-checks each step's file. */
export interface RunStepsOptions {
  /** Where each step's results are kept (results.ts); tests use a file of their own. */
  readonly resultsFile?: string;
  /** Told, before any test runs, which steps will run and how many results still hold. */
  readonly onRun?: (toRun: readonly Step[], held: number) => void;
}

/**
 * Every step's state (or that of each step of `list`): the results kept from the last run of its tests
 * while the files they load are unchanged (results.ts); the rest in one vitest run. Then each step's file
 * is type-checked: a step whose tests pass and whose file does not type-check is not done.
 */
export async function runSteps(list: readonly Step[] = steps, options: RunStepsOptions = {}): Promise<StepReport[]> {
  const { fingerprint, heldResults, heldTypes, keepResults } = await import("./results.ts");
  const fingerprints = new Map(list.map((step) => [step, fingerprint(step)])); // before anything runs
  const statuses = heldResults(list, options.resultsFile);
  const types = heldTypes(list, options.resultsFile);
  const toRun = list.filter((step) => !statuses.has(step.id));
  options.onRun?.(toRun, statuses.size);
  if (toRun.length > 0) {
    // The watch's runner: a test that hangs is stopped and told (hang.ts) instead of holding progress up.
    const { WatchRunner } = await import("./watch-runner.ts");
    const runner = await WatchRunner.start({ limitMs: 600_000 });
    try {
      const outcomes = await runner.run(toRun);
      for (const [index, step] of toRun.entries()) statuses.set(step.id, classify(outcomes[index]!, step.id));
    } finally {
      await runner.close();
    }
  }
  const unchecked = list.filter((step) => !types.has(step.id));
  if (unchecked.length > 0) {
    const { TypeChecker } = await import("./typecheck.ts");
    const checker = new TypeChecker(unchecked.map((step) => path.join(exercisesDir, step.file)));
    for (const step of unchecked) types.set(step.id, checker.check(path.join(exercisesDir, step.file)));
  }
  const status = (step: Step) => statuses.get(step.id) ?? { kind: "broken", message: "no result" };
  keepResults(
    list.map((step) => ({ step, fingerprint: fingerprints.get(step) ?? "", status: status(step), types: types.get(step.id) })),
    options.resultsFile,
  );
  return list.map((step) => ({ step, status: withTypes(status(step), types.get(step.id)) }));
}

/** What progress says before it runs anything: which steps' tests run, and which results still hold. */
export function runningNote(toRun: readonly Step[], held: number): string {
  const holds = held === 0 ? "" : `；其余 ${held} 个练习步骤的文件自上次运行后没有改过，沿用那次的结果`;
  const holdsEn = held === 0 ? "" : `; the other ${held} steps' files are unchanged since their last run, so those results stand`;
  if (toRun.length === 0) {
    return `所有练习步骤的文件自上次运行后都没有改过：沿用那次的结果 / every step's files are unchanged since their last run: those results stand …`;
  }
  const ids = toRun.map((step) => step.id);
  // Every step from scratch runs about 1,000 tests: half a minute on a busy machine (README's timings).
  const slow = toRun.length > 3 ? "（这要跑很多测试，机器忙时可能要半分钟）" : "";
  const slowEn = toRun.length > 3 ? " (many tests: up to half a minute on a busy machine)" : "";
  return `正在运行练习步骤 ${ids.join("、")} 的测试${slow}${holds} / running the tests of ${ids.join(", ")}${slowEn}${holdsEn} …`;
}

/** The command line, read through the one flag table (chapters/common/flags.ts). */
export const COMMAND = { usage: ["npm run progress"], flags: {} } as const satisfies Command<Flags>;

if (isMain(import.meta.url)) {
  await runMain(async () => {
    readArgs(process.argv.slice(2), COMMAND);
    const reports = await runSteps(steps, { onRun: (toRun, held) => console.log(pc.dim(runningNote(toRun, held))) });
    console.log(renderProgress(reports));
    process.exitCode = 0; // failing tests are what progress reports, not an error of the command
  });
}
