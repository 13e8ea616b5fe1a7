// For the tests that expect an error of one class. `expect(act).toThrow(SomeError)` would say only
// "expected error to be instance of SomeError" when your code throws something else (a TypeError from a
// slip, a stub's NotImplementedError), and not where. Here the failure carries your error as its cause,
// so the report (npm run watch's too) shows the file and line it was thrown from. Nothing to change here.

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** What `act` threw, when it is an `expected`; otherwise a failed test saying what was thrown instead, and where. */
export function thrownAs<E extends Error>(expected: ErrorClass<E>, act: () => unknown, hint?: string): E {
  const rule = hint === undefined ? "" : `${hint}: `;
  let failure: Error;
  try {
    act();
    failure = new Error(`${rule}应当抛出 ${expected.name}，却什么都没抛出 / expected ${expected.name} to be thrown, but nothing was`);
  } catch (error) {
    if (error instanceof expected) return error;
    const what = error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
    const message = `${rule}应当抛出 ${expected.name}，你的代码却抛出了 ${what} / expected ${expected.name}, but your code threw ${what}`;
    failure = new Error(message, { cause: error });
  }
  // The failure starts at the test's line, not here: the first file of yours in a report is then where your code threw.
  Error.captureStackTrace(failure, thrownAs);
  throw failure;
}
