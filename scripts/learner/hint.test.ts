import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { hintCommand, hintStateFile, readHintState, revealNext } from "./hint.ts";
import { FlagsAnswer, UsageError } from "../command.ts";
import { shippedStubsDir, steps } from "../steps.ts";

let stateDir: string;
let stateFile: string;
test.beforeEach(({ dir }) => {
  stateDir = dir;
  stateFile = hintStateFile({ WORKBOOK_STATE_DIR: stateDir });
});

const threeHints = { "05.3": ["first nudge", "second nudge", "the code shape"] };
const hint = (...argv: string[]) => plain(hintCommand(argv, { stateFile, hints: threeHints }));

describe("npm run hint", () => {
  test("WORKBOOK_STATE_DIR moves the state file", () => {
    expect(stateFile).toBe(path.join(stateDir, "hints.json"));
  });

  test("revealNext counts up to the last hint and stays there", () => {
    let state = {};
    const shown: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = revealNext(state, "05.3", 3);
      state = next.state;
      shown.push(next.shown);
    }
    expect(shown).toEqual([1, 2, 3, 3, 3]);
  });

  test("each call reveals one more hint and remembers it in the state file", () => {
    const first = hint("05.3");
    expect(first).toContain("提示 1/3 / hint 1 of 3: first nudge");
    expect(first).not.toContain("second nudge");
    expect(first).toContain("still stuck? Run it again for hint 2:\n  npm run hint -- 05.3");

    const second = hint("05.3");
    expect(second).toContain("hint 2 of 3: second nudge");
    expect(second, "earlier hints are not repeated").not.toContain("first nudge");
    expect(second).toContain("hint 1 is not repeated; every hint you have seen:\n  npm run hint -- 05.3 --all");
    expect(second).not.toContain("the code shape");
    expect(JSON.parse(readFileSync(stateFile, "utf8"))).toEqual({ "05.3": 2 });
  });

  test("--all reprints every hint seen so far without revealing another", () => {
    hint("05.3");
    hint("05.3");
    const all = hint("05.3", "--all");
    expect(all).toContain("hint 1 of 3: first nudge");
    expect(all).toContain("hint 2 of 3: second nudge");
    expect(all).not.toContain("the code shape");
    expect(readHintState(stateFile)).toEqual({ "05.3": 2 });
  });

  test("inside npm run watch, the next hint is a key press away", () => {
    const inWatch = plain(hintCommand(["05.3"], { stateFile, hints: threeHints, inWatch: true }));
    expect(inWatch).toContain("Press h again for hint 2.");
    expect(inWatch).not.toContain("npm run hint -- 05.3");
  });

  test("after the last hint it says so and points at npm run compare", () => {
    hint("05.3");
    hint("05.3");
    for (const output of [hint("05.3"), hint("05.3")]) {
      expect(output).toContain("hint 3 of 3: the code shape");
      expect(output).toContain("that was the last hint for 05.3");
      expect(output).toContain("See the answer beside your code:\n  npm run compare -- 05.3");
    }
  });

  test("--reset forgets one step, or every step without an id", () => {
    const two = { "05.1": ["a", "b"], "05.3": ["c", "d"] };
    const run = (...argv: string[]) => plain(hintCommand(argv, { stateFile, hints: two }));
    run("05.1");
    run("05.3");
    run("05.3");
    expect(run("05.3", "--reset")).toBe(
      "已忘掉 05.3 看过的提示，下次从提示 1 开始 / Forgot the hints of 05.3: the next one is hint 1 again:\n  npm run hint -- 05.3",
    );
    expect(readHintState(stateFile)).toEqual({ "05.1": 1 });
    expect(run("05.3")).not.toContain("hint 2 of 2");
    expect(run("--reset")).toMatch(/^已忘掉全部练习步骤看过的提示，每一步都从提示 1 重新开始 \/ Forgot the hints of every step/);
    expect(readHintState(stateFile)).toEqual({});
  });

  test("a step with no hints yet says where to read instead, Chinese first, the command on its own line", () => {
    expect(plain(hintCommand(["05.3"], { stateFile, hints: { "05.3": [] } }))).toBe(
      "05.3 还没有提示：读 exercises/05-session-log/README.md#step-05-3，或者把你的代码和答案对照 / " +
        "No hints for 05.3 yet. Read exercises/05-session-log/README.md#step-05-3, or compare with the answer:\n  npm run compare -- 05.3",
    );
  });

  test("an unknown step is a UsageError that lists the valid ids", () => {
    expect(() => hint("5.3")).toThrow(UsageError);
    expect(() => hint("5.3")).toThrow(`没有练习步骤 "5.3" / unknown step "5.3". 可选 / valid steps: ${steps.map((s) => s.id).join(", ")}`);
    expect(() => hint()).toThrow(/要做哪一个练习步骤？ \/ which step\?\n用法 \/ usage: npm run hint -- 05\.1\n/);
    expect(() => hint("05.3", "--loud")).toThrow(FlagsAnswer);
  });

  test("a corrupt state file counts as no hints seen", () => {
    writeFileSync(stateFile, "{ not json");
    expect(readHintState(stateFile)).toEqual({});
    expect(hint("05.3")).toContain("hint 1 of 3");
  });

  test("every step has 3–4 hints", () => {
    for (const step of steps) {
      expect(step.hints.length, `the hints of ${step.id} in steps.toml`).toBeGreaterThanOrEqual(3);
      expect(step.hints.length, `the hints of ${step.id} in steps.toml`).toBeLessThanOrEqual(4);
    }
  });
});

/** Code as compared: whitespace collapsed, a trailing `;`, `,` or `{` dropped. */
const normalise = (code: string) =>
  code
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[;,{]$/, "")
    .trim();

/**
 * The answer's lines a hint must not contain: code, at least 25 characters (shorter ones, like
 * `return null`, say nothing a learner would not write anyway), and not given anywhere in the
 * shipped stub (its signatures, or a tip in its comments).
 */
function answerLines(answer: string, stub: string): string[] {
  const given = normalise(stub);
  return answer
    .split("\n")
    .map(normalise)
    .filter((line) => line.length >= 25 && !/^(\/\/|\/?\*|import |export \* from)/.test(line) && !given.includes(line));
}

describe("hints teach, they do not paste the answer", () => {
  test("the check catches an answer line, however it is spaced", () => {
    const answer = "export function f(event) {\n  const { content, reasoning_content = null } = event.data;\n  return null;\n}\n";
    const lines = answerLines(answer, "export function f(event) {\n  return todo();\n}\n");
    expect(lines).toEqual(["const { content, reasoning_content = null } = event.data"]);
    expect(normalise("形状：\n  const { content,   reasoning_content = null } =\n event.data;")).toContain(lines[0]);
  });

  test.each(steps.map((step) => [step.id, step] as const))("no hint of %s contains a line of the answer's code", (_id, step) => {
    const answer = readFileSync(path.join(step.answerDir, step.file), "utf8");
    const stubFile = path.join(shippedStubsDir, step.file);
    const lines = answerLines(answer, existsSync(stubFile) ? readFileSync(stubFile, "utf8") : "");
    const pasted = step.hints.flatMap((hint, index) =>
      lines.filter((line) => normalise(hint).includes(line)).map((line) => `hint ${index + 1}: ${line}`),
    );
    expect(pasted, "describe the idea or the shape in words or pseudo-code instead").toEqual([]);
  });
});
