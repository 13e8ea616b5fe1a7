// reset reads the original stub from git history; these tests build a small git repo of their own.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { UsageError } from "./learner.ts";
import { countTodos, pristineStub, resetCommand, resetFile } from "./reset.ts";
import type { Step } from "./steps.ts";

let repo: string;
let exercises: string;
let file: string;

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args], {
    cwd: repo,
    encoding: "utf8",
  });
}

function commit(text: string, message: string): string {
  writeFileSync(file, text);
  git("add", ".");
  git("commit", "-q", "-m", message);
  return git("rev-parse", "HEAD").trim();
}

const stub = 'export function a() { return todo("05.2", "a"); }\nexport function b() { return todo("05.4", "b"); }\n';
const fixedStub = "// fixed comment\n" + stub;
const halfDone = 'export function a() { return 1; }\nexport function b() { return todo("05.4", "b"); }\n';
const allDone = "export function a() { return 1; }\nexport function b() { return 2; }\n";

beforeEach(() => {
  repo = mkdtempSync(path.join(tmpdir(), "workbook-reset-"));
  exercises = path.join(repo, "exercises/05-session-log");
  mkdirSync(exercises, { recursive: true });
  file = path.join(exercises, "session.ts");
  git("init", "-q");
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe("npm run reset", () => {
  test("countTodos counts todo( calls, not the import", () => {
    expect(countTodos('import { todo } from "./todo.ts";\n' + stub)).toBe(2);
  });

  test("restores the committed stub and keeps the learner's version as a backup", () => {
    const added = commit(stub, "workbook: add stub");
    writeFileSync(file, allDone);
    const outcome = resetFile(file, path.join(exercises, ".backup"), new Date("2026-08-25T10:30:00.123Z"));
    expect(readFileSync(file, "utf8")).toBe(stub);
    expect(outcome.commit).toBe(added);
    expect(outcome.backup).toBe(path.join(exercises, ".backup/session.ts.2026-08-25T10-30-00-123Z"));
    expect(readFileSync(outcome.backup!, "utf8"), "the backup holds the learner's work").toBe(allDone);
  });

  test("a learner's own commits are never taken for the stub", () => {
    commit(stub, "workbook: add stub");
    commit(halfDone, "me: step 05.2 done");
    commit(allDone, "me: everything");
    expect(pristineStub(file).content).toBe(stub);
  });

  test("a maintainer's later fix to the stub wins over the first version", () => {
    commit(stub, "workbook: add stub");
    const fixed = commit(fixedStub, "workbook: fix a comment");
    commit(halfDone, "me: step 05.2 done");
    expect(pristineStub(file)).toEqual({ commit: fixed, content: fixedStub });
  });

  test("a file that already is the stub is left alone, with no backup", () => {
    commit(stub, "workbook: add stub");
    const outcome = resetFile(file, path.join(exercises, ".backup"));
    expect(outcome).toMatchObject({ alreadyPristine: true, backup: undefined });
    expect(existsSync(path.join(exercises, ".backup"))).toBe(false);
  });

  test("a deleted learner file is simply restored", () => {
    commit(stub, "workbook: add stub");
    rmSync(file);
    expect(resetFile(file, path.join(exercises, ".backup")).backup).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe(stub);
  });

  test("the command says where the backup is, and that a shared file resets the other step too", () => {
    commit(stub, "workbook: add stub");
    writeFileSync(file, halfDone);
    const shared: Step[] = ["05.2", "05.4"].map((id) => ({
      id,
      kind: "core",
      title: `step ${id}`,
      titleZh: "",
      bookSection: "",
      file: "session.ts",
      test: `${id}.test.ts`,
      answerDir: repo,
      readmeAnchor: "",
      decoys: [],
      needs: [],
    }));
    const output = plain(resetCommand(["05.2"], { steps: shared, exercisesDir: exercises, now: new Date(0) }));
    expect(output).toContain("Step 05.2:");
    expect(output).toContain("is the stub again");
    expect(output).toMatch(/Your version is kept in .*\.backup\/session\.ts\.1970-01-01T00-00-00-000Z/);
    expect(output).toContain("session.ts also holds step 05.4, so that step was reset too");
    expect(readdirSync(path.join(exercises, ".backup"))).toEqual(["session.ts.1970-01-01T00-00-00-000Z"]);
  });

  test("a file never committed, or a folder outside git, is a clear UsageError", () => {
    writeFileSync(path.join(exercises, "todo.ts"), "export {};\n");
    git("add", ".");
    git("commit", "-q", "-m", "something else");
    writeFileSync(file, stub);
    expect(() => pristineStub(file)).toThrow(UsageError);
    expect(() => pristineStub(file)).toThrow(/session\.ts has never been committed here/);
    const outside = mkdtempSync(path.join(tmpdir(), "workbook-nogit-"));
    try {
      writeFileSync(path.join(outside, "session.ts"), stub);
      expect(() => pristineStub(path.join(outside, "session.ts"))).toThrow(/is not inside a git checkout/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
