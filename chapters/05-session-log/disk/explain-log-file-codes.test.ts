// Every LogFileError code has its own Chinese sentence, word for word, and the English half is the
// error's own message; a replay refusal is said by the rule it broke, with the line when there is one.
// (explain-log-file.test.ts meets the reader's codes through real files; here each code is built directly.)
import { describe, expect, test } from "vitest";
import { JsonValueError } from "../json-value.ts";
import { ReplayError, type ReplayRule } from "../session-types.ts";
import { explainLogFileError, inChinese } from "./explain-log-file.ts";
import { LogFileError, LogMemoryError, type LogFileErrorCode } from "./log-file-types.ts";

const doing = ["无法保存到", "Cannot save to"] as const;

describe("each code's Chinese sentence", () => {
  test.each([
    ["UNREADABLE", "打不开这个文件"],
    ["NOT_THIS_LOG", "文件里已有的内容不是这个会话的事件（另一份日志、事件多了或少了，或有一行撕裂的行），不往里追加"],
    ["FILE_CHANGED", "写入时文件被别的程序改动了（另一个写入者在追加），之后的事件都不再写入"],
    [
      "FILE_REPLACED",
      "这个名字已经不指向写入者打开的那个文件了（别的程序把另一个文件改名到这里、把它移走或删掉了），之后的事件都不再写进这个名字下的文件",
    ],
    ["WRITE_FAILED", "写入失败（磁盘已满，或超过了文件大小上限），之后的事件都不再写入；文件里已有的事件每条都完整"],
    ["LOCKED", "文件锁在另一个进程手里：一份日志同一时刻只有一个写入者"],
  ] as const)("%s: %s", (code: LogFileErrorCode, zh) => {
    const error = new LogFileError(code, "run.jsonl", undefined, "what the writer found");
    expect(explainLogFileError(error, doing)).toBe(`无法保存到 run.jsonl：${zh} / Cannot save to run.jsonl: what the writer found`);
  });
});

// A learner's own log-file.ts (under --mine) throws these codes in its own words: the Chinese says the
// rule alone, never a detail guessed from words it does not know, and the English is the learner's message.
describe("a reader's code in the learner's own words: the rule, no detail guessed", () => {
  test.each([
    ["NOT_A_FILE", "这不是普通文件，是文件夹、管道或设备；日志是写入者一条条追加出来的普通文件"],
    ["NOT_UTF8", "这是 UTF-16 文本（开头是 UTF-16 的字节顺序标记），日志必须是 UTF-8"],
    [
      "NOTHING_READ",
      "一条事件也读不出来：文件唯一的一行被撕裂。这不是空日志；日志是 UTF-8 的 JSONL（每行一条事件），或者一个由事件组成的 JSON 数组",
    ],
    ["BAD_JSON", "以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 JSON 文本"],
  ] as const)("%s: %s", (code: LogFileErrorCode, zh) => {
    const error = new LogFileError(code, "run.jsonl", undefined, "what my reader found");
    expect(explainLogFileError(error, ["无法读入", "Cannot load"])).toBe(
      `无法读入 run.jsonl：${zh} / Cannot load run.jsonl: what my reader found`,
    );
  });

  test("BAD_LINE: the line, and that no event could be read from it", () => {
    const error = new LogFileError("BAD_LINE", "run.jsonl", 3, "what my reader found");
    expect(inChinese(error)).toBe(
      "第 3 行读不出事件（不是合法的 JSON，或是损坏的打包行）。只有最后一行可能被崩溃撕裂，前面的行坏了说明文件已损坏，请人工检查",
    );
  });
});

describe("a replay refusal from a learner's Session.fromLog, in its own words: the rule it broke, no value guessed", () => {
  test.each([
    ["NOT_A_LOG", "my log is not a list", "整份日志不是事件的数组"],
    ["ID_MISMATCH", "the id of event 3 is 5", "第 3 个事件的 id 不对（应为 3，id 从 0 起连续编号，没有空缺）"],
    // The chapter's words, not at the start of the detail: still not the chapter's detail.
    ["ID_MISMATCH", "event 3: id is 5, expected 3 (no gaps)", "第 3 个事件的 id 不对（应为 3，id 从 0 起连续编号，没有空缺）"],
    ["NOT_AN_EVENT", "event 3 is not an object", "第 3 个事件不是含 id、type、ts、data 的对象"],
    ["UNEXPECTED_KEY", 'event 3: unexpected key "x" (an event has four keys)', "第 3 个事件有 id、type、ts、data 之外的键"],
    ["BAD_TYPE", "event 3 has no type", "第 3 个事件的 type 不是非空字符串"],
    ["BAD_DATA", "event 3's data is not JSON", "第 3 个事件的 data 不是纯 JSON"],
    ["SCHEMA", "event 3's data has the wrong shape", "第 3 个事件的 data 不符合这种事件类型的形状"],
  ] as const)("%s (%s)", (code: ReplayRule, detail, zh) => {
    const error = new LogFileError("REPLAY", "run.jsonl", undefined, "replay failed", { cause: new ReplayError(3, code, detail) });
    expect(inChinese(error)).toBe(`重放失败，${zh}`);
  });

  test("BAD_DATA for a reason JSON text cannot lead to (a learner's own checks): the reason quoted as it is", () => {
    const json = new JsonValueError("$.a", "circular reference");
    const cause = new ReplayError(3, "BAD_DATA", `data is not plain JSON: ${json.message}`, { cause: json });
    expect(inChinese(new LogFileError("REPLAY", "run.jsonl", undefined, "replay failed", { cause }))).toBe(
      "重放失败，第 3 个事件的 data 在 $.a 处不是纯 JSON（circular reference）",
    );
  });

  test("NOT_A_LOG in the chapter's words: what was found instead of an array", () => {
    const cause = new ReplayError(0, "NOT_A_LOG", "a log must be an array of events, got an object");
    expect(inChinese(new LogFileError("REPLAY", "run.json", undefined, "replay failed", { cause }))).toBe(
      "重放失败，整份日志不是事件的数组（是 an object）",
    );
  });
});

describe("a replay refusal", () => {
  const replayError = (line: number | undefined) =>
    new LogFileError("REPLAY", "run.jsonl", line, "replay failed", { cause: new ReplayError(3, "BAD_TS", "ts is -1") });

  test("with a line, says the line and the event, then the rule; the English half names both without the Chinese", () => {
    expect(explainLogFileError(replayError(4), ["无法读入", "Cannot load"])).toBe(
      "无法读入 run.jsonl：第 4 行重放失败，第 3 个事件的 ts 不是非负的安全整数毫秒（也不能是 -0） / Cannot load run.jsonl line 4: replay failed at event #3: ts is -1",
    );
  });

  test("without a line (a JSON array), says the event only", () => {
    expect(explainLogFileError(replayError(undefined), ["无法读入", "Cannot load"])).toBe(
      "无法读入 run.jsonl：重放失败，第 3 个事件的 ts 不是非负的安全整数毫秒（也不能是 -0） / Cannot load run.jsonl: replay failed at event #3: ts is -1",
    );
  });

  test("whose cause is not a ReplayError says only that fromLog refused, and keeps the error's own message", () => {
    const error = new LogFileError("REPLAY", "run.jsonl", 2, "something else", { cause: new Error("x") });
    expect(inChinese(error)).toBe("Session.fromLog 拒绝重放这份日志");
    expect(explainLogFileError(error, ["无法读入", "Cannot load"])).toBe(
      "无法读入 run.jsonl：Session.fromLog 拒绝重放这份日志 / Cannot load run.jsonl line 2: something else",
    );
  });
});

describe("a log refused for the memory it would take", () => {
  const MiB = 2 ** 20;

  test("JSONL: the line, the events by then, the whole log's estimate, the limit and a heap that takes it, in Chinese as in English", () => {
    const memory = { events: 76_800, estimate: 45.5 * MiB, limit: 12.25 * MiB, heap: 512 };
    const error = new LogMemoryError("run.jsonl", 1200, memory, "what the reader counted");
    expect(explainLogFileError(error, ["无法读入", "Cannot load"])).toBe(
      "无法读入 run.jsonl：内存放不下这份日志：读到第 1200 行已有 76800 条事件，照这个比例，整份日志在内存里约 45.5 MiB（每条事件约 240 字节，分片和已读过的相同时约 160 字节，不少于它那一行的字节数），" +
        "超过了这里读入一份日志的上限 12.3 MiB（本进程剩余堆内存的七分之一）。文件本身没有损坏：用更大的堆再读，例如 NODE_OPTIONS=--max-old-space-size=512" +
        " / Cannot load run.jsonl line 1200: what the reader counted",
    );
  });

  test("a JSON array: refused by its size before it is parsed, at three times its size", () => {
    const memory = { events: undefined, estimate: 60 * MiB, limit: 40 * MiB, heap: 1024 };
    const error = new LogMemoryError("run.json", undefined, memory, "what the reader counted");
    expect(inChinese(error)).toBe(
      "内存放不下这份日志：JSON 数组日志要整个解析，它的文本和事件同时在内存里，约为文件大小的 3 倍，约 60.0 MiB，" +
        "超过了这里读入一份日志的上限 40.0 MiB（本进程剩余堆内存的七分之一）。文件本身没有损坏：用更大的堆再读，例如 NODE_OPTIONS=--max-old-space-size=1024",
    );
  });

  test("the code without the figures (not a LogMemoryError) still says what happened", () => {
    expect(inChinese(new LogFileError("TOO_LARGE_IN_MEMORY", "run.jsonl", 3, "x"))).toBe("内存放不下这份日志");
  });
});
