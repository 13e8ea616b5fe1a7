// The Chinese half of a load or save error carries every detail its English half has: the line and the
// event (a replay refusal in the book's words, 第 3 个事件 id 为 5（应为 3）), the event type and JSON path
// a schema names, the value found, what a path leads to instead of a file, the parser's words (line breaks
// and all), the lock that holds a file. Real files: a FIFO, a device node made in the test's own folder, a
// link to itself, a sparse file, a real lock, logs written by hand. A writer's refusals: -writer.test.ts.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { file, line, said } from "../testing/log-errors.ts";
import { Session } from "../session.ts";
import { attachLogFile, readLogFile } from "./log-file.ts";
import { lockFolderOf, lockLogFile } from "./log-lock.ts";

describe("a replay refusal: the line, then the book's words for the event", () => {
  test("ID_MISMATCH: 第 2 行重放失败，第 1 个事件 id 为 5（应为 1）", ({ dir }) => {
    const gap = file(dir, "gap.jsonl", line(0, "turn/start", { turn: 1 }) + line(5, "user/message", { content: "hi" }));
    const { zh, en } = said(() => readLogFile(gap));
    expect(zh).toBe(`无法读入 ${gap}：第 2 行重放失败，第 1 个事件 id 为 5（应为 1，id 从 0 起连续编号，没有空缺）`);
    expect(en).toBe(`Cannot load ${gap} line 2: replay failed at event #1: id is 5, expected 1 (ids count from 0 without gaps)`);
  });

  test("SCHEMA: the event type and the JSON path, as the English names them", ({ dir }) => {
    const bad = file(dir, "schema.jsonl", line(0, "turn/start", { turn: 1 }) + line(1, "step/start", { turn: 1, step: "one" }));
    const { zh, en } = said(() => readLogFile(bad));
    expect(zh).toMatch(/^无法读入 \S+：第 2 行重放失败，第 1 个事件的 data 在 \$\.step 处不符合 step\/start 事件的形状（.+）$/);
    expect(en).toContain('invalid data for "step/start" at $.step');
  });

  test("ID_MISMATCH past event #9: the id found and the id expected, each of more than one digit", ({ dir }) => {
    const ten = Array.from({ length: 10 }, (_, id) => line(id, "user/message", { content: `${id}` })).join("");
    const gap = file(dir, "gap10.jsonl", `${ten}${line(12, "user/message", { content: "12" })}`);
    expect(said(() => readLogFile(gap)).zh).toBe(
      `无法读入 ${gap}：第 11 行重放失败，第 10 个事件 id 为 12（应为 10，id 从 0 起连续编号，没有空缺）`,
    );
  });

  test("NOT_AN_EVENT, BAD_TYPE and BAD_DATA: the value found, and where in data", ({ dir }) => {
    const seven = file(dir, "seven.jsonl", "7\n");
    expect(said(() => readLogFile(seven)).zh).toBe(`无法读入 ${seven}：第 1 行重放失败，第 0 个事件是 7，不是含 id、type、ts、data 的对象`);
    const type = file(dir, "type.jsonl", line(0, "", {}));
    expect(said(() => readLogFile(type)).zh).toBe(`无法读入 ${type}：第 1 行重放失败，第 0 个事件的 type 是 ""，不是非空字符串`);
    // 1e999 is JSON text that JSON.parse reads as Infinity, which no JSON text can say: not plain JSON.
    const huge = file(dir, "huge.jsonl", '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1,"x":1e999}}\n');
    const { zh, en } = said(() => readLogFile(huge));
    expect(zh).toBe(`无法读入 ${huge}：第 1 行重放失败，第 0 个事件的 data 在 $.x 处不是纯 JSON（Infinity 不是有限的数）`);
    expect(en).toBe(`Cannot load ${huge} line 1: replay failed at event #0: data is not plain JSON: $.x: Infinity is not a finite number`);
  });

  test.for([
    ["-0", '{"turn":1,"x":-0}', "$.x", "负零 -0", "negative zero (-0)"],
    [
      "an integer past 2^53",
      '{"turn":1,"x":100000000000000000000}',
      "$.x",
      "整数 100000000000000000000 超出了安全整数的范围",
      "is outside the safe range",
    ],
    ["an array for data", "[1]", "$", "事件的 data 必须是对象，不能是数组或基本值", "event data must be an object"],
  ] as const)("BAD_DATA, %s: why in Chinese too", ([, data, at, zhReason, enReason], { dir }) => {
    const bad = file(dir, "bad.jsonl", `{"id":0,"type":"turn/start","ts":1,"data":${data}}\n`);
    const { zh, en } = said(() => readLogFile(bad));
    expect(zh).toBe(`无法读入 ${bad}：第 1 行重放失败，第 0 个事件的 data 在 ${at} 处不是纯 JSON（${zhReason}）`);
    expect(en).toContain(enReason);
  });

  test("BAD_DATA nested past 500 levels: the depth in Chinese, and the path clipped as in the English half", ({ dir }) => {
    const deep = file(
      dir,
      "deep.jsonl",
      `{"id":0,"type":"turn/start","ts":1,"data":{"turn":1,"x":${"[".repeat(501)}${"]".repeat(501)}}}\n`,
    );
    const { zh, en } = said(() => readLogFile(deep));
    const clipped = `$.x${"[0]".repeat(65)}[…`;
    expect(zh).toBe(
      `无法读入 ${deep}：第 1 行重放失败，第 0 个事件的 data 在 ${clipped} 处不是纯 JSON（嵌套超过 MAX_JSON_DEPTH 规定的 500 层）`,
    );
    expect(en).toContain(`${clipped}: nested deeper than 500 levels (MAX_JSON_DEPTH)`);
  });

  test("BAD_TS and UNEXPECTED_KEY: the value or the key found", ({ dir }) => {
    const ts = file(dir, "ts.jsonl", line(0, "turn/start", { turn: 1 }, -1));
    expect(said(() => readLogFile(ts)).zh).toContain("第 1 行重放失败，第 0 个事件的 ts 是 -1，不是非负的安全整数毫秒（也不能是 -0）");
    // JSON.stringify leaves U+2028 (a line separator) as it is: the value is still found whole.
    const separator = file(dir, "separator.jsonl", line(0, "turn/start", { turn: 1 }, "a\u2028b"));
    expect(said(() => readLogFile(separator)).zh).toContain('第 0 个事件的 ts 是 "a\u2028b"，不是非负的安全整数毫秒');
    const key = file(dir, "key.jsonl", `${JSON.stringify({ id: 0, type: "turn/start", ts: 1, data: { turn: 1 }, extra: 1 })}\n`);
    expect(said(() => readLogFile(key)).zh).toContain('第 0 个事件有 id、type、ts、data 之外的键 "extra"');
  });
});

describe("what the reader found, in the Chinese half too", () => {
  test("a bad line of a log saved with CRLF line ends: the parser's words, as the English has them", ({ dir }) => {
    const turn = '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1}}\r\n';
    const crlf = file(dir, "crlf.jsonl", `${turn}not json\r\n${turn}`);
    const { zh, en } = said(() => readLogFile(crlf));
    expect(en).toContain(`line 2: the line is not JSON (Unexpected token 'o', "not json\r" is not valid JSON); only the last line`);
    expect(zh).toBe(
      `无法读入 ${crlf}：第 2 行不是合法的 JSON（Unexpected token 'o', "not json\r" is not valid JSON）。只有最后一行可能被崩溃撕裂，前面的行坏了说明文件已损坏，请人工检查`,
    );
  });

  test("a JSON array broken after a line break: the parser's words, line break and all", ({ dir }) => {
    const broken = file(dir, "broken.json", "[1,\nx]");
    const { zh, en } = said(() => readLogFile(broken));
    expect(en).toContain(`but this is not JSON (Unexpected token 'x', "[1,\nx]" is not valid JSON)`);
    expect(zh).toBe(
      `无法读入 ${broken}：以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 JSON 文本（Unexpected token 'x', "[1,\nx]" is not valid JSON）`,
    );
  });

  test("a packed row of more chunks than the writer groups, and one without a chunks array: what this row has", ({ dir }) => {
    const turn = line(0, "turn/start", { turn: 1 });
    const row = (chunks: unknown, dt: number[]) =>
      `${JSON.stringify({ packed: "assistant/chunk", id: 1, ts: 1, dt, turn: 1, step: 1, attempt: 1, chunks })}\n`;
    const many = file(
      dir,
      "many.jsonl",
      turn +
        row(
          Array.from({ length: 65 }, () => ({})),
          Array(65).fill(0),
        ) +
        turn,
    );
    expect(said(() => readLogFile(many)).zh).toContain(
      "第 2 行是损坏的打包行（打包行装 1 到 64 个分片，写入者一组最多攒这么多；这一行有 65 个）。",
    );
    const none = file(dir, "none.jsonl", turn + row("chunks", [0]) + turn);
    const { zh, en } = said(() => readLogFile(none));
    expect(en).toContain("this one has no chunks array");
    expect(zh).toContain("第 2 行是损坏的打包行（打包行装 1 到 64 个分片，写入者一组最多攒这么多；这一行没有 chunks 数组）。");
  });

  test("a file the system will not open: its reason and code (a link that leads to itself: ELOOP)", ({ dir }) => {
    const loop = path.join(dir, "loop.jsonl");
    symlinkSync(loop, loop);
    const { zh, en } = said(() => readLogFile(loop));
    expect(zh).toBe(`无法读入 ${loop}：打不开这个文件：符号链接太多，可能成了环（ELOOP）`);
    expect(en).toContain("ELOOP");
  });

  test("a file over 512 MiB (sparse: no disk used) is too large, and the sentence gives both limits in MiB", ({ dir }) => {
    const large = file(dir, "large.jsonl", "");
    truncateSync(large, 512 * 2 ** 20 + 1);
    expect(said(() => readLogFile(large)).zh).toBe(
      `无法读入 ${large}：文件太大：JSONL 日志最多 512 MiB，JSON 数组日志最多 256 MiB。读入的日志每条事件都留在内存里，太大的文件宁可拒绝，也不让程序耗尽内存`,
    );
  });

  test("a log another writer holds: the lock folder that holds it, as the English names it", ({ dir }) => {
    const held = file(dir, "held.jsonl", "");
    const release = lockLogFile(held);
    try {
      const { zh, en } = said(() => attachLogFile(new Session(), held), ["无法保存到", "Cannot save to"]);
      expect(en).toContain(`; lock: ${lockFolderOf(held)}`);
      expect(zh).toBe(`无法保存到 ${held}：文件锁在另一个进程手里：一份日志同一时刻只有一个写入者（锁：${lockFolderOf(held)}）`);
    } finally {
      release();
    }
  });
});

describe("what a path leads to instead of a file", () => {
  test.for([
    ["a folder", (dir: string) => mkdirSync(path.join(dir, "folder")), "folder", "文件夹", "a folder"],
    ["a FIFO", (dir: string) => execFileSync("mkfifo", [path.join(dir, "pipe")]), "pipe", "管道（FIFO）", "a pipe (FIFO)"],
    // /dev/zero's numbers, in the test's own folder: never the machine's node.
    ["a device", (dir: string) => execFileSync("mknod", [path.join(dir, "zero"), "c", "1", "5"]), "zero", "设备", "a device"],
  ] as const)("%s is named in both halves", ([, make, name, zhKind, enKind], { dir }) => {
    make(dir);
    const { zh, en } = said(() => readLogFile(path.join(dir, name)));
    expect(zh).toContain(`这不是普通文件，是${zhKind}；`);
    expect(en).toContain(`this is ${enKind}, not a file`);
  });
});
