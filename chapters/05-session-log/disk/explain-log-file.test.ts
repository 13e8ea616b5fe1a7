// A log file that cannot be read is said Chinese first: each LogFileError code has its own Chinese
// sentence, and the English beside it names the file, the line and what was found. Real files, real faults.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { explainLogFileError } from "./explain-log-file.ts";
import { LogFileError } from "./log-file-types.ts";
import { readLogFile } from "./log-file.ts";

const dir = mkdtempSync(path.join(tmpdir(), "explain-log-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const turnStart = '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1}}\n';

/** What `--load` says about a file holding `bytes` (or about `file` itself when bytes is undefined). */
function said(name: string, bytes?: string | Buffer): string {
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
  test.each([
    [
      "bad-line.jsonl",
      `${turnStart}not json\n${turnStart}`,
      "第 2 行读不出事件（不是合法的 JSON，或是损坏的打包行）。只有最后一行可能被崩溃撕裂",
      "line 2: the line is not JSON",
    ],
    ["only-torn.jsonl", '{"id":0,"type":"tu', "一条事件也读不出来：文件唯一的一行是撕裂的", "line 1: no event could be read"],
    ["utf16.jsonl", Buffer.from([0xff, 0xfe, 0x7b, 0x00]), "这是 UTF-16LE 文本", "this is UTF-16"],
    ["not-json.json", '[{"id": 0,', "以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 JSON 文本", "is not JSON"],
    [
      "gap.jsonl",
      `${turnStart}${turnStart}`,
      "第 2 行重放失败，第 1 个事件 id 为 0（应为 1，id 从 0 起连续编号，没有空缺）",
      "line 2: replay failed at event #1: id is 0, expected 1",
    ],
  ])("%s", (name, bytes, zh, en) => {
    const file = path.join(dir, name);
    const line = said(name, bytes);
    expect(line.startsWith(`无法读入 ${file}：${zh}`), line).toBe(true);
    expect(line).toContain(` / Cannot load ${file}`);
    expect(line).toContain(en);
  });

  test("a folder is not a log file", () => {
    mkdirSync(path.join(dir, "folder"));
    expect(said("folder")).toMatch(
      /^无法读入 \S+folder：这不是普通文件，是文件夹；.* \/ Cannot load \S+folder: this is a folder, not a file/,
    );
  });

  test("a replay refusal is said once in each language: the English half does not repeat the ReplayError's Chinese", () => {
    const line = said("gap.jsonl", `${turnStart}${turnStart}`);
    expect(line.split(" / Cannot load ")[1]).not.toMatch(/\p{Script=Han}/u);
  });
});
