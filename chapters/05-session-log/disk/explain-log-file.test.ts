// A log file that cannot be read is said Chinese first: each LogFileError code has its own Chinese
// sentence, and the English beside it names the file, the line and what was found. Real files, real faults.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { explainLogFileError } from "./explain-log-file.ts";
import { LogFileError } from "./log-file-types.ts";
import { readLogFile } from "./log-file.ts";

const turnStart = '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1}}\n';

/** What `--load` says about a file holding `bytes` (or about `file` itself when bytes is undefined). */
function said(dir: string, name: string, bytes?: string | Buffer): string {
  const file = path.join(dir, name);
  if (bytes !== undefined) writeFileSync(file, bytes);
  try {
    readLogFile(file);
  } catch (error) {
    if (error instanceof LogFileError) return explainLogFileError(error, ["无法读入", "Cannot load"]);
    throw error;
  }
  return expect.unreachable(`${name} was read as a log`);
}

describe("each reason a log cannot be read has its Chinese sentence, first, with the English beside it", () => {
  test.for([
    [
      "bad-line.jsonl",
      `${turnStart}not json\n${turnStart}`,
      "第 2 行不是合法的 JSON（Unexpected token",
      "line 2: the line is not JSON (Unexpected token",
    ],
    [
      "bad-utf8-line.jsonl",
      Buffer.concat([Buffer.from(turnStart), Buffer.from([0xff, 0x0a]), Buffer.from(turnStart)]),
      "第 2 行不是合法的 UTF-8。只有最后一行可能被崩溃撕裂",
      "line 2: the line is not valid UTF-8",
    ],
    [
      "packed-keys.jsonl",
      `${turnStart}{"packed":"assistant/chunk","id":1}\n${turnStart}`,
      '第 2 行是损坏的打包行（打包行只有 packed、id、ts、dt、turn、step、attempt、chunks 这些键，packed 是 "assistant/chunk"）',
      "line 2: the line is a damaged packed row (a packed row is {packed, id, ts, dt, turn, step, attempt, chunks}",
    ],
    [
      "packed-ids.jsonl",
      `${turnStart}{"packed":"assistant/chunk","id":"1","ts":1,"dt":[0],"turn":1,"step":1,"attempt":1,"chunks":[{}]}\n${turnStart}`,
      "第 2 行是损坏的打包行（打包行要有数字 id 和 ts、数字数组 dt，以及和 dt 一样长的 chunks 数组）",
      "line 2: the line is a damaged packed row (a packed row needs a number id and ts",
    ],
    [
      "packed-empty.jsonl",
      `${turnStart}{"packed":"assistant/chunk","id":1,"ts":1,"dt":[],"turn":1,"step":1,"attempt":1,"chunks":[]}\n${turnStart}`,
      "第 2 行是损坏的打包行（打包行装 1 到 64 个分片，写入者一组最多攒这么多；这一行有 0 个）",
      "this one has 0 chunks)",
    ],
    [
      "only-torn.jsonl",
      '{"id":0,"type":"tu',
      "一条事件也读不出来：文件唯一的一行被撕裂（没有换行结尾，18 字节）。这不是空日志",
      "line 1: no event could be read: the file's only line has no newline at its end (18 bytes)",
    ],
    [
      "only-zeros.jsonl",
      "\0\0\0\n",
      "一条事件也读不出来：文件唯一的一行被撕裂（不是合法的 JSON，4 字节）。这不是空日志",
      "line 1: no event could be read: the file's only line is not an event's JSON (4 bytes)",
    ],
    ["utf16.jsonl", Buffer.from([0xff, 0xfe, 0x7b, 0x00]), "这是 UTF-16LE 文本", "this is UTF-16"],
    [
      "not-json.json",
      '[{"id": 0,',
      "以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 JSON 文本（Expected double-quoted property name in JSON at position 10",
      "is not JSON (Expected double-quoted property name in JSON at position 10",
    ],
    [
      "not-utf8.json",
      Buffer.from([0x5b, 0xff, 0x5d]),
      "以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 UTF-8 文本",
      "the log is not valid UTF-8",
    ],
    [
      "gap.jsonl",
      `${turnStart}${turnStart}`,
      "第 2 行重放失败，第 1 个事件 id 为 0（应为 1，id 从 0 起连续编号，没有空缺）",
      "line 2: replay failed at event #1: id is 0, expected 1",
    ],
  ] as const)("%s", ([name, bytes, zh, en], { dir }) => {
    const file = path.join(dir, name);
    const line = said(dir, name, bytes);
    expect(line.startsWith(`无法读入 ${file}：${zh}`), line).toBe(true);
    expect(line).toContain(` / Cannot load ${file}`);
    expect(line).toContain(en);
  });

  test("a folder is not a log file", ({ dir }) => {
    mkdirSync(path.join(dir, "folder"));
    expect(said(dir, "folder")).toMatch(
      /^无法读入 \S+folder：这不是普通文件，是文件夹；.* \/ Cannot load \S+folder: this is a folder, not a file/,
    );
  });

  test("a replay refusal is said once in each language: the English half does not repeat the ReplayError's Chinese", ({ dir }) => {
    const line = said(dir, "gap.jsonl", `${turnStart}${turnStart}`);
    expect(line.split(" / Cannot load ")[1]).not.toMatch(/\p{Script=Han}/u);
  });
});
