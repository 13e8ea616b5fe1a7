import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { colouredDiff, compareCommand, compareFiles, rebaseImports } from "./compare.ts";
import { UsageError } from "./learner.ts";

const dir = mkdtempSync(path.join(tmpdir(), "workbook-compare-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

describe("npm run compare", () => {
  test("identical files: says so, no diff", () => {
    const text = "export const answer = 42;\n";
    const result = compareFiles(file("mine.ts", text), file("answer.ts", text));
    expect(result.identical).toBe(true);
    expect(plain(result.text)).toMatch(/mine\.ts is identical to the answer .*answer\.ts\./);
    expect(colouredDiff(text, text, "a", "b")).toBeUndefined();
  });

  test("different files: a unified diff, - for yours, + for the answer", () => {
    const mine = file("mine2.ts", "line 1\nreturn todo();\nline 3\n");
    const answer = file("answer2.ts", "line 1\nreturn 42;\nline 3\n");
    const result = compareFiles(mine, answer);
    expect(result.identical).toBe(false);
    const lines = plain(result.text).split("\n");
    expect(lines[0]).toMatch(/^- .*mine2\.ts \(yours\) {3}\+ .*answer2\.ts \(the answer\)$/);
    expect(lines).toContain("@@ -1,3 +1,3 @@");
    expect(lines).toContain("-return todo();");
    expect(lines).toContain("+return 42;");
    expect(lines).toContain(" line 1");
  });

  test("the diff is coloured: red for yours, green for the answer", () => {
    const diff = colouredDiff("a\n", "b\n", "mine", "answer") ?? "";
    // picocolors may be switched off where there is no terminal; the plain text is the same either way.
    expect(plain(diff)).toContain("-a\n+b");
  });

  test("the answer's imports are rewritten as they would read from the learner's folder", () => {
    const chapter = "/repo/chapters/05-session-log";
    const learner = "/repo/exercises/05-session-log";
    const learnerFor = new Map([[`${chapter}/json.ts`, `${learner}/json.ts`]]);
    const source = [
      'import type { Message } from "../common/messages.ts";',
      'import { freezeJson } from "./json.ts";',
      'import { isEventOfType } from "./events.ts";',
      'import { z } from "zod";',
      'declare module "./events.ts" {}',
    ].join("\n");
    expect(rebaseImports(source, chapter, learner, learnerFor).split("\n")).toEqual([
      'import type { Message } from "../../chapters/common/messages.ts";',
      'import { freezeJson } from "./json.ts";', // a learner file of its own: the stubs import it so too
      'import { isEventOfType } from "../../chapters/05-session-log/events.ts";',
      'import { z } from "zod";',
      'declare module "../../chapters/05-session-log/events.ts" {}',
    ]);
    // From solutions/ (same depth), a chapter import is left as it is, even of a file that answers a
    // learner file: the 练习 build on the chapter's Session, not on the learner's.
    const solutions = "/repo/solutions/05-session-log";
    const fromSolution = 'import { Session } from "../../chapters/05-session-log/session.ts";';
    const chapterSession = new Map([[`${chapter}/session.ts`, `${learner}/session.ts`]]);
    expect(rebaseImports(fromSolution, solutions, learner, chapterSession)).toBe(fromSolution);
  });

  test("a missing file or an unknown step is a UsageError", () => {
    expect(() => compareFiles(path.join(dir, "nope.ts"), file("x.ts", ""))).toThrow(UsageError);
    expect(() => compareCommand(["05.9"])).toThrow(/unknown step "05\.9"\. Valid steps: 05\.1/);
  });
});
