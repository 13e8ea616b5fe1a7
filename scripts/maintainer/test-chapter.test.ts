// `npm run test:chapter`: from a chapter file to the tests of its rules, through the manifest.
import path from "node:path";
import { describe, expect, test } from "vitest";
import { UsageError } from "../command.ts";
import { chapterDir, exercisesDir, root, solutionsDir } from "../steps.ts";
import { resolveChapterFile, testsOf } from "./test-chapter.ts";

describe("npm run test:chapter", () => {
  test("a file a step answers runs that step's exercise tests; session.ts answers two", () => {
    const { files, steps } = testsOf(resolveChapterFile("session.ts"));
    expect(steps.map((step) => step.id)).toEqual(["05.2", "05.4"]);
    expect(files).toEqual([path.join(exercisesDir, "05.2-session.test.ts"), path.join(exercisesDir, "05.4-replay.test.ts")]);
  });

  test("a 练习 answer in solutions/ maps to its step too", () => {
    expect(testsOf(resolveChapterFile("solutions/05-session-log/redaction.ts")).files).toEqual([
      path.join(exercisesDir, "p3-redaction.test.ts"),
    ]);
    expect(resolveChapterFile("redaction.ts")).toBe(path.join(solutionsDir, "redaction.ts"));
  });

  test("a test file beside the chapter file is run too", () => {
    expect(testsOf(resolveChapterFile("invariants.ts")).files).toEqual([path.join(chapterDir, "invariants.test.ts")]);
    expect(testsOf(resolveChapterFile("common/calculator.ts")).files).toEqual([path.join(root, "chapters/common/calculator.test.ts")]);
  });

  test("a contract no step answers, with no test beside it, falls back to every test that imports it", () => {
    expect(testsOf(resolveChapterFile("events.ts"))).toEqual({ files: [], steps: [] });
  });

  test("an unknown file is a UsageError", () => {
    expect(() => resolveChapterFile("sesion.ts")).toThrow(UsageError);
  });
});
