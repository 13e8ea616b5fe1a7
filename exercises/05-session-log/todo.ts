// Every stub in this folder calls `todo(...)` until you replace its body. The error says which step
// you are on and where its instructions are, so a red test always tells you what to do next.
// (This file is also where the workbook's tools learn that format: they import it.)
import { readFileSync } from "node:fs";
import { parse } from "smol-toml";

/** The guide's anchor for a step: each step's section in README.md opens with `<a id="step-05-3"></a>`. */
export function guideAnchor(step: string): string {
  return `step-${step.replaceAll(".", "-")}`;
}

/** `练习步骤 05.2（Session：append、events、subscribe）`: the step's id, and its Chinese title when it has one. */
function stepInChinese(step: string): string {
  titles ??= readTitles();
  const title = titles.get(step);
  return title === undefined ? `练习步骤 ${step} ` : `练习步骤 ${step}（${title}）`;
}

let titles: ReadonlyMap<string, string> | undefined;

/**
 * Each step's Chinese title, from the workbook's step list (steps.toml, at its root), read when a stub
 * first throws rather than when it is imported. Only the titles are read here: the tools read the
 * whole list, and check it (scripts/steps.ts).
 */
function readTitles(): ReadonlyMap<string, string> {
  const entries: unknown = parse(readFileSync(new URL("../../steps.toml", import.meta.url), "utf8")).step;
  return new Map((entries as readonly { id: string; titleZh: string }[]).map(({ id, titleZh }) => [id, titleZh]));
}

const opening = "not implemented yet — step ";

export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
  // No own fields besides the message: the test report prints an error's fields after its stack,
  // where they would be the last, least useful thing a learner sees.
  // Chinese first, English beside (GLOSSARY.md), each half saying what to write; each command ends its
  // line, so a copy takes no punctuation.
  constructor(step: string, whatZh: string, what: string) {
    super(
      `${stepInChinese(step)}还没实现：${whatZh} / ${opening}${step}: ${what}\n` +
        `  做法见指南 / instructions: exercises/05-session-log/README.md#${guideAnchor(step)}\n` +
        `  卡住了就运行 / stuck? npm run hint -- ${step}`,
    );
  }
}

/** `todo("05.3", "deriveMessages：把 3 条事件投影成…", "deriveMessages: project 3 events…")`: what to write, in Chinese and in English. */
export function todo(step: string, whatZh: string, what: string): never {
  const error = new NotImplementedError(step, whatZh, what);
  // Start the stack trace at the stub that called todo(), so the test report points at your file.
  Error.captureStackTrace(error, todo);
  throw error;
}

/** The step whose stub threw, when `message` is a NotImplementedError's message (test reports keep only the text). */
export function stubStepOf(message: string): string | undefined {
  const at = message.indexOf(opening);
  if (at === -1) return undefined;
  const rest = message.slice(at + opening.length);
  const end = rest.indexOf(":");
  return end > 0 ? rest.slice(0, end) : undefined;
}
