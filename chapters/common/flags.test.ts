// The flag table's usage errors: the Chinese says the same mistake the English does, and what to do.
import { describe, expect, test } from "vitest";
import { readFlags, type Command, type Flags } from "./flags.ts";

const COMMAND = {
  usage: ["npm run demo -- [flags]"],
  flags: {
    save: { type: "string", value: "<file>", help: "保存 / save" },
    offline: { type: "boolean", help: "离线 / offline" },
  },
} as const satisfies Command<Flags>;

/** The first line of the usage error that `argv` gets, and the exit code. */
function firstError(argv: string[]): { code: number | object; line: string | undefined } {
  const err: string[] = [];
  const code = readFlags(argv, COMMAND, { out: () => {}, err: (line) => err.push(line) });
  return { code, line: err[0]?.split("\n")[0] };
}

describe("a wrong value is told as the mistake it is, in Chinese as in English", () => {
  test.each([
    [["--save"], "用法错误：选项 --save 后面缺了它的值，见下 / Usage error: Option '--save <value>' argument missing"],
    [
      ["--offline=yes"],
      "用法错误：选项 --offline 不带值：去掉 = 和它后面的部分 / Usage error: Option '--offline' does not take an argument",
    ],
    [
      ["--save", "--offline"],
      "用法错误：选项 --save 后面紧跟着另一个选项，是不是忘了写 --save 的值？值本身以 - 开头时写成 --save=-值 / Usage error: Option '--save' argument is ambiguous.",
    ],
  ])("%j", (argv, said) => {
    expect(firstError(argv)).toEqual({ code: 2, line: said });
  });
});
