// `--save` to something that is not a regular file is refused before the run, as `--load` is: a FIFO
// would make the writer wait for ever (leaving its lock behind), /dev/zero would be read into memory
// without end, and /dev/null would swallow every line and then tell of a torn one. Each is made for
// real: a FIFO (mkfifo), the devices themselves, reached through symbolic links; the demo runs as its
// own process where the old fault was a hang or endless memory, so that it fails a test, not the test run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { runInProcess, startDemo } from "../testing/demo-testing.ts";
import { Session } from "../session.ts";
import { LogFileError } from "./log-file-types.ts";
import { lockFolderOf } from "./log-lock.ts";
import { attachLogFile } from "./log-writer.ts";

/** A FIFO, and /dev/zero behind a chain of two symbolic links, in `dir`. */
function notFiles(dir: string): Record<string, { name: string; kind: string }> {
  const fifo = path.join(dir, "pipe");
  execFileSync("mkfifo", [fifo]);
  symlinkSync("/dev/zero", path.join(dir, "zero-1"));
  symlinkSync("zero-1", path.join(dir, "zero"));
  return {
    fifo: { name: fifo, kind: "a pipe (FIFO)" },
    "/dev/zero": { name: path.join(dir, "zero"), kind: "a device" },
  };
}

/** What the demo must say, and not say, when --save names something that is not a regular file. */
function expectRefused(what: string, name: string, kind: string, code: number | null, output: string): void {
  expect(code, `${what}: ${output}`).toBe(1);
  expect(output).toContain(`无法保存到 ${name}：这不是普通文件`);
  expect(output).toContain(`/ Cannot save to ${name}: this is ${kind}, not a file`);
  expect(output, `${what}: refused before the run`).not.toContain("① 订阅者视角");
  expect(output, `${what}: no story of a torn line`).not.toMatch(/torn|撕裂/);
}

describe("the writer writes only a regular file", () => {
  test("a folder, /dev/null and a link to one are NOT_A_FILE before anything is locked: no lock folder is left", ({ dir }) => {
    const folder = path.join(dir, "a-folder");
    mkdirSync(folder);
    symlinkSync("/dev/null", path.join(dir, "null"));
    const made = readdirSync(dir).sort();
    for (const [name, kind] of [
      [folder, "a folder"],
      ["/dev/null", "a device"],
      [path.join(dir, "null"), "a device"],
    ] as const) {
      const error = thrownAs(LogFileError, () => attachLogFile(new Session(), name));
      expect(error.code, name).toBe("NOT_A_FILE");
      expect(error.message, name).toContain(`${name}: this is ${kind}, not a file`);
      expect(existsSync(lockFolderOf(name)), `${name}: no lock folder`).toBe(false);
    }
    expect(readdirSync(dir).sort(), "nothing made beside the names").toEqual(made);
  });
});

describe("demo --save to what is not a regular file", () => {
  test("a link to /dev/null: one sentence, exit 1, no model call, no story of a torn line", async ({ dir }) => {
    const name = path.join(dir, "null");
    symlinkSync("/dev/null", name);
    const { code, text } = await runInProcess(["--offline", "--save", name]);
    expectRefused("/dev/null", name, "a device", code, text);
  });

  // As processes: before the fix one of them waited for ever and the other ate memory until killed.
  test("a FIFO and a link to /dev/zero, each in a real process: one sentence, exit 1, no model call, no lock folder", {
    timeout: 120_000,
  }, async ({ dir, onTestFinished }) => {
    const targets = notFiles(dir);
    const made = readdirSync(dir).sort();
    const runs = Object.entries(targets).map(([what, { name, kind }]) => {
      const demo = startDemo(["--offline", "--save", name]);
      onTestFinished(() => void demo.child.kill("SIGKILL"));
      return { what, name, kind, demo };
    });
    for (const { what, name, kind, demo } of runs) {
      const { code } = await demo.exited;
      expectRefused(what, name, kind, code, demo.stdout());
      expect(existsSync(lockFolderOf(name)), `${what}: no lock folder left behind`).toBe(false);
    }
    expect(readdirSync(dir).sort(), "nothing made beside the names").toEqual(made);
  });
});
