// The account of a loaded log, line by line: what was read (and in which format), what was skipped or
// torn, and what repair appends or why it refuses, Chinese first with the English beside it. The demo's
// --load and `npm run view -- --load` print these lines (demo/view.test.ts checks both print them).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { accountLines, accountOfLog, type RepairTo } from "./log-account.ts";
import { TURN_FINISHED, TURN_INTERRUPTED } from "./log-file-types.ts";
import { parseLogText, readLogFile } from "./log-file.ts";
import { attachLogFile } from "./log-writer.ts";

const dir = mkdtempSync(path.join(tmpdir(), "log-account-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILE = "run.jsonl";
const line = (id: number, type: string, data: object) => `${JSON.stringify({ id, type, ts: id, data })}\n`;
const opening = [
  line(0, "turn/start", { turn: 1 }),
  line(1, "user/message", { content: "1+1?" }),
  line(2, "request/header", { header: { model: "m", system: "s", tools: [] }, reason: "initial" }),
  line(3, "step/start", { turn: 1, step: 1 }),
];
const answer = line(4, "assistant/message", { content: "2", reasoning_content: null, tool_calls: [] });
const closed = [...opening, answer, line(5, "step/end", { turn: 1, step: 1 }), line(6, "turn/end", { turn: 1, reason: "completed" })];

const account = (text: string, repairTo: RepairTo = "memory") => accountOfLog(FILE, parseLogText(text), { repairTo });

describe("what was read", () => {
  test("the first line counts the events and names the format, in both languages", () => {
    expect(account(closed.join("")).lines[0]).toEqual(["从 run.jsonl 读入 7 条事件（jsonl）", "Loaded run.jsonl: 7 events (jsonl)"]);
    const array = `[${closed.map((text) => text.trim()).join(",")}]`;
    expect(account(array).lines[0]).toEqual(["从 run.jsonl 读入 7 条事件（json-array）", "Loaded run.jsonl: 7 events (json-array)"]);
  });

  test("a closed log read cleanly is two lines: what was read, and that nothing needs repair", () => {
    expect(account(closed.join(""))).toEqual({
      lines: [
        ["从 run.jsonl 读入 7 条事件（jsonl）", "Loaded run.jsonl: 7 events (jsonl)"],
        ["每一轮都已闭合，无需修复", "Every turn is closed: nothing to repair"],
      ],
      closing: [],
    });
  });

  test("a byte order mark and CRLF line ends are each said once, with what to do about CRLF", () => {
    const { lines } = account(`\ufeff${closed.join("").replaceAll("\n", "\r\n")}`);
    expect(lines.slice(1, 3)).toEqual([
      ["文件开头有 UTF-8 BOM（编辑器加的），已跳过", "The file starts with a UTF-8 byte order mark (an editor's), skipped"],
      [
        "行尾是 CRLF（Windows 换行），不是写入者写的 \\n：事件照常读入；要接着写，请用 --save 另存到新文件",
        'Lines end in CRLF (Windows), not the writer\'s "\\n": the events read as usual; to go on, save to a new file (--save)',
      ],
    ]);
  });

  test("a torn last line says its number, why it is torn, and its size in bytes", () => {
    const cut = `${closed.join("")}{"id":7,"ty`;
    expect(account(cut).lines[1]).toEqual([
      "第 8 行被撕裂（没有换行结尾，11 字节）：崩溃打断的写入，已丢弃，之前的事件全部保留",
      "Line 8 is torn (no newline at its end, 11 bytes): a write cut short by a crash; dropped, every event before it kept",
    ]);
    const garbled = `${closed.join("")}{"id":7,"ty\n`;
    expect(account(garbled).lines[1]).toEqual([
      "第 8 行被撕裂（不是合法的 JSON，12 字节）：崩溃打断的写入，已丢弃，之前的事件全部保留",
      "Line 8 is torn (not an event's JSON, 12 bytes): a write cut short by a crash; dropped, every event before it kept",
    ]);
  });
});

describe("what repair appends", () => {
  test("a turn whose final answer was logged closes as completed; each appended event is shown whole, numbered after the last", () => {
    const { lines, closing } = account([...opening, answer].join(""));
    expect(closing.map((event) => event.type)).toEqual(["step/end", "turn/end"]);
    expect(lines.slice(1)).toEqual([
      [
        "最后一轮的最终回答已经记下，只丢了结尾，记为 completed；修复追加 2 条事件（只在内存里，文件不变，继续对话时才写入）：",
        "Repair: the last turn's final answer was logged and only its end was lost, so it closes as completed; 2 events appended (in memory only: the file is unchanged until the conversation goes on):",
      ],
      ['#5 step/end {"turn":1,"step":1}', '#5 step/end {"turn":1,"step":1}'],
      [
        `#6 turn/end ${JSON.stringify({ turn: 1, reason: "completed", message: TURN_FINISHED })}`,
        `#6 turn/end ${JSON.stringify({ turn: 1, reason: "completed", message: TURN_FINISHED })}`,
      ],
    ]);
  });

  test("a turn cut just before its turn/end is closed by that one event, as completed", () => {
    const { lines, closing } = account(closed.slice(0, -1).join(""));
    expect(closing.map((event) => event.type)).toEqual(["turn/end"]);
    expect(lines[1]?.[0]).toBe(
      "最后一轮的最终回答已经记下，只丢了结尾，记为 completed；修复追加 1 条事件（只在内存里，文件不变，继续对话时才写入）：",
    );
  });

  test("a turn stopped midway closes as interrupted; saved, the repair is said to go into the file", () => {
    const { lines } = account(opening.join(""), { file: FILE });
    expect(lines.slice(1)).toEqual([
      [
        "最后一轮停在中途（进程被杀或崩溃），记为 interrupted；修复追加 2 条事件，写入 run.jsonl：",
        "Repair: the last turn stopped midway (the process was killed or crashed), so it closes as interrupted; 2 events appended, into run.jsonl:",
      ],
      ['#4 step/end {"turn":1,"step":1}', '#4 step/end {"turn":1,"step":1}'],
      [
        `#5 turn/end ${JSON.stringify({ turn: 1, reason: "interrupted", message: TURN_INTERRUPTED })}`,
        `#5 turn/end ${JSON.stringify({ turn: 1, reason: "interrupted", message: TURN_INTERRUPTED })}`,
      ],
    ]);
  });

  test("a log no crash leaves is not repaired: the event is named in Chinese, the RepairError's message in English", () => {
    const { lines, closing } = account([...opening, line(4, "turn/start", { turn: 2 })].join(""));
    expect(closing).toEqual([]);
    expect(lines.slice(1)).toEqual([
      [
        "无法靠追加修复：事件 #4（turn/start）不可能是智能体循环写在这里的，这不是崩溃留下的日志，请人工检查",
        expect.stringMatching(/^Not repaired: .*event #4 .*turn\/start while turn 1 is still open/),
      ],
    ]);
  });

  test("a log a live writer holds is not repaired: its last turn may still be running", () => {
    const file = path.join(dir, "live.jsonl");
    writeFileSync(file, opening.join(""));
    const loaded = readLogFile(file);
    const stop = attachLogFile(loaded.session, file);
    try {
      const { lines, closing } = accountOfLog(file, loaded, { repairTo: "memory" });
      expect(closing).toEqual([]);
      expect(lines.slice(1)).toEqual([
        [
          "无法靠追加修复：另一个进程正在写这个文件，最后一轮可能还在运行",
          expect.stringMatching(/^Not repaired: .*another process is writing this log/),
        ],
      ]);
    } finally {
      stop();
    }
  });
});

describe("accountLines: the account as terminal lines", () => {
  test("each Chinese line has its English below it in brackets; an event, the same in both, is printed once, indented further", () => {
    const lines = accountLines({
      lines: [
        ["读入", "Loaded"],
        ["#5 step/end {}", "#5 step/end {}"],
      ],
      closing: [],
    });
    expect(lines).toEqual(["  读入", "  (Loaded)", "    #5 step/end {}"]);
  });
});
