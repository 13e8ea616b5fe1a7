// Type errors in Chinese first: TypeScript's own zh-cn message for each English one it gives, filled with
// the same names and types. (The warm language service on a real learner file: watch-runner.test.ts.)
import { describe, expect, test } from "vitest";
import { inChinese } from "./typecheck.ts";
import { typeErrors, typeProblemLines } from "./type-problems.ts";

describe("type errors, Chinese first", () => {
  test("a message with arguments is read back into them and the Chinese template filled", () => {
    expect(inChinese(2322, "Type 'readonly ToolCall[]' is not assignable to type 'JsonObject'.")).toBe(
      "不能将类型“readonly ToolCall[]”分配给类型“JsonObject”。",
    );
    expect(inChinese(2339, "Property 'turn' does not exist on type '{ step: number; }'.")).toBe(
      "类型“{ step: number; }”上不存在属性“turn”。",
    );
  });

  test("a message without arguments is translated too; one that does not read back stays as TypeScript gave it", () => {
    expect(inChinese(1109, "Expression expected.")).toBe("应为表达式。");
    expect(inChinese(2322, "something else entirely")).toBe("something else entirely");
    expect(inChinese(999_999, "no such code")).toBe("no such code");
  });

  test("the lines printed: file:line:column and the code, then each message Chinese / English, indented as TypeScript nests them", () => {
    const problem = {
      file: "exercises/05-session-log/log-file.ts",
      line: 42,
      column: 7,
      code: 2322,
      zh: ["不能将类型“A”分配给类型“B”。", "  属性“x”的类型不兼容。"],
      en: ["Type 'A' is not assignable to type 'B'.", "  Types of property 'x' are incompatible."],
    };
    expect(typeProblemLines([problem, problem], 1)).toEqual([
      "exercises/05-session-log/log-file.ts:42:7  TS2322",
      "  不能将类型“A”分配给类型“B”。 / Type 'A' is not assignable to type 'B'.",
      "    属性“x”的类型不兼容。 / Types of property 'x' are incompatible.",
      "…还有 1 个类型错误 / 1 more type error",
    ]);
    expect(typeErrors(2)).toBe("2 type errors");
  });
});
