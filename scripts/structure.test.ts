// The workbook's structure, as shipped: no import circles; no stub whose imports lead to an answer
// (go-to-definition from a stub must never open the code the learner is asked to write) or to the
// workbook's tools; chapter files short enough to read beside the book.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { importCircles, importGraph, reachable, typeScriptFiles } from "./import-graph.ts";
import { answerFiles, chapterDir, learnerFiles, root, shippedStubs, shippedStubsDir, solutionsDir } from "./steps.ts";

const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
const files = typeScriptFiles(root, new Set([shippedStubsDir]));
// Learner files are read from their shipped stubs: the learner's own edits are theirs to make.
const graph = importGraph(files, shippedStubs());

/** Chapter files over the limit today, each with who is shortening it; the test fails once one is short. */
const knownLong = new Map([
  ["chapters/05-session-log/demo.ts", "the DeepSeek-settings rewrite of issue 7 (demo ≤ 150 lines)"],
  ["chapters/05-session-log/demo.test.ts", "the DeepSeek-settings rewrite of issue 7"],
  ["chapters/common/deepseek.ts", "the DeepSeek-settings rewrite of issue 7 (settings and reply schema move out)"],
  ["chapters/common/deepseek.test.ts", "the DeepSeek-settings rewrite of issue 7"],
]);
const maxLines = 250;

describe("the workbook's structure", () => {
  test("the scan sees the whole workbook", () => {
    const seen = new Set(files.map(relative));
    for (const file of ["chapters/05-session-log/session.ts", "exercises/05-session-log/session.ts", "scripts/steps.ts", "vitest.config.ts"]) {
      expect(seen, file).toContain(file);
    }
  });

  test("no import circle anywhere (type-only imports count: a reader follows them too)", () => {
    const circles = importCircles(graph).map((circle) => circle.map(relative).join(" → "));
    expect(circles, "break each circle by moving what both sides need into a module of its own").toEqual([]);
  });

  test("the circle finder finds circles", () => {
    const a = "/x/a.ts";
    const b = "/x/b.ts";
    const c = "/x/c.ts";
    expect(importCircles(new Map([[a, [b]], [b, [c]], [c, [a]]]))).toEqual([[a, b, c, a]]);
    expect(importCircles(new Map([[a, [a]]]))).toEqual([[a, a]]);
    expect(importCircles(new Map([[a, [b]], [b, [c]], [c, []]]))).toEqual([]);
  });

  test.each(learnerFiles().map((file) => [relative(file), file] as const))(
    "%s (as shipped) imports no answer and nothing from scripts/",
    (_name, stub) => {
      const answers = new Set(answerFiles().values());
      const forbidden = (file: string) =>
        answers.has(file) || file.startsWith(`${solutionsDir}${path.sep}`) || file.startsWith(`${path.join(root, "scripts")}${path.sep}`);
      const reached = [...reachable(graph, stub)].filter(([file]) => forbidden(file) && !learnerFiles().includes(file));
      const chains = reached.map(([, chain]) => chain.map(relative).join(" → "));
      expect(chains, "give the stub a contract module (types, errors) that holds no answer").toEqual([]);
    },
  );

  test("a stub reaching an answer is caught", () => {
    const stub = path.join(root, "exercises/05-session-log/projection.ts");
    const contract = path.join(chapterDir, "events.ts");
    const answer = path.join(chapterDir, "session.ts");
    const leaky = new Map([[stub, [contract]], [contract, [answer]], [answer, []]]);
    expect([...reachable(leaky, stub).keys()]).toContain(answer);
  });

  test(`no file under chapters/ is over ${maxLines} lines`, () => {
    const chapterFiles = files.filter((file) => relative(file).startsWith("chapters/"));
    const lengths = new Map(chapterFiles.map((file) => [relative(file), readFileSync(file, "utf8").split("\n").length - 1]));
    const tooLong = [...lengths].filter(([file, lines]) => lines > maxLines && !knownLong.has(file));
    expect(tooLong.map(([file, lines]) => `${file}: ${lines} lines`), "split it by concern").toEqual([]);
    const fixed = [...knownLong.keys()].filter((file) => (lengths.get(file) ?? 0) <= maxLines);
    expect(fixed, `now ${maxLines} lines or fewer (or gone): delete them from knownLong in scripts/structure.test.ts`).toEqual([]);
  });
});
