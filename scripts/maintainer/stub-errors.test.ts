// The guide promises that every stub throws the same NotImplementedError until it is replaced. A stub
// that writes an argument into its message breaks that promise for the very arguments a test passes on
// purpose: a Symbol cannot become text, and an array 5,000 levels deep overflows on the way.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { exercisesDir, shippedStubsDir } from "../steps.ts";
import { NotImplementedError } from "../../exercises/05-session-log/todo.ts";

/**
 * A shipped stub, loaded as it runs in the learner's folder: its relative imports resolve from there
 * (as vitest.config.ts's stand-in does for the stubs project), so it gets the learner folder's todo.ts.
 * The copy goes to the test's folder, `dir`.
 */
async function shippedStub(dir: string, file: string): Promise<Record<string, unknown>> {
  const source = readFileSync(path.join(shippedStubsDir, file), "utf8");
  const rooted = source.replace(/(from\s+")(\.{1,2}\/[^"]+)"/gu, (_, from: string, relative: string) => {
    return `${from}${path.resolve(exercisesDir, relative)}"`;
  });
  const copy = path.join(dir, file);
  writeFileSync(copy, rooted);
  return import(copy);
}

const deepArray = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}0${"]".repeat(levels)}`);

describe("a shipped stub throws NotImplementedError whatever it is given", () => {
  test.for([
    ["a symbol", Symbol("user/message")],
    ["an array nested 5,000 levels deep", deepArray(5_000)],
    ["a bigint", 1n],
    ["undefined", undefined],
  ] as const)("05.2 Session.append with a type that is %s", async ([, type], { dir }) => {
    const { Session } = (await shippedStub(dir, "session.ts")) as {
      Session: new () => { append: (type: unknown, data: unknown) => unknown };
    };
    expect(() => new Session().append(type, { content: "hi" })).toThrow(NotImplementedError);
  });
});
