// Every stub in this folder calls `todo(...)` until you replace its body. The error says which step
// you are on and where its instructions are, so a red test always tells you what to do next.
import { steps } from "../../scripts/steps.ts";

/** The heading of the step's section in the guide, e.g. "053-projection" or "练习2". */
function readmeAnchor(step: string): string {
  return steps.find((candidate) => candidate.id === step)?.readmeAnchor ?? "";
}

export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
  // No own fields besides the message: the test report prints an error's fields after its stack,
  // where they would be the last, least useful thing a learner sees.
  constructor(step: string, what: string) {
    super(
      `not implemented yet — step ${step}: ${what}. ` +
        `Instructions: exercises/05-session-log/README.md#${readmeAnchor(step)}; ` +
        `stuck? npm run hint -- ${step}`,
    );
  }
}

export function todo(step: string, what: string): never {
  const error = new NotImplementedError(step, what);
  // Start the stack trace at the stub that called todo(), so the test report points at your file.
  Error.captureStackTrace(error, todo);
  throw error;
}
