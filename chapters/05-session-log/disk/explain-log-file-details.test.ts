// The Chinese half of a load or save error carries every detail its English half has: the line and the
// event (a replay refusal in the book's words, 第 3 个事件 id 为 5（应为 3）), the event type and JSON path
// a schema names, the value found, what a path leads to instead of a file, the counts a writer found,
// how far a stopped writer got. Real files: a FIFO, a device node made in the test's own folder, logs
// written by hand.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { Session } from "../session.ts";
import { explainLogFileError } from "./explain-log-file.ts";
import { LogFileError, LogWriteError } from "./log-file-types.ts";
import { attachLogFile, readLogFile } from "./log-file.ts";

const dir = mkdtempSync(path.join(tmpdir(), "explain-details-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (id: number, type: string, data: object, ts = 1) => `${JSON.stringify({ id, type, ts, data })}\n`;

/** What the demo says, Chinese half and English half, when `action` throws a LogFileError. */
function said(action: () => unknown, doing: readonly [string, string] = ["无法读入", "Cannot load"]): { zh: string; en: string } {
  try {
    action();
  } catch (error) {
    if (!(error instanceof LogFileError)) throw error;
    const [zh = "", en = ""] = explainLogFileError(error, doing).split(" / ");
    return { zh, en };
  }
  return expect.unreachable("nothing was thrown");
}

function file(name: string, text: string): string {
  const made = path.join(dir, name);
  writeFileSync(made, text);
  return made;
}

describe("a replay refusal: the line, then the book's words for the event", () => {
  test("ID_MISMATCH: 第 2 行重放失败，第 1 个事件 id 为 5（应为 1）", () => {
    const gap = file("gap.jsonl", line(0, "turn/start", { turn: 1 }) + line(5, "user/message", { content: "hi" }));
    const { zh, en } = said(() => readLogFile(gap));
    expect(zh).toBe(`无法读入 ${gap}：第 2 行重放失败，第 1 个事件 id 为 5（应为 1，id 从 0 起连续编号，没有空缺）`);
    expect(en).toBe(`Cannot load ${gap} line 2: replay failed at event #1: id is 5, expected 1 (ids count from 0 without gaps)`);
  });

  test("SCHEMA: the event type and the JSON path, as the English names them", () => {
    const bad = file("schema.jsonl", line(0, "turn/start", { turn: 1 }) + line(1, "step/start", { turn: 1, step: "one" }));
    const { zh, en } = said(() => readLogFile(bad));
    expect(zh).toMatch(/^无法读入 \S+：第 2 行重放失败，第 1 个事件的 data 在 \$\.step 处不符合 step\/start 事件的形状（.+）$/);
    expect(en).toContain('invalid data for "step/start" at $.step');
  });

  test("BAD_TS and UNEXPECTED_KEY: the value or the key found", () => {
    const ts = file("ts.jsonl", line(0, "turn/start", { turn: 1 }, -1));
    expect(said(() => readLogFile(ts)).zh).toContain("第 1 行重放失败，第 0 个事件的 ts 是 -1，不是非负的安全整数毫秒（也不能是 -0）");
    const key = file("key.jsonl", `${JSON.stringify({ id: 0, type: "turn/start", ts: 1, data: { turn: 1 }, extra: 1 })}\n`);
    expect(said(() => readLogFile(key)).zh).toContain('第 0 个事件有 id、type、ts、data 之外的键 "extra"');
  });
});

describe("what a path leads to instead of a file", () => {
  test.each([
    ["a folder", () => mkdirSync(path.join(dir, "folder")), "folder", "文件夹", "a folder"],
    ["a FIFO", () => execFileSync("mkfifo", [path.join(dir, "pipe")]), "pipe", "管道（FIFO）", "a pipe (FIFO)"],
    // /dev/zero's numbers, in the test's own folder: never the machine's node.
    ["a device", () => execFileSync("mknod", [path.join(dir, "zero"), "c", "1", "5"]), "zero", "设备", "a device"],
  ])("%s is named in both halves", (_what, make, name, zhKind, enKind) => {
    make();
    const { zh, en } = said(() => readLogFile(path.join(dir, name)));
    expect(zh).toContain(`这不是普通文件，是${zhKind}；`);
    expect(en).toContain(`this is ${enKind}, not a file`);
  });
});

describe("a writer refused a file that is not its session's log: the counts it found", () => {
  const logOf = (count: number) => {
    const session = new Session({ clock: () => 1 });
    for (let turn = 1; turn <= count; turn++) session.append("turn/start", { turn });
    return session;
  };
  const saved = (name: string, count: number) =>
    file(
      name,
      logOf(count)
        .events.map((event) => `${JSON.stringify(event)}\n`)
        .join(""),
    );
  const save = ["无法保存到", "Cannot save to"] as const;

  test("more events than the session's", () => {
    const more = saved("more.jsonl", 3);
    expect(said(() => attachLogFile(logOf(2), more), save).zh).toBe(`无法保存到 ${more}：文件里的事件比这个会话的 2 条还多，不往里追加`);
  });

  test("only the first of the session's events", () => {
    const fewer = saved("fewer.jsonl", 2);
    const { zh, en } = said(() => attachLogFile(logOf(3), fewer), save);
    expect(zh).toBe(`无法保存到 ${fewer}：文件里只有这个会话 3 条事件中的前 2 条，不往里追加`);
    expect(en).toContain("the file holds only 2 of this session's 3 events");
  });

  test("the first line that differs, and the event it should hold", () => {
    const other = file("other.jsonl", line(0, "turn/start", { turn: 1 }) + line(1, "user/message", { content: "另一个会话" }));
    const session = logOf(1);
    session.append("user/message", { content: "这个会话" });
    const { zh, en } = said(() => attachLogFile(session, other), save);
    expect(zh).toBe(`无法保存到 ${other}：文件第 2 行不是这个会话的事件 #1（另一份日志，或一行撕裂的行），不往里追加`);
    expect(en).toContain("line 2 of the file is not event #1 of this session");
  });
});

describe("a writer that stopped: why, and how far the file got", () => {
  test("WRITE_FAILED names the system's reason and code, the first event lost and the events kept", () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
    const error = new LogWriteError("WRITE_FAILED", "run.jsonl", 7, 7, "event #7 and every event after it were not written", {
      cause: full,
    });
    expect(explainLogFileError(error, ["无法保存到", "Cannot save to"])).toBe(
      "无法保存到 run.jsonl：写入失败（磁盘已满，ENOSPC），之后的事件都不再写入；文件里已有的事件每条都完整。" +
        "事件 #7 及之后的事件都没有写入，文件里是完整的前 7 条事件 / Cannot save to run.jsonl: event #7 and every event after it were not written",
    );
  });
});
