// Every stub in this folder calls `todo(...)` until you replace its body. The error says which step
// you are on and where its instructions are, so a red test always tells you what to do next.
// (This file is also where the workbook's tools learn that format: they import it, it imports nothing.)

/** The guide's anchor for a step: each step's section in README.md opens with `<a id="step-05-3"></a>`. */
export function guideAnchor(step: string): string {
  return `step-${step.replaceAll(".", "-")}`;
}

/**
 * Each step's title in Chinese, for the error's Chinese half (the step manifest, scripts/steps.ts,
 * takes its Chinese titles from here, so they are written once).
 */
export const STEP_TITLES_ZH = {
  "05.1": "freezeJson：校验、复制并深度冻结事件数据",
  "05.2": "Session：append、events、subscribe",
  "05.3": "投影：哪些事件变成消息",
  "05.4": "Session.fromLog：重放已保存的日志",
  "05.5": "runAgent：日志化的智能体循环",
  p2: "代码助手的检查与界面事件：记录、重放，但不进入模型",
  p3: "只追加日志上的遮蔽（redaction）",
  p4: "新的过程事件（model/usage）与成本面板的派生视图",
  "05.6": "增量投影：每个事件在提交时只投影一次",
  "05.7": "日志落盘：JSONL 订阅者、容忍撕裂尾行的读取、崩溃修复",
  "05.8": "流式分片：留存但不发送",
} as const;

/** `练习步骤 05.2（Session：append、events、subscribe）`: the step's id, and its Chinese title when it has one. */
function stepInChinese(step: string): string {
  const title = (STEP_TITLES_ZH as Readonly<Record<string, string>>)[step];
  return title === undefined ? `练习步骤 ${step} ` : `练习步骤 ${step}（${title}）`;
}

const opening = "not implemented yet — step ";

export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
  // No own fields besides the message: the test report prints an error's fields after its stack,
  // where they would be the last, least useful thing a learner sees.
  // Chinese first, English beside (GLOSSARY.md); each command ends its line, so a copy takes no punctuation.
  constructor(step: string, what: string) {
    super(
      `${stepInChinese(step)}还没实现 / ${opening}${step}: ${what}\n` +
        `  做法见指南 / instructions: exercises/05-session-log/README.md#${guideAnchor(step)}\n` +
        `  卡住了就运行 / stuck? npm run hint -- ${step}`,
    );
  }
}

export function todo(step: string, what: string): never {
  const error = new NotImplementedError(step, what);
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
