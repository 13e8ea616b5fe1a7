// Which failures checkWritable and cannotWrite turn into a sentence: the system's refusals (a code like
// ENOTDIR or EACCES and the call that failed), on a real file. Anything else is a bug and is thrown as is,
// so that its stack is seen.
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "./temp-folder.ts";
import { cannotWrite, checkWritable, isSystemError } from "./system-errors.ts";

/** root may write any file whatever its mode: a read-only file refuses only other users. */
const isRoot = process.getuid?.() === 0;

describe("checkWritable on real files", () => {
  test("a file on the way, however deep below it the target is: Node's own ENOTDIR, named as typed by cannotWrite", ({ dir }) => {
    const file = path.join(dir, "plain.txt");
    writeFileSync(file, "");
    const target = path.join(file, "sub", "deeper", "page.html");
    expect(() => checkWritable(target)).toThrow(expect.objectContaining({ code: "ENOTDIR", syscall: "stat" }));
    expect(cannotWrite(target, ["无法写入", "Cannot write"])).toBe(
      `路径中的某一段不是文件夹（ENOTDIR），无法写入 ${target} / Cannot write ${target}: a part of its path is not a folder (ENOTDIR)`,
    );
  });

  test.skipIf(isRoot)("an existing file without write permission is EACCES, though its folder can be written", ({ dir }) => {
    const file = path.join(dir, "read-only.txt");
    writeFileSync(file, "");
    chmodSync(file, 0o444);
    expect(() => checkWritable(file)).toThrow(expect.objectContaining({ code: "EACCES", syscall: "access" }));
  });

  test.runIf(isRoot)(
    "as root, whom modes do not stop: an existing file made immutable (chattr +i) is EPERM, though its folder can be written",
    ({ dir }) => {
      const file = path.join(dir, "immutable.txt");
      writeFileSync(file, "");
      execFileSync("chattr", ["+i", file]);
      try {
        expect(() => checkWritable(file)).toThrow(expect.objectContaining({ code: "EPERM", syscall: "access", path: file }));
      } finally {
        execFileSync("chattr", ["-i", file]); // or the temporary folder could not be removed
      }
    },
  );
});

describe("what is not the system's refusal is thrown as is", () => {
  test("a name Node refuses (a NUL byte in it) is a bug of the caller: cannotWrite throws Node's error, no sentence", () => {
    expect(() => cannotWrite(`bad\0name.html`)).toThrow(expect.objectContaining({ code: "ERR_INVALID_ARG_VALUE" }));
  });

  test("a code that only prints as one (an array holding ENOENT) does not make an error a system error", () => {
    expect(isSystemError(Object.assign(new Error("x"), { code: ["ENOENT"], syscall: "open" }))).toBe(false);
  });
});
