// checkWritable's refusals are system errors like Node's own: a code, the call, the path as typed and a
// message naming all three, so that explainSystemError says them and a stack trace, if one is printed,
// reads like Node's. Anything else that goes wrong is a bug, and cannotWrite lets it through.
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "./temp-folder.ts";
import { thrownAs } from "../../exercises/05-session-log/thrown.ts";
import { cannotWrite, checkWritable, NotAFileError } from "./system-errors.ts";

describe("checkWritable's refusals", () => {
  test("a folder in the file's place: EISDIR from open, naming the path as typed", ({ dir }) => {
    const error = thrownAs(Error, () => checkWritable(dir), "checkWritable refuses a folder");
    expect(error).toMatchObject({ code: "EISDIR", syscall: "open", path: dir, message: `EISDIR: open '${dir}'` });
  });

  test("said without a doing of the caller's, it is what opening failed to do", ({ dir }) => {
    expect(cannotWrite(dir)).toBe(
      `这是一个文件夹，不是文件（EISDIR），无法打开 ${dir} / Cannot open ${dir}: it is a folder, not a file (EISDIR)`,
    );
  });

  test("a relative name is checked from the working folder, and named as typed", ({ dir }) => {
    const relative = path.relative(process.cwd(), dir);
    expect(cannotWrite(relative)).toBe(
      `这是一个文件夹，不是文件（EISDIR），无法打开 ${relative} / Cannot open ${relative}: it is a folder, not a file (EISDIR)`,
    );
  });
});

describe("a FIFO or a socket where the file goes: refused as the system's refusals are", () => {
  test("checkWritable throws NotAFileError, which reads like Node's own errors: its name, the code, the call, the path as typed", ({
    dir,
  }) => {
    const fifo = path.join(dir, "pipe.html");
    execFileSync("mkfifo", [fifo]);
    const error = thrownAs(NotAFileError, () => checkWritable(fifo), "checkWritable refuses a FIFO");
    expect(String(error)).toBe(`NotAFileError: NOT_A_FILE: open '${fifo}': it is a pipe (FIFO), not a regular file`);
    expect(error).toMatchObject({ code: "NOT_A_FILE", syscall: "open", path: fifo });
  });

  test("cannotWrite says it in one sentence, naming the kind in both languages: a pipe, a socket", async ({ dir }) => {
    const fifo = path.join(dir, "pipe.html");
    execFileSync("mkfifo", [fifo]);
    expect(cannotWrite(fifo, ["无法写入", "Cannot write"])).toBe(
      `这是管道（FIFO），不是普通文件，不会用文件替换它（NOT_A_FILE），无法写入 ${fifo} / Cannot write ${fifo}: it is a pipe (FIFO), not a regular file, and a file never replaces it (NOT_A_FILE)`,
    );
    const socket = path.join(dir, "socket.html");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      expect(cannotWrite(socket, ["无法写入", "Cannot write"])).toBe(
        `这是套接字，不是普通文件，不会用文件替换它（NOT_A_FILE），无法写入 ${socket} / Cannot write ${socket}: it is a socket, not a regular file, and a file never replaces it (NOT_A_FILE)`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("cannotWrite", () => {
  test("a failure that is not the system's (a bug) is thrown, not turned into a sentence", () => {
    expect(() => cannotWrite(42 as unknown as string)).toThrow(TypeError);
  });
});
