// Every stub in this folder calls `todo(...)` until you replace its body. The error says which step
// you are on and where its instructions are, so a red test always tells you what to do next.
// (This file is also where the workbook's tools learn that format: they import it, it imports nothing.)

/** The guide's anchor for a step: each step's section in README.md opens with `<a id="step-05-3"></a>`. */
export function guideAnchor(step: string): string {
  return `step-${step.replaceAll(".", "-")}`;
}

const opening = "not implemented yet — step ";

export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
  // No own fields besides the message: the test report prints an error's fields after its stack,
  // where they would be the last, least useful thing a learner sees.
  // Chinese first, English beside (GLOSSARY.md); each command ends its line, so a copy takes no punctuation.
  constructor(step: string, what: string) {
    super(
      `练习步骤 ${step} 还没实现 / ${opening}${step}: ${what}\n` +
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
