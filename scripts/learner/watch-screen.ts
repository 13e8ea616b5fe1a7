// What `npm run watch` draws: the current step, its first failure (message, diff, where it was
// thrown), a progress bar over every step, the list (key l) and a hint (key h). Chinese with the
// English beside it. Pure: scripts/learner/watch.ts decides when to draw.
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import pc from "picocolors";
import wrapAnsi from "wrap-ansi";
import { visible } from "../../chapters/common/text.ts";
import { shown } from "../command.ts";
import { loadError } from "./step-runner.ts";
import { typeErrors, typeProblemLines, type TypeProblem } from "./type-problems.ts";
import { causes, progressBar, reasonOf, stepLines } from "./progress.ts";
import { nextStep, type StepReport, type StepStatus } from "./status.ts";
import { exercisesDir, guideLink, whereInBook, type Step } from "../steps.ts";

export interface Screen {
  readonly reports: readonly StepReport[];
  /** Steps that turned green on this save, said once above the step on screen. */
  readonly passedNow?: readonly Step[];
  /** Steps that passed before this save and fail now: a change for one step broke another. */
  readonly brokenNow?: readonly Step[];
  readonly hint?: string;
  /** The list is open (key l), this step under the cursor: ↑/↓ move it, Enter shows that step. */
  readonly cursor?: string;
  readonly tookMs?: number;
  readonly running?: boolean;
  /** The steps after the current one are still being checked. */
  readonly checking?: boolean;
  /** The step to show (the focused one, `npm run watch -- 05.6`); by default the first not passing. */
  readonly current?: StepReport | undefined;
  /** The step on screen was asked for by name: it stays there when it passes, and n goes on in order. */
  readonly focused?: boolean;
  /** Ids of the steps whose state is from before: the last session, not yet checked again. */
  readonly lastKnown?: readonly string[];
  /** Key d: the demo on your code — asked too early, running, or what it printed. */
  readonly demo?: DemoRun | { readonly waiting: true } | { readonly running: true };
  /** The type errors of the current step's file, once checked (a step is done when its tests pass and it type-checks). */
  readonly types?: readonly TypeProblem[];
}

/** What `npm run demo -- --mine` printed and its exit code. */
export interface DemoRun {
  readonly code: number;
  readonly output: string;
}

const maxMessageLines = 12;
const maxDiffLines = 16;

export function renderScreen(screen: Screen): string {
  const { reports } = screen;
  const current = "current" in screen ? screen.current : nextStep(reports);
  const listed = screen.cursor !== undefined;
  const lines = [
    pc.bold("第 05 章 会话日志 · 专注模式 / Chapter 05 session log · watch"),
    `${current?.step.id ?? "✓"} ${progressBar(reports)}`,
    "",
    ...changedLines(screen, current),
  ];
  if (listed) lines.push(...listLines(screen));
  else if (current === undefined) {
    lines.push(pc.green(pc.bold("全部练习步骤都通过了，做得好！/ Every step passes. Well done!")));
    lines.push("和答案对照 / compare with the answers:", "  npm run compare -- <练习步骤 / step>");
  } else {
    lines.push(...currentStep(current, reports, (screen.lastKnown ?? []).includes(current.step.id), screen.types));
    if (screen.focused === true && current.status.kind === "passed") lines.push("", ...stayLines(nextStep(reports)));
  }
  if (screen.hint !== undefined && !listed) lines.push("", screen.hint);
  if (screen.demo !== undefined && !listed) lines.push("", ...demoLines(screen.demo));
  // No-break spaces: the label, the number and its unit stay on one line however the screen is wrapped.
  const took = screen.tookMs === undefined ? "" : pc.dim(`   用时\u00a0/\u00a0took\u00a0${(screen.tookMs / 1000).toFixed(2)}\u00a0s`);
  const state =
    screen.running === true
      ? pc.yellow("运行中 / running …")
      : screen.checking === true
        ? pc.dim("正在检查练习步骤 / checking the steps …")
        : pc.dim("保存文件即重跑 / save a file to re-run");
  const next = screen.focused === true ? `${pc.bold("n")} 按顺序的下一个 / next · ` : "";
  const demo = `${pc.bold("d")} 用你的代码跑演示 / demo · `;
  lines.push("", `${state} · ${pc.bold("h")} 提示 / hint · ${pc.bold("l")} 列表 / list · ${next}${demo}${pc.bold("q")} 退出 / quit${took}`);
  return lines.join("\n");
}

/**
 * The screen fitted to the terminal: each line longer than `columns` broken at spaces (a Chinese character counts two columns, colour codes
 * none), its continuation indented as the line was: `ID_MISMATCH` stays whole. A run with no space wider
 * than the terminal (Chinese text) is left for the terminal to wrap, between characters.
 */
export function wrapAtSpaces(text: string, columns: number): string {
  return text
    .split("\n")
    .map((line) => {
      const indent = /^ */.exec(line)?.[0] ?? "";
      const wrapped = wrapAnsi(line.slice(indent.length), Math.max(10, columns - indent.length), { hard: false });
      // A line that fits is left exactly as it is (a code frame's marks keep their column).
      return wrapped.includes("\n") ? wrapped.replace(/^/gm, indent) : line;
    })
    .join("\n");
}

/** What the last save changed: the steps it turned green, and those it broke (whichever step is on screen). */
function changedLines(screen: Screen, current: StepReport | undefined): string[] {
  const lines: string[] = [];
  const onScreen = screen.cursor === undefined ? current?.step : undefined;
  for (const step of screen.passedNow ?? []) {
    lines.push(pc.green(pc.bold(`✓ 练习步骤 ${step.id} 通过！/ step ${step.id} passes!`)) + pc.green(` ${step.titleZh}`));
  }
  for (const step of screen.brokenNow ?? []) {
    // Passing tests with a file that does not type-check are not done, but they do not fail either.
    const mistyped = screen.reports.find((report) => report.step === step)?.status.kind === "mistyped";
    const what = mistyped
      ? `✗ 练习步骤 ${step.id} 原来通过，这次保存后测试仍都通过，但文件有类型错误 / step ${step.id} passed before this save; its tests still pass, but its file now has type errors`
      : `✗ 练习步骤 ${step.id} 原来通过，这次保存后不通过了 / step ${step.id} passed before this save and fails now`;
    lines.push(
      pc.red(pc.bold(what)) +
        pc.red(` ${step.titleZh}`) +
        // Its first failure is below when it is the step on screen; otherwise the list (l) leads to it.
        (step === onScreen
          ? ""
          : pc.dim(" — 按 l 打开列表，选中它，看它第一个失败的测试 / pick it in the list (l) to see its first failure")),
    );
  }
  return lines.length === 0 ? [] : [...lines, ""];
}

/** Key l: every step as the last run found it, one under the cursor to pick. */
function listLines({ reports, cursor, lastKnown = [] }: Screen): string[] {
  const lines = [
    pc.bold("全部练习步骤 / every step"),
    pc.dim("↑/↓ 选择，回车打开这个练习步骤，l 关上列表 / ↑/↓ choose, Enter open that step, l close the list"),
    "",
  ];
  for (const report of reports) {
    const { status } = report;
    const readable = status.kind === "broken" ? { ...report, status: { ...status, message: loadError(status.message) } } : report;
    const [first = "", ...rest] = stepLines(readable, reports);
    const known = lastKnown.includes(report.step.id) ? pc.dim("  （上次的结果，正在重新检查 / last known, checking again …）") : "";
    const picked = report.step.id === cursor;
    lines.push((picked ? pc.cyan(pc.bold("▶")) + first.slice(1) : first) + known, ...rest);
  }
  return lines;
}

/** Under a step asked for by name that passes: it stays, and what the learner can do next. */
function stayLines(next: StepReport | undefined): string[] {
  const go =
    next === undefined
      ? "全部练习步骤都通过了 / every step passes"
      : `按顺序的下一个没通过的练习步骤是 ${next.step.id}，按 n 过去 / the next step not passing is ${next.step.id}: press n`;
  return [
    pc.dim("这个练习步骤留在屏幕上，直到你换一个 / this step stays on screen until you move on"),
    `${go} · l 选一个练习步骤 / l pick a step`,
  ];
}

function currentStep(
  { step, status }: StepReport,
  reports: readonly StepReport[],
  lastKnown: boolean,
  types: readonly TypeProblem[] | undefined,
): string[] {
  const challenge = step.kind === "challenge" ? pc.magenta("挑战 / challenge · ") : "";
  const lines = [
    pc.bold(`练习步骤 ${step.id} — ${challenge}${step.titleZh}`),
    pc.dim(`${step.title} · ${whereInBook(step)}`),
    `文件 / file:   ${shown(path.join(exercisesDir, step.file))}`,
    `测试 / tests:  ${shown(path.join(exercisesDir, step.test))}`,
    "",
    verdict(status, step, reports) + (lastKnown ? pc.dim("  （上次的结果，正在重新检查 / last known, checking again …）") : ""),
  ];
  if (status.kind === "failing" || status.kind === "not-started" || status.kind === "hung") {
    const { first } = status;
    lines.push(pc.bold("第一个失败 / first failure: ") + visible(first.name));
    const reason = reasonOf(first);
    if (reason !== undefined) lines.push(...visibleLines(reason, maxMessageLines).map((line) => `  ${pc.red(line)}`));
    // vitest may colour its diff: those colours go, and anything else the diff quotes is shown, not obeyed.
    const diff = first.diff === undefined ? undefined : stripVTControlCharacters(first.diff);
    if (diff !== undefined) lines.push(...visibleLines(diff, maxDiffLines).map((line) => `  ${line}`));
    if (first.at !== undefined) lines.push(`  ${pc.dim("在 / at")} ${pc.cyan(visible(first.at))}`);
    // No file of yours on the stack (a value came back wrong): the test's line that checks it.
    else if (first.testAt !== undefined) {
      lines.push(`  ${pc.dim("测试在 / test at")} ${pc.cyan(visible(first.testAt.where))}`);
      if (first.testAt.code !== "") lines.push(`    ${pc.dim(visible(first.testAt.code))}`);
    }
  }
  if (status.kind === "broken") lines.push(...visibleLines(loadError(status.message), maxMessageLines).map((line) => `  ${pc.red(line)}`));
  const problems = status.kind === "mistyped" ? status.problems : types;
  if (problems !== undefined && problems.length > 0) {
    if (status.kind !== "mistyped") lines.push(pc.bold(`类型错误（${problems.length} 个）/ type errors (${problems.length}):`));
    lines.push(...typeProblemLines(problems).map((line) => `  ${pc.red(visible(line))}`));
  }
  lines.push("", `说明 / guide:  ${guideLink(step)}`);
  return lines;
}

const demoHead = 3; // the banner: which files are yours
const demoTail = 22; // ④ and whatever went wrong

/** The demo's first lines and its last ones, where ④ and any explanation are. */
function demoLines(demo: NonNullable<Screen["demo"]>): string[] {
  const title = pc.bold("演示：用你的代码 / the demo on your code (npm run demo -- --mine)");
  if ("waiting" in demo) return [title, pc.yellow("先让一个练习步骤通过，再按 d / turn a step green first, then press d")];
  if ("running" in demo) return [title, pc.yellow("运行中 / running …")];
  const lines = demo.output.split("\n");
  const skipped = lines.length - demoHead - demoTail;
  const kept =
    skipped <= 0
      ? lines
      : [...lines.slice(0, demoHead), pc.dim(`  …省略了 ${skipped} 行 / ${skipped} more lines`), ...lines.slice(-demoTail)];
  const end =
    demo.code === 0
      ? pc.green("演示正常结束 / the demo ended well")
      : pc.red(`演示以退出码 ${demo.code} 结束 / the demo exited with ${demo.code}`);
  return [title, ...kept, end];
}

function verdict(status: StepStatus, step: Step, reports: readonly StepReport[]): string {
  switch (status.kind) {
    case "passed":
      return pc.green(`✓ 通过 / passed (${status.total})`);
    case "failing": {
      // Of the failures, those that stop at another step's stub are not this step's code: say how many.
      const on = status.waitsOn ?? [];
      const [zh, en] =
        status.waiting === undefined
          ? ["", ""]
          : [`，其中 ${status.waiting} 个在等 ${on.join("、")}`, ` (${status.waiting} of them wait for ${on.join(", ")})`];
      return pc.red(`✗ ${status.failing}/${status.total} 个测试失败${zh} / ${status.failing} of ${status.total} failing${en}`);
    }
    case "not-started":
      return pc.dim(`· 还没开始：${status.total} 个测试都停在桩上 / not started: all ${status.total} tests stop at a stub`);
    case "waiting": {
      const on = causes(status.waitsOn, reports, step.id);
      return pc.yellow(
        `… 你这一步自己的部分都通过了；另有 ${status.failing}/${status.total} 个测试在等 ${on.join("、")} / your own part passes; ${status.failing} of ${status.total} tests wait for ${on.join(", ")}`,
      );
    }
    case "broken":
      return pc.red("✗ 测试无法运行 / the tests could not run:");
    case "hung":
      return pc.red("✗ 一个测试卡住了，已停止 / a test hung and was stopped");
    case "mistyped":
      return pc.red(
        `✗ ${status.total} 个测试都通过了，但文件有 ${status.problems.length} 个类型错误（CI 也检查类型）/ all ${status.total} tests pass, but the file has ${typeErrors(status.problems.length)} (CI checks types too)`,
      );
    case "missing":
      return pc.yellow("? 找不到测试文件 / test file not found");
    case "unchecked":
      return pc.dim("正在检查 / checking …");
  }
}

/** At most `max` lines of a failure's text, each made visible: it quotes values from code and data. */
function visibleLines(text: string, max: number): string[] {
  const lines = text
    .replace(/\s+$/, "")
    .split("\n")
    .map((line) => visible(line));
  return lines.length <= max
    ? lines
    : [...lines.slice(0, max), pc.dim(`…省略了 ${lines.length - max} 行 / ${lines.length - max} more lines`)];
}
