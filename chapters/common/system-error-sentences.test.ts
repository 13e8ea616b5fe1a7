// The sentence for each refusal of the operating system, word for word: the reason a learner reads for
// each code, and what was being done for each system call when the caller does not say. The sentences
// are inline snapshots: a sentence changed on purpose is taken in with `npx vitest run --mode workbook -u`
// (read the diff first), never typed in again by hand.
import { describe, expect, test } from "vitest";
import { explainSystemError, isSystemError, SYSTEM_ERROR_EXIT, type SystemError } from "./system-errors.ts";

const fake = (code: string, syscall: string, extra: object = {}): SystemError =>
  Object.assign(new Error(`${code}: raw`), { code, syscall, ...extra });

describe("the reason, by the error's code, in both languages", () => {
  test("each code a learner meets while saving, loading and serving has its sentence", () => {
    const codes = "ENOENT EISDIR ENOTDIR EACCES EPERM EROFS ENOSPC EFBIG EDQUOT ENAMETOOLONG ELOOP EMFILE EBUSY EADDRNOTAVAIL".split(" ");
    const sentences = codes.map((code) => explainSystemError(fake(code, "open", { path: "run.jsonl" })));
    expect(sentences).toMatchInlineSnapshot(`
      [
        "文件或它所在的文件夹不存在（ENOENT），无法打开 run.jsonl / Cannot open run.jsonl: it does not exist (or the folder it is in does not) (ENOENT)",
        "这是一个文件夹，不是文件（EISDIR），无法打开 run.jsonl / Cannot open run.jsonl: it is a folder, not a file (EISDIR)",
        "路径中的某一段不是文件夹（ENOTDIR），无法打开 run.jsonl / Cannot open run.jsonl: a part of its path is not a folder (ENOTDIR)",
        "没有权限（EACCES），无法打开 run.jsonl / Cannot open run.jsonl: permission denied (EACCES)",
        "操作不被允许（EPERM），无法打开 run.jsonl / Cannot open run.jsonl: the operation is not permitted (EPERM)",
        "文件系统是只读的（EROFS），无法打开 run.jsonl / Cannot open run.jsonl: it is on a read-only file system (EROFS)",
        "磁盘已满（ENOSPC），无法打开 run.jsonl / Cannot open run.jsonl: the disk is full (ENOSPC)",
        "文件超过了允许的大小（EFBIG），无法打开 run.jsonl / Cannot open run.jsonl: the file is larger than allowed (EFBIG)",
        "磁盘配额已用完（EDQUOT），无法打开 run.jsonl / Cannot open run.jsonl: the disk quota is used up (EDQUOT)",
        "名字太长（ENAMETOOLONG），无法打开 run.jsonl / Cannot open run.jsonl: the name is too long (ENAMETOOLONG)",
        "符号链接太多，可能成了环（ELOOP），无法打开 run.jsonl / Cannot open run.jsonl: too many symbolic links (a loop?) (ELOOP)",
        "打开的文件太多（EMFILE），无法打开 run.jsonl / Cannot open run.jsonl: too many files are open (EMFILE)",
        "正被占用（EBUSY），无法打开 run.jsonl / Cannot open run.jsonl: it is busy (EBUSY)",
        "这个地址在本机上不可用（EADDRNOTAVAIL），无法打开 run.jsonl / Cannot open run.jsonl: the address is not available on this machine (EADDRNOTAVAIL)",
      ]
    `);
  });
});

describe("what was being done, by the system call, when the caller does not say", () => {
  test("each call a command makes has its doing", () => {
    const calls = ["open", "read", "write", "mkdir", "rename", "listen", "access"];
    expect(calls.map((syscall) => explainSystemError(fake("EACCES", syscall, { path: "f" })))).toMatchInlineSnapshot(`
      [
        "没有权限（EACCES），无法打开 f / Cannot open f: permission denied (EACCES)",
        "没有权限（EACCES），无法读取 f / Cannot read f: permission denied (EACCES)",
        "没有权限（EACCES），无法写入 f / Cannot write f: permission denied (EACCES)",
        "没有权限（EACCES），无法创建文件夹 f / Cannot create the folder f: permission denied (EACCES)",
        "没有权限（EACCES），无法重命名 f / Cannot rename f: permission denied (EACCES)",
        "没有权限（EACCES），无法监听 f / Cannot listen on f: permission denied (EACCES)",
        "没有权限（EACCES），无法写入 f / Cannot write f: permission denied (EACCES)",
      ]
    `);
  });

  test("another call says only that it failed; with neither a path nor a port, nothing is named", () => {
    expect(explainSystemError(fake("EACCES", "chmod", { path: "f" }))).toBe(
      "没有权限（EACCES），失败 f / Failed f: permission denied (EACCES)",
    );
    expect(explainSystemError(fake("ENOSPC", "write"))).toBe("磁盘已满（ENOSPC），无法写入 / Cannot write: the disk is full (ENOSPC)");
  });

  test("the caller's target is named instead of the error's port", () => {
    const error = fake("EADDRINUSE", "listen", { port: 4242 });
    expect(explainSystemError(error, undefined, "page.html")).toMatch(
      /^端口已被占用.*，无法监听 page\.html \/ Cannot listen on page\.html: /,
    );
  });
});

describe("a system error is an Error with an E-code of capitals and a system call", () => {
  test("a code that is not all capitals after E, or has more around it, or a call that is not a string, is not one", () => {
    expect(isSystemError(fake("EIO", "read"))).toBe(true);
    for (const code of ["Enoent", "XENOENT", "ENOENT1", "E", "ENO ENT"]) expect(isSystemError(fake(code, "open")), code).toBe(false);
    expect(isSystemError(Object.assign(new Error("x"), { code: "ENOENT", syscall: 7 }))).toBe(false);
    expect(isSystemError(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(false);
  });

  test("after one, a command exits 1, as after any other failed run", () => {
    expect(SYSTEM_ERROR_EXIT).toBe(1);
  });
});
