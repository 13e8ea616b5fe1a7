// What --mine says when one of the learner's files throws, in process: which files are the learner's
// comes from WORKBOOK_YOUR_FILES in the environment each call is given (the real throw while a file is
// imported is in scripts/learner/mine.test.ts).
import path from "node:path";
import { describe, expect, test } from "vitest";
import { YOUR_FILES, type YourFile } from "./mine.ts";
import { explainYourThrow, tellYourThrow } from "./your-throw.ts";

const dir = path.join(process.cwd(), "exercises/05-session-log");
const file = (name: string, steps: string[]): YourFile => ({ file: name, steps, path: path.join(dir, name) });
const json = file("json.ts", ["05.1"]);
const env = { [YOUR_FILES]: JSON.stringify([json, file("session.ts", ["05.2", "05.4"]), file("agent-loop.ts", ["05.5"])]) };

describe("--mine: a throw from your code, told in one sentence", () => {
  test("a throw in a file that only checks what it was given shows your frames from the caller down: agent-loop.ts → session.ts → json.ts", () => {
    const error = new Error("$.reasoning_content: undefined is not JSON");
    error.name = "JsonValueError";
    error.stack = [
      `${error.name}: ${error.message}`,
      `    at walk (${dir}/json.ts:46:13)`,
      `    at freezeJson (${dir}/json.ts:30:10)`,
      `    at Session.append (${dir}/session.ts:90:7)`,
      "    at Object.chat (/repo/chapters/common/deepseek.ts:12:3)",
      `    at runStep (${dir}/agent-loop.ts:61:11)`,
      `    at runAgent (${dir}/agent-loop.ts:40:5)`,
    ].join("\n");
    const told = explainYourThrow(error, "demo", env);
    expect(told?.lines[0]).toBe("你的 json.ts（练习步骤 05.1）在演示里抛出了错误，位置：exercises/05-session-log/json.ts:46:13");
    expect(told?.lines[2]).toBe("  JsonValueError: $.reasoning_content: undefined is not JSON");
    expect(told?.lines[3]).toBe(
      "经过你的文件，从调用方到抛出处 / through your files, from the caller down: " +
        "exercises/05-session-log/agent-loop.ts:61:11 → exercises/05-session-log/session.ts:90:7 → exercises/05-session-log/json.ts:46:13",
    );
  });

  test("a throw with one frame of yours says where, with no path to follow", () => {
    const error = new RangeError("step 2");
    error.stack = `RangeError: step 2\n    at streamReply (${dir}/agent-loop.ts:12:9)`;
    const lines = explainYourThrow(error, "view", env)?.lines ?? [];
    expect(lines[0]).toBe(
      "你的 agent-loop.ts（练习步骤 05.5）在 npm run view 里抛出了错误，位置：exercises/05-session-log/agent-loop.ts:12:9",
    );
    expect(lines.join("\n")).not.toContain("经过你的文件");
  });

  test("a value that is not an Error, thrown while a file of yours is imported: that file, no line, the value with its escapes shown", () => {
    const out: string[] = [];
    expect(tellYourThrow("\u001b]0;pwned\u0007", (line) => out.push(line), env, "load", json)).toBe(1);
    expect(out).toEqual([
      "\n=== 你的代码抛出了错误 / Your code threw ===",
      "  你的 json.ts（练习步骤 05.1）在加载时抛出了错误，位置不明（抛出的不是 Error，没有调用栈）",
      "  Your json.ts (step 05.1) threw while being loaded, at a line not known (what it threw is not an Error: it has no stack)",
      "    \\x1b]0;pwned\\x07",
      "  它的测试都通过了：这次运行走到了测试没走到的一条路。不用 --mine 运行，看答案怎么走这一步",
      "  Its tests pass: this run took a path they do not. Run without --mine to see the answer take it",
    ]);
    expect(explainYourThrow({ code: 42 }, "load", env, json)?.lines[2]).toBe("  { code: 42 }");
  });

  test("an Error thrown while a file of yours is imported, with none of your lines on its stack: that file, no line, and why", () => {
    const error = new SyntaxError("Unexpected token");
    error.stack = "SyntaxError: Unexpected token\n    at load (/repo/node_modules/tsx/dist/loader.mjs:1:1)";
    expect(explainYourThrow(error, "load", env, json)?.lines.slice(0, 2)).toEqual([
      "你的 json.ts（练习步骤 05.1）在加载时抛出了错误，位置不明（调用栈上没有你的文件）",
      "Your json.ts (step 05.1) threw while being loaded, at a line not known (no line of your files is on its stack)",
    ]);
  });

  test("a throw that is not from your code is not yours to tell: it is thrown on", () => {
    const error = new Error("elsewhere");
    error.stack = "Error: elsewhere\n    at x (/repo/chapters/05-session-log/session.ts:1:1)";
    expect(explainYourThrow(error, "demo", env)).toBeUndefined();
    expect(() => tellYourThrow("a string", () => {}, env)).toThrow();
  });
});
