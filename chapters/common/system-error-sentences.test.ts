// The sentence for each refusal of the operating system, word for word: the reason a learner reads for
// each code, and what was being done for each system call when the caller does not say.
import { describe, expect, test } from "vitest";
import { explainSystemError, isSystemError, SYSTEM_ERROR_EXIT, type SystemError } from "./system-errors.ts";

const fake = (code: string, syscall: string, extra: object = {}): SystemError =>
  Object.assign(new Error(`${code}: raw`), { code, syscall, ...extra });

describe("the reason, by the error's code, in both languages", () => {
  test.each([
    ["ENOENT", "文件或它所在的文件夹不存在", "it does not exist (or the folder it is in does not)"],
    ["EISDIR", "这是一个文件夹，不是文件", "it is a folder, not a file"],
    ["ENOTDIR", "路径中的某一段不是文件夹", "a part of its path is not a folder"],
    ["EACCES", "没有权限", "permission denied"],
    ["EPERM", "操作不被允许", "the operation is not permitted"],
    ["EROFS", "文件系统是只读的", "it is on a read-only file system"],
    ["ENOSPC", "磁盘已满", "the disk is full"],
    ["EFBIG", "文件超过了允许的大小", "the file is larger than allowed"],
    ["EDQUOT", "磁盘配额已用完", "the disk quota is used up"],
    ["ENAMETOOLONG", "名字太长", "the name is too long"],
    ["ELOOP", "符号链接太多，可能成了环", "too many symbolic links (a loop?)"],
    ["EMFILE", "打开的文件太多", "too many files are open"],
    ["EBUSY", "正被占用", "it is busy"],
    ["EADDRNOTAVAIL", "这个地址在本机上不可用", "the address is not available on this machine"],
  ])("%s: %s / %s", (code, zh, en) => {
    expect(explainSystemError(fake(code, "open", { path: "run.jsonl" }))).toBe(
      `${zh}，无法打开 run.jsonl / Cannot open run.jsonl: ${en} (${code})`,
    );
  });
});

describe("what was being done, by the system call, when the caller does not say", () => {
  test.each([
    ["open", "无法打开", "Cannot open"],
    ["read", "无法读取", "Cannot read"],
    ["write", "无法写入", "Cannot write"],
    ["mkdir", "无法创建文件夹", "Cannot create the folder"],
    ["rename", "无法重命名", "Cannot rename"],
    ["listen", "无法监听", "Cannot listen on"],
    ["access", "无法写入", "Cannot write"],
  ])("%s: %s / %s", (syscall, zh, en) => {
    expect(explainSystemError(fake("EACCES", syscall, { path: "f" }))).toBe(`没有权限，${zh} f / ${en} f: permission denied (EACCES)`);
  });

  test("another call says only that it failed; with neither a path nor a port, nothing is named", () => {
    expect(explainSystemError(fake("EACCES", "chmod", { path: "f" }))).toBe("没有权限，失败 f / Failed f: permission denied (EACCES)");
    expect(explainSystemError(fake("ENOSPC", "write"))).toBe("磁盘已满，无法写入 / Cannot write: the disk is full (ENOSPC)");
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
