// The workbook's structure, as shipped: no import circles; every import between folders pointing one
// way; no stub whose imports lead to an answer (go-to-definition from a stub must never open the code
// the learner is asked to write) or to the workbook's tools; chapter files short enough to read beside
// the book.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { importCircles, importGraph, reachable, typeScriptFiles, type ImportGraph } from "./import-graph.ts";
import { exportsOf, givenButNotImported } from "./stub-names.ts";
import { chapterDir, exercisesDir, learnerFiles, root, shippedStubs, shippedStubsDir, solutionsDir, steps, type Step } from "../steps.ts";

const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
const files = typeScriptFiles(root, new Set([shippedStubsDir]));
// Learner files are read from their shipped stubs: the learner's own edits are theirs to make.
const graph = importGraph(files, shippedStubs());

const maxLines = 250;

describe("the workbook's structure", () => {
  test("the scan sees the whole workbook", () => {
    const seen = new Set(files.map(relative));
    for (const file of [
      "chapters/05-session-log/session.ts",
      "exercises/05-session-log/session.ts",
      "scripts/steps.ts",
      "vitest.config.ts",
    ]) {
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
    expect(
      importCircles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
    ).toEqual([[a, b, c, a]]);
    expect(importCircles(new Map([[a, [a]]]))).toEqual([[a, a]]);
    expect(
      importCircles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, []],
        ]),
      ),
    ).toEqual([]);
  });

  test.each(learnerFiles().map((file) => [relative(file), file] as const))(
    "%s (as shipped) imports no answer to its own step or a later one, and nothing from scripts/",
    (_name, stub) => {
      // A step's stub may lean on what the learner has already written by then: 05.7 runs on the
      // chapter's Session, whose code answers 05.2–05.6, steps the learner order puts before it.
      const position = (file: string, by: (step: Step) => string) => steps.flatMap((step, index) => (by(step) === file ? [index] : []));
      const stubAt = Math.min(...position(stub, (step) => path.join(exercisesDir, step.file)));
      const answerTo = (file: string) => position(file, (step) => path.join(step.answerDir, step.file));
      const forbidden = (file: string) =>
        answerTo(file).some((index) => index >= stubAt) ||
        file.startsWith(`${solutionsDir}${path.sep}`) ||
        file.startsWith(`${path.join(root, "scripts")}${path.sep}`);
      const reached = [...reachable(graph, stub)].filter(([file]) => forbidden(file) && !learnerFiles().includes(file));
      const chains = reached.map(([, chain]) => chain.map(relative).join(" → "));
      expect(chains, "give the stub a contract module (types, errors) that holds no answer").toEqual([]);
    },
  );

  test("a stub reaching an answer is caught", () => {
    const stub = path.join(root, "exercises/05-session-log/projection.ts");
    const contract = path.join(chapterDir, "events.ts");
    const answer = path.join(chapterDir, "session.ts");
    const leaky = new Map([
      [stub, [contract]],
      [contract, [answer]],
      [answer, []],
    ]);
    expect([...reachable(leaky, stub).keys()]).toContain(answer);
  });

  // What a chapter module or a given/ file exports, by name: what a stub's "Given:" comment may name.
  const givable = exportsOf(
    files.filter((file) => /^(chapters\/|exercises\/05-session-log\/given\/)/.test(relative(file)) && !file.endsWith(".test.ts")),
    root,
  );

  test.each([...shippedStubs()].map(([learner, stub]) => [relative(learner), learner, stub] as const))(
    "%s (as shipped) imports every name its Given: comment says is given",
    (_name, learner, stub) => {
      const missing = givenButNotImported(readFileSync(stub, "utf8"), learner, givable);
      const where = missing.map((name) => `${name} (${givable.get(name)})`);
      expect(where, "import it in the stub (unused imports are fine there), so the learner need not search chapters/").toEqual([]);
    },
  );

  test("a Given: comment naming something the stub does not import is caught", () => {
    const stub = path.join(exercisesDir, "json.ts");
    const source = [
      "// Given: the error class JsonValueError and the limit MAX_JSON_DEPTH.",
      'import { type JsonValue } from "../../chapters/05-session-log/json-value.ts";',
      "// MAX_JSON_DEPTH outside a Given comment is not a promise.",
      "export function freezeJson(value: unknown): JsonValue {}",
    ].join("\n");
    expect(givenButNotImported(source, stub, givable).sort()).toEqual(["JsonValueError", "MAX_JSON_DEPTH"]);
  });

  // Which folder's code may import which (CONTRIBUTING.md, "Which folder imports which"): each stands
  // on the ones below it, so every arrow between folders points down. Tests are exempt: nothing imports
  // a test, so a test never makes an arrow run back up. scripts/ and the configs at the root are the
  // workbook's tools, on top of everything.
  const layers: readonly (readonly [folder: string, mayImport: readonly string[]])[] = [
    ["chapters/common/", []],
    ["fixtures/", ["chapters/common/"]],
    ["chapters/", ["chapters/common/", "fixtures/"]],
    ["exercises/", ["chapters/", "fixtures/"]],
    ["solutions/", ["exercises/", "chapters/", "fixtures/"]],
  ];
  const folderOf = (file: string) => layers.find(([folder]) => file.startsWith(folder));
  const chapterOf = (file: string) => /^chapters\/[^/]+\//.exec(file)?.[0];

  /** Imports that leave their folder for one it may not import, as "from → to". */
  function wrongArrows(imports: ImportGraph): string[] {
    return [...imports].flatMap(([from, targets]) => {
      const layer = folderOf(relative(from));
      if (layer === undefined || from.endsWith(".test.ts")) return [];
      // A chapter's own folder is the chapter's, not chapters/: one chapter does not import another.
      const own = chapterOf(relative(from)) ?? layer[0];
      return targets
        .map(relative)
        .filter((to) => !to.startsWith(own) && !layer[1].some((below) => to.startsWith(below)))
        .map((to) => `${relative(from)} → ${to}`);
    });
  }

  test("every import between folders points down: common ← fixtures ← a chapter ← exercises ← solutions", () => {
    expect(
      wrongArrows(graph),
      "move what both sides need into the lower folder (a type into chapters/common/, data beside the fixtures), or the code into the folder that uses it",
    ).toEqual([]);
  });

  test("a wrong arrow is caught: common importing a chapter, fixtures importing a chapter, a chapter importing scripts/", () => {
    const at = (file: string) => path.join(root, file);
    const wrong = new Map([
      [at("chapters/common/deepseek.ts"), [at("chapters/05-session-log/events.ts"), at("chapters/common/messages.ts")]],
      [at("fixtures/scenarios.ts"), [at("chapters/05-session-log/agent-loop.ts"), at("chapters/common/tools.ts")]],
      [at("chapters/05-session-log/demo.ts"), [at("scripts/steps.ts"), at("fixtures/fixture.ts")]],
      [at("chapters/05-session-log/demo/view.ts"), [at("chapters/06-other/session.ts")]],
      [at("chapters/05-session-log/demo/view.test.ts"), [at("scripts/learner.ts")]],
    ]);
    expect(wrongArrows(wrong)).toEqual([
      "chapters/common/deepseek.ts → chapters/05-session-log/events.ts",
      "fixtures/scenarios.ts → chapters/05-session-log/agent-loop.ts",
      "chapters/05-session-log/demo.ts → scripts/steps.ts",
      "chapters/05-session-log/demo/view.ts → chapters/06-other/session.ts",
    ]);
  });

  test("the chapter's top level holds the book's modules and demo.ts only, at most 14 source files", () => {
    const top = files.filter((file) => path.dirname(file) === chapterDir && !file.endsWith(".test.ts")).map(relative);
    expect(top.length, `put what goes past the book in a folder of its own (fast/, demo/, …): ${top.join(", ")}`).toBeLessThanOrEqual(14);
  });

  test(`no file under chapters/ is over ${maxLines} lines`, () => {
    const chapterFiles = files.filter((file) => relative(file).startsWith("chapters/"));
    const lengths = new Map(chapterFiles.map((file) => [relative(file), readFileSync(file, "utf8").split("\n").length - 1]));
    const tooLong = [...lengths].filter(([, lines]) => lines > maxLines);
    expect(
      tooLong.map(([file, lines]) => `${file}: ${lines} lines`),
      "split it by concern",
    ).toEqual([]);
  });
});
