// What the operating system refuses is told in one sentence, Chinese first; checkWritable finds a
// refusal before the work it would waste.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "./temp-folder.ts";
import { cannotWrite, checkWritable, explainSystemError, isSystemError, type SystemError } from "./system-errors.ts";

const fake = (code: string, syscall: string, extra: object = {}): SystemError =>
  Object.assign(new Error(`${code}: raw`), { code, syscall, ...extra });

describe("explainSystemError", () => {
  test("says the reason in Chinese, what failed and on what, then the same in English with the code", () => {
    const error = fake("EISDIR", "open", { path: path.resolve("run.jsonl") }); // Node's path for the same file, made absolute
    expect(explainSystemError(error, ["无法保存到", "Cannot save to"], "run.jsonl")).toBe(
      "这是一个文件夹，不是文件（EISDIR），无法保存到 run.jsonl / Cannot save to run.jsonl: it is a folder, not a file (EISDIR)",
    );
  });

  test("every code a learner meets has its own reason in both languages; any other code still gets a sentence", () => {
    for (const code of ["ENOENT", "EISDIR", "ENOTDIR", "EACCES", "EPERM", "EROFS", "ENOSPC", "EFBIG", "EADDRINUSE"]) {
      const sentence = explainSystemError(fake(code, "open", { path: "f" }));
      expect(sentence, code).not.toContain("操作系统拒绝了这个操作");
      expect(sentence, code).toMatch(new RegExp(`^\\p{Script=Han}.*，无法打开 f / Cannot open f: .+ \\(${code}\\)$`, "u"));
    }
    expect(explainSystemError(fake("EIO", "read", { path: "f" }))).toBe(
      "操作系统拒绝了这个操作（EIO），无法读取 f / Cannot read f: the operating system refused (EIO)",
    );
  });

  test("a port in use names the address and says how to choose another", () => {
    expect(explainSystemError(fake("EADDRINUSE", "listen", { port: 4242 }))).toBe(
      "端口已被占用（EADDRINUSE；用 --port 换一个，或者 --port 0 任选一个空闲端口），无法监听 127.0.0.1:4242 / " +
        "Cannot listen on 127.0.0.1:4242: the port is in use: choose another with --port, or --port 0 for any free one (EADDRINUSE)",
    );
  });

  test("what the system refused, when it is not the target (the folder a file goes in, a lock), is named too", () => {
    const error = fake("EACCES", "mkdir", { path: "/locks/dev-1-inode-2.lock" });
    expect(explainSystemError(error, ["无法保存到", "Cannot save to"], "run.jsonl")).toBe(
      "没有权限（EACCES，/locks/dev-1-inode-2.lock），无法保存到 run.jsonl / Cannot save to run.jsonl: /locks/dev-1-inode-2.lock: permission denied (EACCES)",
    );
    expect(explainSystemError(fake("EACCES", "open", { path: "run.jsonl" }), undefined, path.resolve("run.jsonl")), "the same file").toBe(
      `没有权限（EACCES），无法打开 ${path.resolve("run.jsonl")} / Cannot open ${path.resolve("run.jsonl")}: permission denied (EACCES)`,
    );
  });

  test("a file name with escape characters is shown, not obeyed", () => {
    expect(explainSystemError(fake("ENOENT", "open"), undefined, "a\x1b]0;x\x07.jsonl")).toContain("a\\x1b]0;x\\x07.jsonl");
  });

  test("only an error with a code and a system call is a system error: a bug keeps its stack", () => {
    expect(isSystemError(fake("ENOENT", "open"))).toBe(true);
    expect(isSystemError(new TypeError("x is undefined"))).toBe(false);
    expect(isSystemError(Object.assign(new Error("usage"), { code: "ERR_PARSE_ARGS_UNKNOWN_OPTION" }))).toBe(false);
    expect(isSystemError({ code: "ENOENT", syscall: "open" })).toBe(false);
  });
});

describe("checkWritable: a refusal found before the work", () => {
  test("a new file in a folder that exists, or in folders still to be made, can be written", ({ dir }) => {
    expect(() => checkWritable(path.join(dir, "new.html"))).not.toThrow();
    expect(() => checkWritable(path.join(dir, "a", "b", "new.html"))).not.toThrow();
    writeFileSync(path.join(dir, "old.html"), "");
    expect(cannotWrite(path.join(dir, "old.html"))).toBeUndefined();
  });

  test("a folder where the file should be is EISDIR; a file on the way to it is ENOTDIR", ({ dir }) => {
    expect(() => checkWritable(dir)).toThrow(expect.objectContaining({ code: "EISDIR", path: dir }));
    const file = path.join(dir, "plain.txt");
    writeFileSync(file, "");
    expect(() => checkWritable(path.join(file, "page.html"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
    expect(cannotWrite(dir, ["无法写入", "Cannot write"])).toBe(
      `这是一个文件夹，不是文件（EISDIR），无法写入 ${dir} / Cannot write ${dir}: it is a folder, not a file (EISDIR)`,
    );
  });
});
