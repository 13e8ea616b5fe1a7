// For the tests that expect an error of one class. `expect(act).toThrow(SomeError)` would say only
// "expected error to be instance of SomeError" when your code throws something else (a TypeError from a
// slip, a stub's NotImplementedError), clip its message, and not say where. Here the failure says, Chinese
// first, which rule broke, the class it wanted and the file that defines it, and what your code threw in
// full; your error rides along as its cause, so the report (npm run watch's too) shows the file and line
// it was thrown from. Nothing to change here.
import { inspect } from "node:util";

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** Where each error class the tests expect is defined (JavaScript's own, such as TypeError, are not listed). */
const homes: Readonly<Record<string, string>> = {
  JsonValueError: "chapters/05-session-log/json-value.ts",
  EventDataError: "chapters/05-session-log/event-schemas.ts",
  ReplayError: "chapters/05-session-log/session-types.ts",
  AgentRunError: "chapters/05-session-log/loop-types.ts",
  StreamAssemblyError: "chapters/05-session-log/loop-types.ts",
  LogFileError: "chapters/05-session-log/disk/log-file-types.ts",
  LogMemoryError: "chapters/05-session-log/disk/log-file-types.ts",
  LogWriteError: "chapters/05-session-log/disk/log-file-types.ts",
  NotThisLogError: "chapters/05-session-log/disk/log-file-types.ts",
  RepairError: "chapters/05-session-log/disk/log-file-types.ts",
  RedactionError: "exercises/05-session-log/given/redaction.ts",
  UsageError: "exercises/05-session-log/given/usage-view.ts",
};

/** The file that defines the error class `name`, or undefined for JavaScript's own and for one not listed. */
export function homeOf(name: string): string | undefined {
  return homes[name];
}

/** What `act` threw, when it is an `expected`; otherwise a failed test saying what was thrown instead, and where. */
export function thrownAs<E extends Error>(expected: ErrorClass<E>, act: () => unknown, hint?: string): E {
  try {
    act();
  } catch (error) {
    return checked(expected, error, hint, thrownAs);
  }
  throw failure(sentence(expected, hint, ["却什么都没抛出", " to be thrown, but nothing was"]), thrownAs);
}

/** What `promise` rejected with, when it is an `expected`; otherwise a failed test, as thrownAs says it. */
export async function rejectedAs<E extends Error>(expected: ErrorClass<E>, promise: Promise<unknown>, hint?: string): Promise<E> {
  let rejection: { readonly error: unknown } | undefined;
  await promise.then(
    () => undefined,
    (error: unknown) => {
      rejection = { error };
    },
  );
  if (rejection === undefined) {
    throw failure(sentence(expected, hint, ["却正常完成了，没有拒绝", " to be the rejection, but it resolved"]), rejectedAs);
  }
  return checked(expected, rejection.error, hint, rejectedAs);
}

/** `error` (caught already), when it is an `expected`; otherwise a failed test, as thrownAs says it. */
export function caughtAs<E extends Error>(expected: ErrorClass<E>, error: unknown, hint?: string): E {
  return checked(expected, error, hint, caughtAs);
}

type Caller = (...args: never[]) => unknown;

function checked<E extends Error>(expected: ErrorClass<E>, error: unknown, hint: string | undefined, from: Caller): E {
  if (error instanceof expected) return error;
  const outcome: readonly [string, string] =
    error instanceof Error
      ? [`你的代码却抛出了 ${error.name}`, `, but your code threw ${error.name}`]
      : ["你的代码抛出的却不是 Error", ", but your code threw a value that is not an Error"];
  // All of what was thrown, every line: the part saying what was expected and what came is often at the end.
  const whole = error instanceof Error ? `${error.name}: ${error.message}` : inspect(error);
  throw failure(`${sentence(expected, hint, outcome)}\n${whole.replace(/^/gmu, "  ")}`, from, error);
}

/** "rule：应当抛出 X（定义在 file），… / rule: expected X (defined in file) …" */
function sentence(expected: { readonly name: string }, hint: string | undefined, [outcome, outcomeEn]: readonly [string, string]): string {
  const split = hint?.indexOf(" / ") ?? -1;
  const [rule, ruleEn] = hint === undefined ? ["", ""] : split === -1 ? [hint, hint] : [hint.slice(0, split), hint.slice(split + 3)];
  const [where, whereEn] = placeOf(expected);
  return (
    `${rule === "" ? "" : `${rule}：`}应当抛出 ${expected.name}${where}，${outcome} / ` +
    `${ruleEn === "" ? "" : `${ruleEn}: `}expected ${expected.name}${whereEn}${outcomeEn}`
  );
}

/** "（定义在 file）", "（JavaScript 自带的错误类）", or nothing for a class neither in the table nor JavaScript's own. */
function placeOf(expected: { readonly name: string }): readonly [string, string] {
  const home = homeOf(expected.name);
  if (home !== undefined) return [`（定义在 ${home}）`, ` (defined in ${home})`];
  const own = (globalThis as Record<string, unknown>)[expected.name] === expected;
  return own ? ["（JavaScript 自带的错误类）", " (JavaScript's own error class)"] : ["", ""];
}

/**
 * The failed test's error, the learner's error kept as its cause. Its stack starts at the test's line, not in
 * this file: the first file of yours in a report is then where your code threw.
 */
function failure(message: string, from: Caller, cause?: unknown): Error {
  const error = cause === undefined ? new Error(message) : new Error(message, { cause });
  Error.captureStackTrace(error, from);
  return error;
}
