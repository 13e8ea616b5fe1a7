// Step 05.7 (challenge) — the log on disk. A subscriber saves each event as one JSON line the moment it
// is committed; reading the file back drops only a last line that a crash cut short, and refuses any
// other bad line by its number; and a turn the crash left open is closed by appending, never editing.
// The format every test assumes: line n is `JSON.stringify(event #n-1)` and "\n", in id order, UTF-8.
// These tests build sessions with the chapter's Session (not your exercises/…/session.ts), so this
// step does not depend on your 05.1–05.5. Files go to a fresh temporary folder for each test.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import fc from "fast-check";
import { findLogProblems } from "../../chapters/05-session-log/invariants.ts";
import { LogFileError, RepairError, TURN_FINISHED, TURN_INTERRUPTED } from "../../chapters/05-session-log/disk/log-file-types.ts";
import { whereTheLoopStopped } from "../../chapters/05-session-log/disk/loop-order.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { ReplayError } from "../../chapters/05-session-log/session-types.ts";
import { flushesDuring, hasPrlimit, withFileSizeLimit } from "../../chapters/05-session-log/testing/real-faults.ts";
import type { SessionEvent, StreamChunk } from "../../chapters/05-session-log/events.ts";
import { attachLogFile, closingEvents, parseLogText, readLogFile, repairLog } from "./log-file.ts";
import { loopLog, loopScriptArb, mutations, streamedContradictions, streamedLog } from "./crash-runs.ts";
import { eventInputsArb } from "./arbitraries.ts";
import { chapterRunArb, input, sessionOf, storedCopy, tickingClock, type EventInput } from "./practice-runs.ts";
import { caughtAs, thrownAs } from "./thrown.ts";

let files = 0;
/** A new file name in the test's folder (`dir`, from chapters/common/temp-folder.ts). */
const newFile = (dir: string) => path.join(dir, `session-${++files}.jsonl`);

/** What the file must hold for these events: one JSON line each. */
const jsonl = (events: readonly SessionEvent[]) => events.map((event) => `${JSON.stringify(event)}\n`).join("");

const call = { id: "call_00_calc", name: "calculator", arguments: '{"expression": "1+2*3"}' };

/** The book's §5.7 round trip: 12 events, with Chinese text (several bytes per character) in the last lines. */
const roundTrip: readonly EventInput[] = [
  input("turn/start", { turn: 1 }), // #0
  input("user/message", { content: "1+2*3 等于几？" }), // #1
  input("request/header", {
    header: { model: "deepseek-flash", system: "用 calculator 计算。", tools: [] },
    reason: "initial",
  }),
  input("step/start", { turn: 1, step: 1 }), // #3
  input("assistant/message", { content: "", reasoning_content: "先乘后加，用工具。", tool_calls: [call] }), // #4
  input("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }), // #5
  input("tool/result", { call_id: call.id, content: "7", is_error: false }), // #6
  input("step/end", { turn: 1, step: 1 }), // #7
  input("step/start", { turn: 1, step: 2 }), // #8
  input("assistant/message", {
    content: "1 + 2 × 3 = 7：先算乘法，再算加法。",
    reasoning_content: "结果是 7。",
    tool_calls: [],
  }),
  input("step/end", { turn: 1, step: 2 }), // #10
  input("turn/end", { turn: 1, reason: "completed" }), // #11
];

/** A file in `dir` holding these events, written by the test itself (so the reading tests do not need your writer). */
function fileOf(dir: string, inputs: readonly EventInput[] = roundTrip): { file: string; session: Session } {
  const session = sessionOf(inputs);
  const file = newFile(dir);
  writeFileSync(file, jsonl(session.events));
  return { file, session };
}

/**
 * A session with your writer attached from the start, then `inputs` appended, then the writer stopped
 * (a writer may keep a few `assistant/chunk` events waiting for their group until then; see the chapter).
 */
function savedSession(file: string, inputs: readonly EventInput[] = roundTrip): Session {
  const session = new Session({ clock: tickingClock() });
  const stop = attachLogFile(session, file);
  for (const { type, data } of inputs) session.append(type, data);
  stop();
  return session;
}

/** Runs `action`, which must throw a LogFileError, and returns it. */
function logFileError(action: () => unknown): LogFileError {
  return thrownAs(
    LogFileError,
    action,
    "读不了、写不了的日志文件抛 LogFileError(code, source, line, detail)（log-file.ts 开头列出了测试要找的字眼） / " +
      "a log file that cannot be read or written as it is throws LogFileError(code, source, line, detail) (the words the tests want: top of log-file.ts)",
  );
}

/** "中文 / English" (the names in crash-runs.ts) as its two halves. */
const halves = (name: string) => name.split(" / ") as [zh: string, en: string];

describe("05.7 attachLogFile：持久化是一个订阅者 / persistence is a subscriber", () => {
  test("append 返回时，每条事件已经是文件里的一行 JSON（不缓冲） / each event is one JSON line in the file by the time append returns (no buffering)", ({
    dir,
  }) => {
    const file = newFile(dir);
    const session = new Session({ clock: tickingClock() });
    attachLogFile(session, file);
    for (const { type, data } of roundTrip) {
      session.append(type, data);
      // A crash right now must not lose what the session just acknowledged: write synchronously.
      expect(readFileSync(file, "utf8"), `追加 #${session.events.length - 1} 之后 / after appending #${session.events.length - 1}`).toBe(
        jsonl(session.events),
      );
    }
  });

  test("各行按 id 顺序排列，在别的订阅者里追加的事件也一样 / lines follow id order, also for events appended from inside another listener", ({
    dir,
  }) => {
    const file = newFile(dir);
    const session = new Session({ clock: tickingClock() });
    session.subscribe((event) => {
      if (event.type === "turn/start") session.append("user/message", { content: "appended by a listener" });
    });
    attachLogFile(session, file);
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    expect(readFileSync(file, "utf8")).toBe(jsonl(session.events));
  });

  test("已经有事件的会话接到新文件或空文件上时，先把已有事件全部写进去 / a session that already has events writes them all first, into a new or an empty file", ({
    dir,
  }) => {
    const session = sessionOf(roundTrip.slice(0, 5));
    const fresh = newFile(dir);
    const empty = newFile(dir);
    writeFileSync(empty, "");
    attachLogFile(session, fresh);
    attachLogFile(session, empty);
    session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
    expect(readFileSync(fresh, "utf8")).toBe(jsonl(session.events));
    expect(readFileSync(empty, "utf8")).toBe(jsonl(session.events));
  });

  test("文件里正好是这个会话的事件时，从文件末尾接着写 / a file that holds exactly this session's events is appended to where it ends", ({
    dir,
  }) => {
    const file = newFile(dir);
    const first = sessionOf(roundTrip.slice(0, 6));
    attachLogFile(first, file)();
    const again = Session.fromLog(storedCopy(first.events)); // the same log, as if loaded after a restart
    attachLogFile(again, file);
    again.append("tool/result", { call_id: call.id, content: "7", is_error: false });
    expect(readFileSync(file, "utf8")).toBe(jsonl(again.events));
  });

  test("文件里是别的会话的日志：拒绝（NOT_THIS_LOG，点出第一条不同的行），文件不动 / a file holding another session's log is refused (NOT_THIS_LOG, naming the first line that differs) and left unchanged", ({
    dir,
  }) => {
    const { file } = fileOf(dir, roundTrip.slice(0, 4));
    const before = readFileSync(file);
    // As many events, and the same first one: only line 2 tells them apart.
    const other = sessionOf([roundTrip[0]!, input("user/message", { content: "另一个会话" }), ...roundTrip.slice(2, 4)]);
    const error = logFileError(() => attachLogFile(other, file));
    expect(error.code).toBe("NOT_THIS_LOG");
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/line 2\b/);
    other.append("step/end", { turn: 1, step: 1 });
    expect(readFileSync(file), "被拒绝的写入者什么都不能写 / a refused writer must not write anything").toEqual(before);
  });

  test("文件里的事件比会话少或多，也拒绝，文件不动 / a file holding fewer or more events than the session is refused too, and left unchanged", ({
    dir,
  }) => {
    const { file } = fileOf(dir, roundTrip.slice(0, 4));
    const before = readFileSync(file);
    for (const count of [3, 5]) {
      const error = logFileError(() => attachLogFile(sessionOf(roundTrip.slice(0, count)), file));
      expect(error.code, `会话有 ${count} 条事件，文件里有 4 条 / a session of ${count} events, a file of 4`).toBe("NOT_THIS_LOG");
    }
    expect(readFileSync(file)).toEqual(before);
  });

  test("一份日志只有一个写入者：文件有活着的写入者时，第二个写入者被拒绝（LOCKED），直到第一个停下 / one log, one writer: a second writer on a file with a live writer is refused (LOCKED), until the first stops", ({
    dir,
  }) => {
    const file = newFile(dir);
    const first = new Session({ clock: tickingClock() });
    const stopFirst = attachLogFile(first, file);
    first.append("turn/start", { turn: 1 });
    const second = new Session({ clock: tickingClock() });
    // Another process would be refused the same way: the lock is a folder beside the file (lockLogFile).
    const error = logFileError(() => attachLogFile(second, file));
    expect(error.code, "碰文件之前先调用 lockLogFile(file) / call lockLogFile(file) before touching the file").toBe("LOCKED");
    second.append("turn/start", { turn: 7 });
    expect(readFileSync(file, "utf8")).toBe(jsonl(first.events));
    stopFirst(); // releases the lock: the file is free for the log it holds
    const again = Session.fromLog(storedCopy(first.events));
    attachLogFile(again, file);
    again.append("user/message", { content: "after a restart" });
    expect(readFileSync(file, "utf8")).toBe(jsonl(again.events));
  });

  test("文件里出现写入者没写过的字节，它就永远停下：FILE_CHANGED，经 onListenerError 报一次，之后什么都不再写 / bytes the writer did not write stop it for good: FILE_CHANGED, reported once through onListenerError, nothing more written", ({
    dir,
  }) => {
    const file = newFile(dir);
    const failures: unknown[] = [];
    const session = new Session({ clock: tickingClock(), onListenerError: (error) => failures.push(error) });
    attachLogFile(session, file);
    session.append("turn/start", { turn: 1 });
    // A program that ignores the lock (an editor, `echo >>`) appends a line of its own.
    const foreign = '{"written":"by someone else"}\n';
    writeFileSync(file, foreign, { flag: "a" });
    session.append("user/message", { content: "refused" });
    session.append("user/message", { content: "also refused" });
    expect(readFileSync(file, "utf8"), "绝不交错写，绝不覆盖 / never interleave, never overwrite").toBe(
      jsonl(session.events.slice(0, 1)) + foreign,
    );
    // Containment keeps the session going; the failure must still reach its owner, once, as an error it can act on.
    expect(
      failures,
      "从订阅者里抛出 LogFileError（Session 会把它交给 onListenerError），然后停下 / throw the LogFileError from the listener (the Session hands it to onListenerError), then stop",
    ).toHaveLength(1);
    const changed = caughtAs(LogFileError, failures[0], "写入者停下时抛 LogFileError / a writer that stops throws a LogFileError");
    expect(changed.code).toBe("FILE_CHANGED");
    expect(changed.message, "说出第一条丢掉的事件：event #1 / say which event was the first one lost").toContain("event #1");
  });

  test("它返回的函数停止写入；调用两次也无害 / the function it returns stops the writing; calling it twice is harmless", ({ dir }) => {
    const file = newFile(dir);
    const session = new Session({ clock: tickingClock() });
    const stop = attachLogFile(session, file);
    session.append("turn/start", { turn: 1 });
    stop();
    stop();
    session.append("user/message", { content: "not saved" });
    expect(readFileSync(file, "utf8")).toBe(jsonl(session.events.slice(0, 1)));
  });
});

describe("05.7 readLogFile 和 parseLogText：把日志读回来 / reading a log back", () => {
  const unicodeRunArb = fc
    .array(fc.string({ unit: "binary", maxLength: 12 }), { maxLength: 6 })
    .map((texts) => texts.map((content) => input("user/message", { content })));

  test("写 → 读 → 重放，什么都不变：同样的事件和消息，没有撕裂行（属性测试） / write → read → replay is the identity: the same events and messages, nothing torn (property)", ({
    dir,
  }) => {
    fc.assert(
      fc.property(fc.oneof(chapterRunArb, eventInputsArb, unicodeRunArb), (inputs) => {
        const file = newFile(dir);
        const session = new Session({ clock: tickingClock() });
        const stop = attachLogFile(session, file);
        for (const { type, data } of inputs) session.append(type, data);
        stop(); // chunk events are written in groups: once stopped, the writer has written them all
        const loaded = readLogFile(file);
        expect(loaded.torn).toBeUndefined();
        expect(loaded.format).toBe("jsonl");
        expect(loaded.session.events).toEqual(session.events);
        expect(loaded.session.deriveMessages()).toEqual(session.deriveMessages());
      }),
      { numRuns: 60 },
    );
  });

  test("带换行、U+2028、emoji 和孤立代理项的文字原样回来，每条事件一行 / text with newlines, U+2028, emoji and a lone surrogate comes back exactly, each event on one line", ({
    dir,
  }) => {
    const file = newFile(dir);
    const content = "第一行\n第二行\r\n\u2028 🧮 \ud800 end";
    const session = savedSession(file, [input("user/message", { content })]);
    expect(readFileSync(file, "utf8").split("\n")).toHaveLength(2); // one line, then the final ""
    expect(readLogFile(file).session.events).toEqual(session.events);
  });

  test("最后一行在任意字节处撕裂，都恰好保留它之前的事件 / a torn tail at every byte offset of the last line keeps exactly the events before it", ({
    dir,
  }) => {
    const { file, session } = fileOf(dir, roundTrip.slice(0, 10)); // the last line is the answer, in Chinese
    const bytes = readFileSync(file);
    const lastLine = Buffer.byteLength(jsonl(session.events.slice(-1)));
    const before = bytes.length - lastLine;
    // Every cut, including those in the middle of a character's UTF-8 bytes.
    for (let cut = 1; cut < lastLine; cut++) {
      const loaded = parseLogText(bytes.subarray(0, before + cut));
      expect(loaded.session.events, `截在第 10 行的第 ${cut} 个字节 / cut ${cut} bytes into line 10`).toEqual(session.events.slice(0, -1));
      expect(loaded.torn, `截在第 10 行的第 ${cut} 个字节 / cut ${cut} bytes into line 10`).toEqual({
        line: 10,
        reason: "unterminated",
        bytes: cut,
      });
    }
    // Cut right after a newline: nothing is torn, the log is just shorter.
    expect(parseLogText(bytes.subarray(0, before))).toMatchObject({ torn: undefined });
    expect(parseLogText(bytes.subarray(0, before)).session.events).toEqual(session.events.slice(0, -1));
  });

  test("以换行结尾、却不是合法 JSON 的最后一行（断电留下的一串 0）也是撕裂行 / a whole last line that is not an event's JSON (zeros a power loss left) is torn too", ({
    dir,
  }) => {
    const { file, session } = fileOf(dir, roundTrip.slice(0, 3));
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.alloc(40), Buffer.from("\n")]));
    const loaded = readLogFile(file);
    expect(loaded.torn).toEqual({ line: 4, reason: "not-json", bytes: 41 });
    expect(loaded.session.events).toEqual(session.events);
  });

  test("最后一行之前的任何坏行都被拒绝，报出行号，绝不跳过 / a bad line anywhere before the last is refused with its line number, never skipped", ({
    dir,
  }) => {
    const { file } = fileOf(dir);
    const lines = readFileSync(file, "utf8").split("\n").slice(0, -1);
    const damages: [string, string, (line: string) => Buffer][] = [
      ["截掉了一半", "cut in half", (line) => Buffer.from(line.slice(0, line.length >> 1))],
      ["是空行", "blank", () => Buffer.alloc(0)],
      [
        "不是 UTF-8",
        "not UTF-8",
        (line) => Buffer.concat([Buffer.from(line.slice(0, -2)), Buffer.from([0xff]), Buffer.from(line.slice(-2))]),
      ],
    ];
    for (let index = 0; index < lines.length - 1; index++) {
      for (const [howZh, how, damage] of damages) {
        const which = `第 ${index + 1} 行${howZh} / line ${index + 1} ${how}`;
        const pieces = lines.map((line, i) => (i === index ? damage(line) : Buffer.from(line)));
        const text = Buffer.concat(pieces.flatMap((piece) => [piece, Buffer.from("\n")]));
        const error = logFileError(() => parseLogText(text));
        expect(error.code, which).toBe("BAD_LINE");
        expect(error.line, which).toBe(index + 1);
        expect(error.message).toMatch(new RegExp(`line ${index + 1}\\b`));
      }
    }
  });

  test("违反重放规则的事件按行报告：ReplayError 的 event #i 就是第 i+1 行 / an event that breaks a replay rule is reported by its line: the ReplayError's event #i is line i+1", ({
    dir,
  }) => {
    const { file } = fileOf(dir);
    const lines = readFileSync(file, "utf8").split("\n");
    [lines[3], lines[4]] = [lines[4]!, lines[3]!]; // events #3 and #4 swapped: id 4 on line 4
    writeFileSync(file, lines.join("\n"));
    const error = logFileError(() => readLogFile(file));
    expect(error.code).toBe("REPLAY");
    expect(error.line).toBe(4);
    expect(error.message).toContain(`${file} line 4`);
    expect(error.cause, "把 fromLog 的 ReplayError 作为 cause / the ReplayError from fromLog as the cause").toBeInstanceOf(ReplayError);
    expect(error.cause).toMatchObject({ index: 3, code: "ID_MISMATCH" });
  });

  test("空文件是空日志 / an empty file is an empty log", ({ dir }) => {
    const file = newFile(dir);
    writeFileSync(file, "");
    expect(readLogFile(file)).toMatchObject({ torn: undefined, format: "jsonl" });
    expect(readLogFile(file).session.events).toEqual([]);
  });

  test("文件开头（编辑器加的）UTF-8 BOM 跳过并报告为 bom，JSON 数组和 JSONL 都一样 / a UTF-8 byte order mark (an editor's) is skipped and reported as bom, in a JSON array and in JSONL", () => {
    const session = sessionOf(roundTrip);
    const bom = "\ufeff";
    for (const [text, format] of [
      [`${bom}${JSON.stringify(session.events, null, 2)}`, "json-array"],
      [`${bom}${jsonl(session.events)}`, "jsonl"],
    ] as const) {
      // Read as JSONL, a BOM'd one-line array was once dropped whole as a "torn" line: 12 events lost.
      const loaded = parseLogText(text);
      const which = `带 BOM 的 ${format} / a BOM'd ${format}`;
      expect(loaded.format, which).toBe(format);
      expect(loaded.bom, which).toBe(true);
      expect(loaded.torn, which).toBeUndefined();
      expect(loaded.session.events, which).toEqual(session.events);
    }
    expect(parseLogText(jsonl(session.events))).toMatchObject({ bom: false, crlf: false });
  });

  test("CRLF 行尾（Windows）照常读入并报告为 crlf；撕裂的最后一行照样分得出 / CRLF line ends (Windows) are read and reported as crlf; a torn last line is still told apart", () => {
    const session = sessionOf(roundTrip.slice(0, 5));
    const crlf = jsonl(session.events).replaceAll("\n", "\r\n");
    const loaded = parseLogText(crlf);
    expect(loaded).toMatchObject({ crlf: true, bom: false, torn: undefined, format: "jsonl" });
    expect(loaded.session.events).toEqual(session.events);
    const cut = parseLogText(crlf.slice(0, -10));
    expect(cut.torn).toMatchObject({ line: 5, reason: "unterminated" });
    expect(cut.session.events).toEqual(session.events.slice(0, 4));
  });

  test("一条事件都读不出来的文件被拒绝（NOTHING_READ），绝不当成空日志 / a file from which not one event could be read is refused (NOTHING_READ), never an empty log", () => {
    const one = jsonl(sessionOf(roundTrip.slice(0, 1)).events);
    for (const [text, whatZh, whatEn] of [
      [one.slice(0, -5), "唯一的一行被截短", "its only line cut short"],
      ["   ", "只有空格", "only spaces"],
      ["\n", "一个空行", "one blank line"],
      ["\r", "一个单独的回车符", "a lone carriage return"],
      ['{"id":0,"type"', "半条事件", "half an event"],
      ["\u00a0[]", "不换行空格后面的数组", "an array behind a no-break space"],
    ] as const) {
      const error = logFileError(() => parseLogText(text, { source: "only.jsonl" }));
      expect(error.code, `${whatZh}：应当是 NOTHING_READ / ${whatEn}: NOTHING_READ`).toBe("NOTHING_READ");
      expect(
        error.message,
        `${whatZh}：line 为 1，detail 以 "no event could be read" 开头 / ${whatEn}: line 1, the detail starting "no event could be read"`,
      ).toMatch(/^only\.jsonl line 1: no event could be read/);
    }
  });

  test("UTF-16 文本（有些 Windows 工具这样保存）以 NOT_UTF8 拒绝，说出编码 / UTF-16 text (what some Windows tools save) is refused as NOT_UTF8, naming the encoding", () => {
    const text = JSON.stringify(sessionOf(roundTrip.slice(0, 2)).events);
    for (const [bytes, name] of [
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]), "UTF-16LE"],
      [Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]), "UTF-16BE"],
    ] as const) {
      const error = logFileError(() => parseLogText(bytes));
      expect(error.code).toBe("NOT_UTF8");
      expect(error.message, `说出编码：${name} / name the encoding: ${name}`).toContain(name);
    }
  });

  test("只读普通文件：文件夹、/dev/zero 和 FIFO 立即是 NOT_A_FILE，不存在的文件立即是 UNREADABLE / only a regular file is read: a folder, /dev/zero and a FIFO are NOT_A_FILE, a missing file UNREADABLE, each at once", ({
    dir,
  }) => {
    const fifo = path.join(dir, "pipe");
    execFileSync("mkfifo", [fifo]); // reading it would wait forever for a writer
    for (const [file, kind] of [
      [dir, "a folder"],
      ["/dev/zero", "a device"], // endless: reading it would never finish
      [fifo, "a pipe"],
    ] as const) {
      const error = logFileError(() => readLogFile(file));
      expect(error.code, file).toBe("NOT_A_FILE");
      expect(error.message, `detail 以 "this is ${kind}" 开头 / the detail starts "this is ${kind}"`).toContain(`${file}: this is ${kind}`);
    }
    const missing = logFileError(() => readLogFile(path.join(dir, "missing.jsonl")));
    expect(missing.code).toBe("UNREADABLE");
    expect(
      missing.message,
      "detail 写 `cannot open it (${error.message})`，带上系统的错误 / the detail is `cannot open it (${error.message})`, the system's error in it",
    ).toMatch(/missing\.jsonl: cannot open it \(ENOENT/);
  });

  test("由事件组成的 JSON 数组（`JSON.stringify(session.events)` 写出的那种）用同一个函数读入 / a JSON array of events (what `JSON.stringify(session.events)` writes) loads through the same function", () => {
    const session = sessionOf(roundTrip);
    const loaded = parseLogText(`\n  ${JSON.stringify(session.events, null, 2)}`);
    expect(loaded.format).toBe("json-array");
    expect(loaded.torn).toBeUndefined();
    expect(loaded.session.events).toEqual(session.events);
    const broken = logFileError(() => parseLogText(JSON.stringify(session.events).slice(0, -1), { source: "saved.json" }));
    expect(broken.code).toBe("BAD_JSON");
    expect(broken.message).toMatch(/^saved\.json: /);
  });
});

/** The rule a refused repair follows, as a failure that expects a RepairError says it. */
const refuseWhatNoCrashLeaves =
  "修复只接受循环被杀时能留下的日志（whereTheLoopStopped 说了算）：别的一律抛 RepairError(index, why)，什么都不追加 / " +
  "repair takes only a log the loop leaves when it is killed (whereTheLoopStopped says): anything else is a RepairError(index, why), and nothing is appended";

describe("05.7 repairLog：只靠追加，闭合崩溃留下的没闭合的部分 / closing what a crash left open, by appending only", () => {
  /** The round trip cut off after `count` events, as a crash would leave it, read back into a session. */
  const cutAfter = (count: number, inputs: readonly EventInput[] = roundTrip) =>
    Session.fromLog(storedCopy(sessionOf(inputs.slice(0, count)).events));

  /** Runs repairLog, which must throw a RepairError, and returns it. */
  function repairError(session: Session): RepairError {
    return thrownAs(RepairError, () => repairLog(session), refuseWhatNoCrashLeaves);
  }

  test('没有结果的调用得到 is_error 的 tool/result，然后是 step/end，最后是说明原因的 turn/end { reason: "interrupted" } / an unanswered call gets an is_error tool/result, then step/end, then turn/end { reason: "interrupted" } saying why', () => {
    const session = cutAfter(6); // the crash came while the calculator was running
    const before = session.events;
    repairLog(session);
    const added = session.events.slice(before.length);
    expect(added.map((event) => event.type)).toEqual(["tool/result", "step/end", "turn/end"]);
    expect(added[0]?.data).toMatchObject({
      call_id: call.id,
      is_error: true,
      content: expect.stringMatching(/interrupted/i),
    });
    expect(added[1]?.data).toEqual({ turn: 1, step: 1 });
    expect(added[2]?.data).toMatchObject({ turn: 1, reason: "interrupted", message: expect.stringMatching(/interrupted/i) });
    expect(findLogProblems(session.events)).toEqual([]);
  });

  test("模型要过、却没开始的调用，先记下来，再用说明情况的错误结果回答 / a call the model asked for that never started is logged and answered with an error saying so", () => {
    const second = { id: "call_01_calc", name: "calculator", arguments: '{"expression": "10/4"}' };
    const twoCalls = roundTrip
      .slice(0, 7)
      .map((entry) =>
        entry.type === "assistant/message" ? input("assistant/message", { content: "", tool_calls: [call, second] }) : entry,
      );
    const session = cutAfter(7, twoCalls); // call 1 answered, call 2 never started
    repairLog(session);
    const added = session.events.slice(7);
    expect(added.map((event) => event.type)).toEqual(["tool/call", "tool/result", "step/end", "turn/end"]);
    expect(added[0]?.data).toEqual({ call_id: second.id, name: second.name, arguments: second.arguments });
    expect(added[1]?.data).toMatchObject({ call_id: second.id, is_error: true });
    expect(session.deriveMessages().filter((message) => message.role === "tool")).toHaveLength(2);
  });

  test('最终回答已经记下的轮次以 "completed" 闭合，说明丢的只是结尾 / a turn whose final answer was logged is closed as "completed", saying only its end was lost', () => {
    for (const [count, types] of [
      [11, ["turn/end"]], // only turn/end was lost
      [10, ["step/end", "turn/end"]], // killed between the answer and its step/end: nothing else could happen
    ] as const) {
      const session = cutAfter(count);
      repairLog(session);
      expect(
        session.events.slice(count).map((event) => event.type),
        `截成 ${count} 条事件 / cut after ${count}`,
      ).toEqual(types);
      expect(session.events.at(-1)?.data, `截成 ${count} 条事件 / cut after ${count}`).toEqual({
        turn: 1,
        reason: "completed",
        message: TURN_FINISHED,
      });
    }
    // Cut before the answer: the turn had not finished, whatever came next.
    const early = cutAfter(9);
    repairLog(early);
    expect(early.events.at(-1)?.data).toMatchObject({ reason: "interrupted", message: TURN_INTERRUPTED });
  });

  test('在第一步之前中断的轮次，只用一个 turn/end "interrupted" 闭合 / a turn cut before its first step is closed with turn/end "interrupted" alone', () => {
    for (const count of [1, 2, 3]) {
      const session = cutAfter(count);
      repairLog(session);
      expect(
        session.events.slice(count).map((event) => event.type),
        `截成 ${count} 条事件 / cut after ${count}`,
      ).toEqual(["turn/end"]);
      expect(session.events.at(-1)?.data).toMatchObject({ turn: 1, reason: "interrupted" });
    }
  });

  test("closingEvents 说出 repairLog 会追加什么，自己什么都不追加 / closingEvents says what repairLog would append, and appends nothing", () => {
    const session = cutAfter(6);
    const planned = closingEvents(session.events);
    expect(session.events).toHaveLength(6);
    repairLog(session);
    expect(session.events.slice(6).map(({ type, data }) => ({ type, data }))).toEqual(planned);
    expect(closingEvents(session.events), "已经闭合的日志什么都不用补 / a closed log needs nothing").toEqual([]);
  });

  /** Kills the loop after each event of `log` in turn, and checks what repair makes of what is left. */
  function killedAfterEveryEvent(log: readonly unknown[]): void {
    for (let count = 0; count <= log.length; count++) {
      const session = Session.fromLog(storedCopy(log.slice(0, count)));
      const repaired = repairLog(session);
      expect(repaired, "修复追加到传给它的那个会话里 / repair appends to the session it is given").toBe(session);
      expect(
        storedCopy(repaired.events.slice(0, count)),
        `记下 ${count} 条事件后被杀：之前记下的一样都不能变 / killed after ${count} events: nothing logged before may change`,
      ).toEqual(storedCopy(log.slice(0, count)));
      expect(findLogProblems(repaired.events), `记下 ${count} 条事件后被杀 / killed after ${count} events`).toEqual([]);
      // What repair leaves is itself a log of this loop, every turn closed: the next turn can follow it.
      expect(
        whereTheLoopStopped(repaired.events),
        `记下 ${count} 条事件后被杀，然后修复 / killed after ${count} events, then repaired`,
      ).toEqual({ fits: true, open: undefined });
    }
  }

  test("在任何运行的任何事件之后杀掉循环：修复接受这份日志，原样保留它，留下一份循环能接着写的闭合日志（属性测试） / the loop killed after any event, in any run: repair accepts the log, keeps it, and leaves a closed log the loop could go on from (property)", async () => {
    await fc.assert(
      fc.asyncProperty(loopScriptArb, async (script) => killedAfterEveryEvent(await loopLog(script))),
      { numRuns: 40 },
    );
  });

  test("流式运行也一样：在任意两个分片之间被杀，含重试（属性测试） / the same for streamed runs, killed between any two chunks, retries included (property)", async () => {
    await fc.assert(
      fc.asyncProperty(loopScriptArb, fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), async (script, retried) =>
        killedAfterEveryEvent(streamedLog(await loopLog(script), retried)),
      ),
      { numRuns: 30 },
    );
  });

  test('回复中途断掉的流：先补一条 interrupted 的 assistant/message，保留分片带来的文字并引用它们，然后是 step/end 和 turn/end "interrupted" / a stream cut mid-reply: an interrupted assistant/message keeps the text its chunks carried and cites them, then step/end and turn/end "interrupted"', () => {
    const log = streamedLog(cutAfter(12).events, [true]);
    const answer = log.findIndex((event) => event.type === "assistant/message" && event.data.content !== "");
    // Killed after the answer's text chunks (two halves, after two halves of its reasoning) of attempt 2.
    const chunks = log
      .slice(0, answer)
      .filter((event) => event.type === "assistant/chunk" && event.data.step === 2 && event.data.attempt === 2);
    const cut = chunks[3]?.id as number;
    const session = Session.fromLog(log.slice(0, cut + 1));
    repairLog(session);
    const added = session.events.slice(cut + 1);
    expect(added.map((event) => event.type)).toEqual(["assistant/message", "step/end", "turn/end"]);
    expect(added[0]?.data).toEqual({
      content: "1 + 2 × 3 = 7：先算乘法，再算加法。",
      reasoning_content: "结果是 7。",
      tool_calls: [],
      chunk_ids: chunks.slice(0, 4).map((event) => event.id), // attempt 2's only: a retry's chunks never mix
      interrupted: true,
    });
    expect(added[2]?.data).toEqual({ turn: 1, reason: "interrupted", message: TURN_INTERRUPTED });
    // Only tool-call fragments arrived (and empty text): nothing the user saw, so no message.
    const calling = streamedLog(
      sessionOf([...roundTrip.slice(0, 4), input("assistant/message", { content: "", tool_calls: [call] })]).events,
      [false],
    );
    const fragment = calling.findIndex(
      (event) => event.type === "assistant/chunk" && (event.data.chunk as StreamChunk).kind === "tool_call",
    );
    const early = Session.fromLog(calling.slice(0, fragment + 1));
    repairLog(early);
    expect(early.events.slice(fragment + 1).map((event) => event.type)).toEqual(["step/end", "turn/end"]);
  });

  test("日志里有一处循环绝不会做的事：修复抛 RepairError 指向那条事件，什么都不追加（属性测试） / a log with one thing the loop never does is refused with RepairError naming that event, and nothing is appended (property)", async () => {
    const names = Object.keys(mutations);
    await fc.assert(
      fc.asyncProperty(loopScriptArb, fc.constantFrom(...names), fc.nat(), fc.nat(), async (script, name, at, extra) => {
        const mutated = mutations[name]?.(await loopLog(script), at);
        fc.pre(mutated !== undefined);
        const { log, index } = mutated as NonNullable<typeof mutated>;
        // Cut anywhere after the change: no crash of the loop leaves what comes before the cut.
        const count = index + 1 + (extra % (log.length - index));
        const session = Session.fromLog(log.slice(0, count));
        const error = repairError(session);
        const [zh, en] = halves(name);
        expect(error.index, `${zh}，截成 ${count} 条事件 / ${en}, cut after ${count}\n  ${error.message}`).toBe(index);
        expect(session.events, `${zh}：什么都不追加 / ${en}: nothing appended`).toHaveLength(count);
      }),
      { numRuns: 120 },
    );
  });

  test("崩溃留不下的东西被拒绝，说出是哪条事件、为什么：从没发出过的调用的结果，在另一轮里开始的轮次 / what a crash does not leave is refused with its event and why: a result for a call never made, a turn begun inside another", () => {
    const orphan = [...roundTrip, input("tool/result", { call_id: "call_never_made", content: "?", is_error: false })];
    const earlierTurnOpen = [...roundTrip.slice(0, 4), input("turn/start", { turn: 2 })];
    for (const [inputs, index, why] of [
      [orphan, 12, /tool\/result outside any step/],
      [earlierTurnOpen, 4, /turn\/start while turn 1 is still open/],
    ] as const) {
      const session = cutAfter(inputs.length, inputs);
      const error = repairError(session);
      expect(error.index).toBe(index);
      expect(error.message).toMatch(new RegExp(`event #${index} `));
      expect(error.message).toMatch(why);
      expect(session.events, "什么都不追加 / nothing appended").toHaveLength(inputs.length);
    }
  });

  test("给了文件时，有活着的写入者的日志不修复：抛 RepairError，什么都不计划（它的轮次可能还在运行） / given the file, a log that a live writer holds is not repaired: RepairError, nothing planned (its turn may be running)", ({
    dir,
  }) => {
    const { file } = fileOf(dir, roundTrip.slice(0, 9));
    const { session } = readLogFile(file);
    const stop = attachLogFile(session, file); // a live writer: it holds the file's lock
    try {
      const error = thrownAs(
        RepairError,
        () => closingEvents(session.events, { file }),
        "另一个写入者持有这个文件时不修复：用 assertNoLiveWriter 检查，把它的 LogFileError 包成 RepairError(undefined, error.message, { cause: error }) / " +
          "no repair while another writer holds the file: check with assertNoLiveWriter and wrap its LogFileError as RepairError(undefined, error.message, { cause: error })",
      );
      expect(error.index).toBeUndefined();
      expect(error.message).toMatch(/another process is writing this log/);
    } finally {
      stop();
    }
    expect(
      closingEvents(session.events, { file }).map((event) => event.type),
      "写入者停下之后 / once the writer has stopped",
    ).toEqual(["step/end", "turn/end"]);
  });

  test("每一轮都闭合的日志原样返回 / a log whose turns are all closed is returned as it is", () => {
    const session = cutAfter(12);
    expect(repairLog(session)).toBe(session);
    expect(session.events).toHaveLength(12);
  });

  test("修复经由会话追加，所以挂在会话上的写入者会把修复写进文件 / the repair goes through the session, so a writer attached to it saves the repair in the file", ({
    dir,
  }) => {
    const { file } = fileOf(dir, roundTrip.slice(0, 9)); // killed while waiting for the model's second reply
    const { session, torn } = readLogFile(file);
    expect(torn).toBeUndefined();
    attachLogFile(session, file);
    repairLog(session);
    expect(session.events.slice(9).map((event) => event.type)).toEqual(["step/end", "turn/end"]);
    expect(readFileSync(file, "utf8")).toBe(jsonl(session.events));
  });
});

// ── what a crash, a full disk and a power loss leave behind: each made for real, in this process ──

describe("05.7 机器出故障时的 attachLogFile：append 返回前刷到磁盘，被拒绝的写入要收回 / attachLogFile when the machine fails: flushed before append returns, a refused write taken back", () => {
  test("每条事件在这一行写进去之后、append 返回之前刷到磁盘（fsyncSync） / each event is flushed to disk (fsyncSync) before append returns, after its line is written", ({
    dir,
  }) => {
    const file = newFile(dir);
    const session = new Session({ clock: tickingClock() });
    const stop = attachLogFile(session, file);
    try {
      const { ino } = statSync(file);
      for (const { type, data } of roundTrip) {
        const flushes = flushesDuring(() => session.append(type, data));
        const size = Buffer.byteLength(jsonl(session.events));
        expect(
          flushes,
          `追加 #${session.events.length - 1} 时：writeSync 之后调用 fsyncSync(fd)，写进去的行在刷盘之前仍会因断电丢失 / ` +
            `appending #${session.events.length - 1}: after writeSync, call fsyncSync(fd): a written line can still be lost to a power loss until it is flushed`,
        ).toContainEqual({ ino, size });
      }
    } finally {
      stop();
    }
  });

  test.skipIf(!hasPrlimit)(
    "磁盘写到一半拒绝的写入要收回：文件里只留完整的行，写入者抛一次 WRITE_FAILED，之后什么都不再写 / a write the disk refuses partway is taken back: the file keeps only whole lines, the writer throws WRITE_FAILED once and writes no more",
    ({ dir }) => {
      const file = newFile(dir);
      const failures: unknown[] = [];
      const session = new Session({ clock: tickingClock(), onListenerError: (error) => failures.push(error) });
      const stop = attachLogFile(session, file);
      for (const { type, data } of roundTrip.slice(0, 9)) session.append(type, data);
      const before = readFileSync(file);
      const answer = roundTrip[9]!; // the final answer, a long line
      // The disk takes 20 bytes of the answer's line, then refuses the rest (a real limit on this process).
      withFileSizeLimit(before.length + 20, () => session.append(answer.type, answer.data));
      session.append("step/end", { turn: 1, step: 2 });
      stop();
      expect(
        readFileSync(file, "utf8"),
        "只留完整的行：writeSync 可能只写了一行的一部分（剩下的接着写）；写入抛错时，先把已经写进去的部分切掉（ftruncateSync(fd, size)），再抛出，否则读取时会把它当成撕裂行 / " +
          "only whole lines: writeSync may write part of a line (write the rest), and when a write throws, " +
          "cut the part already written off again (ftruncateSync(fd, size)) before you throw; a reader would call it a torn line",
      ).toBe(before.toString("utf8"));
      expect(
        failures,
        "写入失败时从订阅者里抛出 LogFileError：Session 会把它交给 onListenerError / throw a LogFileError from the listener when a write fails: the Session hands it to onListenerError",
      ).toHaveLength(1);
      expect(caughtAs(LogFileError, failures[0], "写入者停下时抛 LogFileError / a writer that stops throws a LogFileError").code).toBe(
        "WRITE_FAILED",
      );
    },
  );
});

describe("05.7 parseLogText：只有最后一行可能撕裂 / only the very last line may be torn", () => {
  test("坏行后面只跟着一个没有换行结尾的尾巴：它是带行号的 BAD_LINE，不是第二个撕裂行 / a damaged line followed by nothing but an unterminated tail is BAD_LINE with its number, not a second torn line", () => {
    const whole = jsonl(sessionOf(roundTrip.slice(0, 6)).events);
    const seventh = jsonl(sessionOf(roundTrip.slice(0, 7)).events).slice(whole.length);
    // Line 7 cut in half but ended by a newline (damage, not a crash), then the start of line 8.
    const text = `${whole}${seventh.slice(0, 20)}\n${seventh.slice(0, 12)}`;
    const error = logFileError(() => parseLogText(text));
    expect(
      error.code,
      "崩溃只能撕裂文件的最后一行（这里是没有换行的第 8 行） / only the file's very last line (here line 8, with no newline) can be torn by a crash",
    ).toBe("BAD_LINE");
    expect(error.line).toBe(7);
  });
});

describe("05.7 repairLog：流式消息就是它的分片拼成的，否则这份日志不是循环写的 / a streamed message is what its chunks assemble to, or the log is not the loop's", () => {
  test.each(Object.keys(streamedContradictions).map((name) => [...halves(name), name]))(
    "%s：不管日志截在它后面哪里，都抛 RepairError 指向这条消息，什么都不追加（属性测试） / %s: RepairError naming the message, wherever the log is cut after it, and nothing appended (property)",
    async (zh, en, name) => {
      const retriedArb = fc.array(fc.boolean(), { maxLength: 3 });
      await fc.assert(
        fc.asyncProperty(loopScriptArb, retriedArb, fc.nat(), fc.nat(), async (script, retried, at, extra) => {
          const changed = streamedContradictions[name]?.(streamedLog(await loopLog(script), retried), at);
          fc.pre(changed !== undefined);
          const { log, index } = changed as NonNullable<typeof changed>;
          const count = index + 1 + (extra % (log.length - index));
          const session = Session.fromLog(log.slice(0, count));
          const error = thrownAs(
            RepairError,
            () => repairLog(session),
            `${zh}，截成 ${count} 条事件：拿消息和它的分片对照（loop-order.ts） / ${en}, cut after ${count}: check the message against its chunks (loop-order.ts)`,
          );
          expect(error.index, error.message).toBe(index);
          expect(session.events, "什么都不追加 / nothing appended").toHaveLength(count);
        }),
        { numRuns: 25 },
      );
    },
  );
});
