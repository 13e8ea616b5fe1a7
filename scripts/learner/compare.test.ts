import { writeFileSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { compareCommand, compareStep, filesOf, memberDiff } from "./compare.ts";
import { UsageError } from "../command.ts";
import { helpersOf, membersOf, stepMembers } from "./members.ts";
import { findStep } from "../steps.ts";

/** Writes `text` to `dir/name`. */
function file(dir: string, name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

const stub = [
  "// Step 05.3 — a long header a learner has already read.",
  'import { todo } from "./todo.ts";',
  'export * from "./given.ts";',
  "export function given(): number {",
  "  return 1;",
  "}",
  "/** Yours to write. */",
  "export function mine(event: string): string | null {",
  '  return todo("05.3", "mine");',
  "}",
  "export class Log {",
  "  get size(): number {",
  '    return todo("05.3", "size");',
  "  }",
  "  other(): void {",
  '    return todo("05.4", "other");',
  "  }",
  "}",
  "/** TODO(p2): fill it in. */",
  "export const schemas = {};",
  "",
].join("\n");

const answer = [
  'import { z } from "zod";',
  "export function given(): number {",
  "  return 1;",
  "}",
  "export function mine(event: string): string | null {",
  "  return helper(event);",
  "}",
  "function helper(event: string): string {",
  "  return deeper(event).trim();",
  "}",
  "function deeper(event: string): string {",
  "  return event;",
  "}",
  "function unused(): void {}",
  "export class Log {",
  "  readonly #items: string[] = [];",
  "  get size(): number {",
  "    return this.#items.length;",
  "  }",
  "}",
  "",
].join("\n");

const step = { ...findStep("05.3")! };

describe("npm run compare: the parts you write", () => {
  test("members: top-level definitions and class members by name, a getter by its name", () => {
    expect(membersOf(stub).map((member) => member.key)).toEqual(["given", "mine", "Log.size", "Log.other", "schemas"]);
    expect(membersOf(answer).map((member) => member.key)).toContain("Log.#items");
  });

  test("a step's members are those whose body calls todo with its id, or whose comment says TODO(id)", () => {
    const members = membersOf(stub);
    expect(stepMembers(members, "05.3").map((member) => member.key)).toEqual(["mine", "Log.size"]);
    expect(stepMembers(members, "05.4").map((member) => member.key)).toEqual(["Log.other"]);
    expect(stepMembers(members, "p2").map((member) => member.key)).toEqual(["schemas"]);
  });

  test("a todo call the formatter broke across lines marks its member too (05.7's parseLogText)", () => {
    const broken = membersOf(
      ["export function parse(text: string): number {", "  return todo(", '    "05.7",', "    `parse ${text}`,", "  );", "}", ""].join(
        "\n",
      ),
    );
    expect(stepMembers(broken, "05.7").map((member) => member.key)).toEqual(["parse"]);
    expect(stepMembers(broken, "05.1"), "05.1 is not 05.7, and the dot is not a wildcard").toEqual([]);
    expect(stepMembers(membersOf('function f() {\n  return todo("0517", "x");\n}\n'), "05.1")).toEqual([]);
  });

  test("helpers: what the answer's members use, transitively, minus what the stub gives", () => {
    const answerMembers = membersOf(answer);
    const wanted = answerMembers.filter((member) => member.key === "mine" || member.key === "Log.size");
    expect(helpersOf(answerMembers, wanted, membersOf(stub)).map((member) => member.key)).toEqual(["helper", "deeper", "Log.#items"]);
  });

  test("shows only the step's members, each beside the answer's, and lists the helpers", ({ dir }) => {
    const files = {
      mine: file(dir, "mine.ts", stub),
      answer: file(dir, "answer.ts", answer),
      shippedStub: file(dir, "stub.ts", stub),
    };
    const text = plain(compareStep(step, files));
    expect(text).toContain("── mine (");
    expect(text).toContain("── Log.size (");
    expect(text).toContain('-  return todo("05.3", "mine");');
    expect(text).toContain("+  return helper(event);");
    expect(text).toContain(" export function mine(event: string): string | null {");
    for (const absent of ["long header", "import", "export *", "given()", "Log.other", "unused"]) expect(text).not.toContain(absent);
    expect(text).toMatch(/ {2}helper +.*answer\.ts:8\n/);
    expect(text).not.toContain("return deeper(event).trim();");
    expect(plain(compareStep(step, files, true)), "--helpers prints their code").toContain("return deeper(event).trim();");
  });

  test("a member written like the answer is said to be the same; one missing from your file shows the answer's", ({ dir }) => {
    const yours = stub
      .replace("/** Yours to write. */\n", "")
      .replace('return todo("05.3", "mine");', "return helper(event);")
      .replace(/ {2}get size[^}]*}\n/, "");
    const files = {
      mine: file(dir, "mine2.ts", yours),
      answer: file(dir, "answer2.ts", answer),
      shippedStub: file(dir, "stub2.ts", stub),
    };
    const text = plain(compareStep(step, files));
    expect(text).toMatch(/── mine \(.*\)\n✓ 与答案相同 \/ same as the answer\n/);
    expect(text).toContain("not in your file");
    expect(text).toContain("return this.#items.length;");
  });

  test("memberDiff: undefined for the same text, every line shown otherwise", () => {
    expect(memberDiff("a\nb", "a\nb")).toBeUndefined();
    expect(plain(memberDiff("a\nb\nc", "a\nB\nc") ?? "").split("\n")).toEqual([" a", "-b", "+B", " c"]);
  });

  test("memberDiff shows a stray escape character or carriage return in your file written out, not obeyed", () => {
    const diff = memberDiff('const s = "\x1b]0;x\x07";\r', 'const s = "";') ?? "";
    expect(diff).not.toContain("\x1b]0;");
    expect(plain(diff)).toContain('-const s = "\\x1b]0;x\\x07";\\r');
  });

  test("compare -- 05.1 on the untouched stub is short: no header, no imports", () => {
    const step51 = findStep("05.1")!;
    const files = { ...filesOf(step51), mine: filesOf(step51).shippedStub };
    const text = plain(compareStep(step51, files));
    expect(text.split("\n").length).toBeLessThan(60);
    expect(text).toContain("── freezeJson (");
    expect(text).not.toMatch(/^[-+ ]?import /m);
    expect(text).not.toContain("Step 05.1 — book");
  });

  test("only code is compared: the stub's doc comments and a header above the first member are not shown as yours (05.3, 05.7)", () => {
    for (const id of ["05.3", "05.7"]) {
      const untouched = findStep(id)!;
      const text = plain(compareStep(untouched, { ...filesOf(untouched), mine: filesOf(untouched).shippedStub }));
      const yours = text.split("\n").filter((line) => line.startsWith("-") && !line.startsWith("- 你的"));
      expect(yours.length, `${id}: the stub's todo() lines are yours`).toBeGreaterThan(0);
      for (const line of yours) expect(line, `${id}: a comment shown as yours`).not.toMatch(/^-\s*(\/\/|\/\*\*?|\*)/);
      expect(text).not.toContain("Given (chapters/05-session-log/disk/log-file-types.ts)");
    }
  });

  test("compare -- 05.1 shows the book's walk as the answer, not a quick path past the book (fast/)", () => {
    const step51 = findStep("05.1")!;
    const files = { ...filesOf(step51), mine: filesOf(step51).shippedStub };
    const text = plain(compareStep(step51, files, true));
    expect(text).toMatch(/^\+ {2}return freeze\(value, undefined, new Set\(\)\);$/m);
    expect(text).toMatch(/ {2}readContainer +chapters\/05-session-log\/json\.ts:\d+/);
    expect(text).not.toMatch(/copyPlainJson|freezeParsedJson|fast\//);
  });

  test("compare -- 05.8 follows the answer's re-export: the assembler is shown from stream-assembler.ts", () => {
    const step58 = findStep("05.8")!;
    const files = { ...filesOf(step58), mine: filesOf(step58).shippedStub };
    const text = plain(compareStep(step58, files));
    expect(text).toMatch(/── assembleReply \(.*streamed-step\.ts:\d+ · chapters\/05-session-log\/stream\/stream-assembler\.ts:\d+\)/);
    expect(text).not.toContain("the answer has no");
    expect(text).toMatch(/ {2}joinText +.*stream-assembler\.ts:\d+\n/);
  });

  test("a missing file or an unknown step is a UsageError", ({ dir }) => {
    const files = { mine: path.join(dir, "nope.ts"), answer: file(dir, "a3.ts", answer), shippedStub: file(dir, "s3.ts", stub) };
    expect(() => compareStep(step, files)).toThrow(UsageError);
    expect(() => compareCommand(["05.9"])).toThrow(/没有练习步骤 "05\.9" \/ unknown step "05\.9"\. 可选 \/ valid steps: 05\.1/);
    expect(() => compareCommand(["05.1", "--all"])).toThrow(
      /用法错误：没有 --all 这个选项，可用的选项见下 \/ Usage error: Unknown option '--all'/,
    );
  });
});
