// A log is refused by what its events cost in memory (log-memory.ts), not by its bytes: in a process
// with a real heap limit (`node --max-old-space-size`), a log that would not fit is one sentence with
// the limit, at the line where the count passed it — never V8's out-of-memory native stack — and the same
// file loads in a larger heap. The figures (peak memory of the reader and the demo) are in `npm run bench`.
import { closeSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { DEMO, readInHeap, runProgram } from "../testing/demo-testing.ts";
import { writeStreamedRunLog } from "../testing/large-log.ts";
import { parseLine } from "./jsonl.ts";
import { entriesOfRow } from "./log-rows.ts";
import { linesOf, piecesOf } from "./read-lines.ts";

/** The same events as `packed`, one per line. */
function unpacked(packed: string, file: string): void {
  const fd = openSync(packed, "r");
  const out = openSync(file, "w");
  for (const { bytes } of linesOf(piecesOf(fd))) {
    const parsed = parseLine(bytes);
    const row = parsed.ok ? entriesOfRow(parsed.value) : undefined;
    if (row === undefined || !("entries" in row)) throw new Error(`${packed}: not a line the writer writes`);
    writeSync(out, row.entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
  }
  closeSync(fd);
  closeSync(out);
}

/** The events of the JSONL file `plain` as one JSON array, written a line at a time. */
function asArray(plain: string, file: string): void {
  const fd = openSync(plain, "r");
  const out = openSync(file, "w");
  let separator = "[";
  for (const { bytes } of linesOf(piecesOf(fd))) {
    writeSync(out, separator);
    writeSync(out, bytes);
    separator = ",";
  }
  writeSync(out, "]");
  closeSync(fd);
  closeSync(out);
}

const OUT_OF_MEMORY = /heap out of memory|FatalProcessOutOfMemory|Last few GCs/;
const REFUSED =
  /^无法读入 .*：内存放不下这份日志：读到第 \d+ 行已有 \d+ 条事件，照这个比例，整份日志在内存里约 [\d.]+ MiB（每条事件约 240 字节，分片和已读过的相同时约 160 字节，不少于它那一行的字节数），超过了这里读入一份日志的上限 [\d.]+ MiB（本进程剩余堆内存的七分之一）。文件本身没有损坏：用更大的堆再读，例如 NODE_OPTIONS=--max-old-space-size=(\d+) \/ Cannot load .* line \d+: the log would take more memory than a loaded log may have here: by this line it holds \d+ events; at that rate the whole log would take about [\d.]+ MiB/m;

describe("a log that would not fit this process's memory is refused in a sentence, by what its events cost", () => {
  test("demo --load of a 24 MiB log in the writer's packed format, in a 192 MB heap: the sentence with the limit, exit 1, no V8 stack", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "packed.jsonl");
    writeStreamedRunLog(file, 24, { packed: true });
    const demo = await runProgram([DEMO, "--offline", "--load", file], { heapMb: 192 });
    expect(demo.stderr, "V8 ran out of memory: the log was loaded before what it costs was counted").not.toMatch(OUT_OF_MEMORY);
    expect(demo.stdout).toMatch(REFUSED);
    expect(demo.code).toBe(1);
  });

  test("the same events one per line (2.7 × the bytes) get the same refusal; the packed file loads whole in the heap the sentence names", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const packed = path.join(dir, "packed.jsonl");
    const events = writeStreamedRunLog(packed, 24, { packed: true });
    const plain = path.join(dir, "plain.jsonl");
    unpacked(packed, plain);
    const heaps: number[] = [];
    for (const file of [packed, plain]) {
      const small = await readInHeap(file, 192);
      expect(small.stderr, file).not.toMatch(OUT_OF_MEMORY);
      expect(small.stdout, file).toMatch(REFUSED);
      heaps.push(Number(REFUSED.exec(small.stdout)?.[1]));
    }
    expect(heaps[1], "the same events: the same heap is named").toBe(heaps[0]);
    expect((await readInHeap(packed, heaps[0] ?? 0)).stdout.trim()).toBe(`${events} events`);
  });

  test("a JSON array whose text and events would not fit is refused by its size before it is parsed: 60 MB in a 192 MB heap", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "array.json");
    const plain = path.join(dir, "plain.jsonl");
    writeStreamedRunLog(plain, 60);
    asArray(plain, file);
    const small = await readInHeap(file, 192);
    expect(small.stderr, "V8 ran out of memory parsing the array").not.toMatch(OUT_OF_MEMORY);
    expect(small.stdout).toMatch(
      /^无法读入 .*：内存放不下这份日志：JSON 数组日志要整个解析，它的文本和事件同时在内存里，约为文件大小的 3 倍，约 [\d.]+ MiB，超过了这里读入一份日志的上限 [\d.]+ MiB（本进程剩余堆内存的七分之一）。.* \/ Cannot load [^ ]+: the log would take more memory than a loaded log may have here: a JSON array is parsed whole/m,
    );
  });
});
