// reset restores the shipped copy of a stub (scripts/maintainer/stubs/), whatever the learner did to their file,
// committed or not, inside git or not. These tests work in a folder of their own.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { UsageError } from "../command.ts";
import { resetCommand, resetFile } from "./reset.ts";
import { startsPrograms } from "../../chapters/05-session-log/testing/demo-testing.ts";
import { answerAsLearnerFile, copyWorkbook } from "../workbook-copy.ts";
import { exercisesDir, learnerFiles, shippedStubs, shippedStubsDir, steps, type Step } from "../steps.ts";

let work: string;
let exercises: string;
let shipped: string;

test.beforeEach(({ dir }) => {
  work = dir;
  exercises = path.join(work, "exercises/05-session-log");
  shipped = path.join(work, "scripts/maintainer/stubs/05-session-log");
  mkdirSync(exercises, { recursive: true });
  // The workbook as downloaded: the learner's folder and the shipped stubs, byte for byte.
  cpSync(shippedStubsDir, shipped, { recursive: true });
  cpSync(shippedStubsDir, exercises, { recursive: true });
  // The tests beside them: reset names the steps whose tests reach a file it leaves calling a stub.
  cpSync(exercisesDir, exercises, { recursive: true, filter: (from) => !from.includes(".backup") && !learnerFiles().includes(from) });
});

const session = steps.find((step) => step.id === "05.2")!;
const sessionStub = () => readFileSync(path.join(shipped, "session.ts"));
const reset = (id: string, now = new Date(0)) => plain(resetCommand([id], { exercisesDir: exercises, shippedStubsDir: shipped, now }));

function git(...args: string[]): string {
  const identity = ["-c", "user.name=Learner", "-c", "user.email=learner@example.com", "-c", "commit.gpgsign=false"];
  return execFileSync("git", [...identity, ...args], { cwd: work, encoding: "utf8" });
}

describe("npm run reset", () => {
  test("restores the shipped stub byte for byte and keeps the learner's version as a backup", () => {
    const file = path.join(exercises, "session.ts");
    writeFileSync(file, "export class Session { /* my work */ }\n");
    const outcome = resetFile(
      file,
      path.join(shipped, "session.ts"),
      path.join(exercises, ".backup"),
      new Date("2026-08-25T10:30:00.123Z"),
    );
    expect(readFileSync(file).equals(sessionStub()), "the stub is back, byte for byte").toBe(true);
    expect(outcome.backup).toBe(path.join(exercises, ".backup/session.ts.2026-08-25T10-30-00-123Z"));
    expect(readFileSync(outcome.backup!, "utf8"), "the backup holds the learner's work").toBe("export class Session { /* my work */ }\n");
  });

  test("reset after the learner commits their work restores the stub byte for byte", () => {
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "workbook as cloned");
    const file = path.join(exercises, "session.ts");
    const solved = readFileSync(file, "utf8").replace(/return todo\(\s*"05\.2"[^;]*;/g, "return undefined as never;");
    writeFileSync(file, solved);
    git("commit", "-q", "-am", "me: 05.2 done");
    // `git checkout` would restore the learner's commit; reset reads the shipped copy instead.
    expect(git("status", "--porcelain")).toBe("");
    expect(reset("05.2")).toContain("is the stub again");
    expect(readFileSync(file).equals(sessionStub())).toBe(true);
    expect(readFileSync(path.join(exercises, ".backup/session.ts.1970-01-01T00-00-00-000Z"), "utf8")).toBe(solved);
  });

  test("works outside git, as in a downloaded zip", () => {
    expect(existsSync(path.join(work, ".git"))).toBe(false);
    writeFileSync(path.join(exercises, "json.ts"), "// half done\n");
    expect(reset("05.1")).toContain("is the stub again");
    expect(readFileSync(path.join(exercises, "json.ts")).equals(readFileSync(path.join(shipped, "json.ts")))).toBe(true);
  });

  test("a file that already is the stub is left alone, with no backup", () => {
    expect(reset("05.3")).toContain("is already the untouched stub");
    expect(existsSync(path.join(exercises, ".backup"))).toBe(false);
  });

  test("a deleted learner file is simply restored, with no backup", () => {
    rmSync(path.join(exercises, "projection.ts"));
    expect(reset("05.3")).not.toContain("kept in");
    expect(readFileSync(path.join(exercises, "projection.ts")).equals(readFileSync(path.join(shipped, "projection.ts")))).toBe(true);
  });

  test("the command says where the backup is, and that a shared file resets the other step too", () => {
    writeFileSync(path.join(exercises, "session.ts"), "// mine\n");
    const output = reset(session.id);
    expect(output).toMatch(/your version is kept in .*\.backup\/session\.ts\.1970-01-01T00-00-00-000Z/);
    expect(output).toContain("session.ts also holds step 05.4, so that step was reset too");
    expect(readdirSync(path.join(exercises, ".backup"))).toEqual(["session.ts.1970-01-01T00-00-00-000Z"]);
  });

  test("reset -- 05.6 leaves the wiring it had you put into session.ts, and says so, and which steps now stop at its stub", () => {
    const sessionFile = path.join(exercises, "session.ts");
    const wired = `${readFileSync(sessionFile, "utf8")}\n// wired: readonly #messages = new MessageCache();\n`;
    writeFileSync(sessionFile, wired);
    writeFileSync(path.join(exercises, "message-cache.ts"), "// my cache\n");
    const output = reset("05.6");
    expect(output).toContain("注意：练习步骤 05.6 还让你改了 session.ts（接线：#messages = new MessageCache()");
    expect(output).toContain("所以练习步骤 05.2、05.3、05.4、05.5 的测试会停在 05.6 的桩上");
    expect(output).toContain("Note: step 05.6 also had you change session.ts (the wiring: #messages = new MessageCache()");
    expect(output).toContain("so the tests of 05.2, 05.3, 05.4, 05.5 stop at 05.6's stub");
    expect(readFileSync(sessionFile, "utf8"), "reset restores the step's own file only").toBe(wired);
  });

  test("reset -- 05.6 says nothing of session.ts when it is still the stub as shipped", () => {
    writeFileSync(path.join(exercises, "message-cache.ts"), "// my cache\n");
    expect(reset("05.6")).not.toContain("session.ts");
  });

  test("resetting session.ts warns that the wiring 05.6 put there went too", () => {
    writeFileSync(path.join(exercises, "session.ts"), "// mine, wired to a MessageCache\n");
    expect(reset("05.2")).toContain("注意：如果你做过练习步骤 05.6，它在 session.ts 里的改动（接线：");
  });

  test("a missing shipped stub or an unknown step is a UsageError", () => {
    rmSync(path.join(shipped, "json.ts"));
    expect(() => reset("05.1")).toThrow(UsageError);
    expect(() => reset("05.1")).toThrow(/the shipped stub .*json\.ts is missing/);
    expect(() => reset("05.9")).toThrow(/没有练习步骤 "05\.9" \/ unknown step "05\.9"\. 可选 \/ valid steps: 05\.1/);
  });

  test("for every step, reset restores exactly the file the stubs check runs the tests on", () => {
    const stubsRun: ReadonlyMap<string, string> = shippedStubs(); // what vitest.config.ts's stubs project loads
    for (const step of steps as readonly Step[]) {
      writeFileSync(path.join(exercises, step.file), "// learner's work\n");
      resetCommand([step.id], { exercisesDir: exercises }); // reset's own source: the workbook's scripts/maintainer/stubs/
      const checked = stubsRun.get(path.join(exercisesDir, step.file));
      expect(checked, `the stubs run swaps in the shipped stub for ${step.file}`).toBe(path.join(shippedStubsDir, step.file));
      expect(readFileSync(path.join(exercises, step.file)).equals(readFileSync(checked!)), `${step.id}: reset restores ${step.file}`).toBe(
        true,
      );
    }
  });
});

test(
  "npm run reset -- 05.6, for real, in a copy of the workbook with 05.6 done and wired: it names every step whose tests now stop at the stub",
  startsPrograms,
  () => {
    const copy = copyWorkbook("workbook-reset-real-");
    try {
      for (const id of ["05.1", "05.2", "05.3", "05.6"]) {
        const step = steps.find((candidate) => candidate.id === id)!;
        writeFileSync(path.join(copy.exercises, step.file), answerAsLearnerFile(step));
      }
      // The wiring, as a learner writes it: session.ts imports their own cache.
      const sessionFile = path.join(copy.exercises, "session.ts");
      writeFileSync(
        sessionFile,
        readFileSync(sessionFile, "utf8").replace('"../../chapters/05-session-log/message-cache.ts"', '"./message-cache.ts"'),
      );
      const output = plain(execFileSync("npm", ["run", "--silent", "reset", "--", "05.6"], { cwd: copy.root, encoding: "utf8" }));
      expect(output).toContain("所以练习步骤 05.2、05.3、05.4、05.5 的测试会停在 05.6 的桩上");
      expect(
        readFileSync(path.join(copy.exercises, "message-cache.ts")).equals(readFileSync(path.join(shippedStubsDir, "message-cache.ts"))),
      ).toBe(true);
      expect(readFileSync(sessionFile, "utf8")).toContain('from "./message-cache.ts"');
    } finally {
      copy.remove();
    }
  },
);
