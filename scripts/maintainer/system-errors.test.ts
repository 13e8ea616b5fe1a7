// Every file or network failure a learner can cause from the command line — a missing folder, a folder
// where a file should be, no permission, an empty value, a port in use — ends in one sentence (Chinese
// first, the English beside it) and exit code 1, never in Node's raw error and stack trace. An output
// that cannot be written is said before the run, not after it. Where the crash showed in a real
// process, the test runs one.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect, vi } from "vitest";
import { test as withDir } from "../../chapters/common/temp-folder.ts";
import { DEMO, runInProcess, runProgram, startsPrograms, VIEW } from "../../chapters/05-session-log/testing/demo-testing.ts";
import { runMain } from "../command.ts";
import { viewCommand } from "../../chapters/05-session-log/demo/view.ts";

/** Besides the test's folder (`dir`): a folder and an empty file in it, each made when a test asks for it. */
const test = withDir.extend<{ folder: string; aFile: string }>({
  folder: async ({ dir }, use) => {
    mkdirSync(path.join(dir, "a-folder"));
    await use(path.join(dir, "a-folder"));
  },
  aFile: async ({ dir }, use) => {
    writeFileSync(path.join(dir, "a-file.txt"), "");
    await use(path.join(dir, "a-file.txt"));
  },
});

// Root reads and writes any file whatever its mode, so as root the refusals come from sysfs instead:
// it lets no one create a file, and its write-only `uevent` files let no one read them.
const asRoot = process.getuid?.() === 0;
const buses = asRoot && existsSync("/sys/bus") ? readdirSync("/sys/bus") : [];
const sysfsUnreadable = buses.map((bus) => `/sys/bus/${bus}/uevent`).find((file) => existsSync(file));
/** Whether this machine has a file this process may not read, and a name it may not create. */
const has = { unreadable: !asRoot || sysfsUnreadable !== undefined, unwritable: !asRoot || existsSync("/sys") };

/** A file this process may not read: made in `dir`, or sysfs's as root. */
function unreadableFile(dir: string): string {
  if (asRoot) return sysfsUnreadable ?? "";
  const file = path.join(dir, "secret.jsonl");
  writeFileSync(file, "");
  chmodSync(file, 0o000);
  return file;
}
/** A file name this process may not create: in a read-only folder in `dir`, or in /sys as root. */
function unwritablePath(dir: string, name: string): string {
  if (asRoot) return path.join("/sys", name);
  const locked = path.join(dir, "locked");
  mkdirSync(locked, { recursive: true });
  chmodSync(locked, 0o555);
  return path.join(locked, name);
}

const RAN = "=== ① 订阅者视角";

describe("demo", () => {
  test("--save into a folder that does not exist: one sentence, exit 1, no file", async ({ dir }) => {
    const file = path.join(dir, "missing", "run.jsonl");
    const { code, lines } = await runInProcess(["--save", file]);
    expect(code).toBe(1);
    expect(lines).toContain(
      `文件或它所在的文件夹不存在（ENOENT），无法保存到 ${file} / Cannot save to ${file}: it does not exist (or the folder it is in does not) (ENOENT)`,
    );
    expect(existsSync(file)).toBe(false);
  });

  test("--save onto a folder, or onto a path through a file: one sentence each, exit 1, before the run", async ({ folder, aFile }) => {
    const onFolder = await runInProcess(["--save", folder]);
    expect(onFolder.code).toBe(1);
    // Refused by the writer itself, as --load is by the reader: only a regular file holds a log (05.7, NOT_A_FILE).
    expect(onFolder.text).toContain(`无法保存到 ${folder}：这不是普通文件`);
    expect(onFolder.text).toContain(
      `/ Cannot save to ${folder}: this is a folder, not a file; a log is a regular file that a writer appended to`,
    );
    const through = path.join(aFile, "run.jsonl");
    const onFile = await runInProcess(["--save", through]);
    expect(onFile.code).toBe(1);
    expect(onFile.text).toContain(`路径中的某一段不是文件夹（ENOTDIR），无法保存到 ${through} / Cannot save to ${through}`);
    expect(onFolder.text + onFile.text).not.toContain(RAN);
  });

  test.skipIf(!has.unwritable)("--save where no file may be created (no permission): one sentence, exit 1", async ({ dir }) => {
    const file = unwritablePath(dir, "run.jsonl");
    const { code, text } = await runInProcess(["--save", file]);
    expect(code).toBe(1);
    // The writer's lock folder is made first: sysfs answers its mkdir with EPERM, a read-only folder with EACCES.
    expect(text).toMatch(
      new RegExp(`(没有权限|操作不被允许)（(EACCES|EPERM)），无法保存到 ${file} / Cannot save to ${file}: .*\\((EACCES|EPERM)\\)`),
    );
  });

  test("--save= (an empty value) is a usage error, exit 2, naming the flag", async () => {
    const { code, lines } = await runInProcess(["--save="]);
    expect(code).toBe(2);
    expect(lines[0]).toBe("用法错误：--save 的值是空的 / Usage error: --save needs a value, not an empty one");
    expect((await runInProcess(["--html", ""])).code).toBe(2);
  });

  test("--load of a folder: one sentence, exit 1", async ({ folder }) => {
    const { code, lines } = await runInProcess(["--load", folder]);
    expect(code).toBe(1);
    // Never opened for reading: the reader refuses what is not a regular file itself (05.7, NOT_A_FILE).
    expect(lines).toEqual([
      `无法读入 ${folder}：这不是普通文件，是文件夹；日志是写入者一条条追加出来的普通文件 / ` +
        `Cannot load ${folder}: this is a folder, not a file; a log is a regular file that a writer appended to`,
    ]);
  });

  test.skipIf(!has.unreadable)("--load of a file this user may not read: one sentence, exit 1", async ({ dir }) => {
    const file = unreadableFile(dir);
    const { code, lines } = await runInProcess(["--load", file]);
    expect(code).toBe(1);
    expect(lines).toEqual([`没有权限（EACCES），无法读入 ${file} / Cannot load ${file}: permission denied (EACCES)`]);
  });

  test("--html onto a folder or through a file is said before the run, which never starts: exit 1", async ({ folder, aFile }) => {
    const { code, lines, text } = await runInProcess(["--html", folder]);
    expect(code).toBe(1);
    expect(lines).toEqual([
      `这是一个文件夹，不是文件（EISDIR），无法写入时间线页面 ${folder} / Cannot write the timeline page ${folder}: it is a folder, not a file (EISDIR)`,
    ]);
    expect(text).not.toContain(RAN);
    const through = await runInProcess(["--html", path.join(aFile, "page.html")]);
    expect(through.code).toBe(1);
    expect(through.text).toContain("(ENOTDIR)");
    expect(through.text).not.toContain(RAN);
  });

  test.skipIf(!has.unwritable)("--html where no file may be created: one sentence, exit 1 (as root, after the run)", async ({ dir }) => {
    const file = unwritablePath(dir, "out.html");
    const { code, text } = await runInProcess(["--html", file]);
    expect(code).toBe(1);
    expect(text).toContain(
      `没有权限（EACCES），无法写入时间线页面 ${file} / Cannot write the timeline page ${file}: permission denied (EACCES)`,
    );
    // Root may create files anywhere as far as access() knows; only the write itself meets sysfs's refusal.
    expect(text.includes(RAN)).toBe(asRoot);
  });

  test(
    "as a real process: --save into a missing folder prints the sentence and exits 1, no stack trace",
    startsPrograms,
    async ({ dir }) => {
      const file = path.join(dir, "missing", "run.jsonl");
      const run = await runProgram([DEMO, "--offline", "--save", file]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`Cannot save to ${file}: it does not exist`);
      expect(run.stderr, "Node's raw error is not for the learner").toBe("");
    },
  );
});

describe("view", () => {
  const view = (dir: string, ...argv: string[]) => viewCommand(argv, { out: () => {}, env: {}, outDir: dir });

  test("--load of a folder, or of a file this user may not read: one sentence", async ({ dir, folder }) => {
    await expect(view(dir, "--load", folder)).rejects.toThrow(`无法读入 ${folder}：这不是普通文件，是文件夹；`);
    if (has.unreadable) {
      const unreadable = unreadableFile(dir);
      await expect(view(dir, "--load", unreadable)).rejects.toThrow(`Cannot load ${unreadable}: permission denied (EACCES)`);
    }
  });

  test("--out onto a folder, through a file, or where no file may be created: one sentence", async ({ dir, folder, aFile }) => {
    await expect(view(dir, "--scenario", "calculator", "--out", folder)).rejects.toThrow(
      `这是一个文件夹，不是文件（EISDIR），无法写入时间线页面 ${folder} / Cannot write the timeline page ${folder}: it is a folder, not a file (EISDIR)`,
    );
    await expect(view(dir, "--scenario", "calculator", "--out", path.join(aFile, "p.html"))).rejects.toThrow("(ENOTDIR)");
    if (has.unwritable)
      await expect(view(dir, "--scenario", "calculator", "--out", unwritablePath(dir, "out.html"))).rejects.toThrow(
        "permission denied (EACCES)",
      );
  });

  test("--out= (an empty value) is a usage error, exit 2", async ({ dir }) => {
    expect(await view(dir, "--out=")).toBe(2);
  });

  test("as a real process: --live --port on a port in use prints the sentence and exits 1, no stack trace", startsPrograms, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await runProgram([VIEW, "--live", "--port", String(port)]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `错误 / error: 端口已被占用（EADDRINUSE；用 --port 换一个，或者 --port 0 任选一个空闲端口），无法监听 127.0.0.1:${port} / ` +
          `Cannot listen on 127.0.0.1:${port}: the port is in use: choose another with --port, or --port 0 for any free one (EADDRINUSE)`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("every learner command (runMain)", () => {
  test("a file the system refuses is the sentence and exit code 1; any other error is a bug and keeps its stack", async ({ folder }) => {
    const said: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: string) => void said.push(line));
    const exitCode = process.exitCode;
    try {
      await runMain(() => {
        writeFileSync(folder, "hint state"); // what hint or reset would meet with a folder in a file's place
      });
      expect(process.exitCode).toBe(1);
      expect(said.map((line) => plain(line))).toEqual([
        `错误 / error: 这是一个文件夹，不是文件（EISDIR），无法打开 ${folder} / Cannot open ${folder}: it is a folder, not a file (EISDIR)`,
      ]);
      said.length = 0;
      await runMain(() => void readFileSync(folder)); // read() names no path: the sentence still reads
      expect(said.map((line) => plain(line))).toEqual([
        "错误 / error: 这是一个文件夹，不是文件（EISDIR），无法读取 / Cannot read: it is a folder, not a file (EISDIR)",
      ]);
      await expect(runMain(() => Promise.reject(new TypeError("a bug")))).rejects.toThrow("a bug");
    } finally {
      spy.mockRestore();
      process.exitCode = exitCode;
    }
  });
});
