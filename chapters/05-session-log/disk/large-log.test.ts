// Large logs, made for real: a sparse file past the reader's limit (truncate makes gigabytes without
// writing them), a multi-MB log read a piece at a time, and the demo loading a log in a process whose
// heap is too small for a second copy of the log as one JSON text. Speed and peak memory are measured
// in `npm run bench` (scripts/bench/bench-disk.ts), never asserted here.
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { DEMO, runInProcess, runProgram } from "../testing/demo-testing.ts";
import { writeStreamedRunLog } from "../testing/large-log.ts";
import { descriptorsOn } from "../testing/real-faults.ts";
import { explainLogFileError } from "./explain-log-file.ts";
import { LogFileError, MAX_ARRAY_BYTES, MAX_LOG_BYTES } from "./log-file-types.ts";
import { readLogFile } from "./log-file.ts";
import { whereTheLoopStopped } from "./loop-order.ts";
import { linesOf, piecesOf, READ_PIECE } from "./read-lines.ts";

describe("a file too large to read is one sentence, said before a byte is read", () => {
  test("one byte over MAX_LOG_BYTES, and 3 GiB: TOO_LARGE, the limit stated in Chinese and English", ({ dir }) => {
    for (const size of [MAX_LOG_BYTES + 1, 3 * 2 ** 30]) {
      const file = path.join(dir, `sparse-${size}.jsonl`);
      writeFileSync(file, "");
      truncateSync(file, size); // sparse: no block of it is written, and none may be read
      const error = (() => {
        try {
          return readLogFile(file);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, `${size} bytes: refused by its size, not read`).toBeInstanceOf(LogFileError);
      expect((error as LogFileError).code).toBe("TOO_LARGE");
      expect(explainLogFileError(error as LogFileError, ["无法读入", "Cannot load"])).toMatch(
        /^无法读入 .*：文件太大：JSONL 日志最多 512 MiB，.* \/ Cannot load .*: the file is larger than 512 MiB/,
      );
      expect((error as LogFileError).message).toContain("the file is larger than 512 MiB, the most a log may be here");
      expect(descriptorsOn(file), "the refused file is closed again").toEqual([]);
    }
  });

  test("the limit is on a larger file: one of exactly MAX_LOG_BYTES passes it (a JSON array that size then meets the array limit)", ({
    dir,
  }) => {
    const file = path.join(dir, "sparse-exact.json");
    writeFileSync(file, "[");
    truncateSync(file, MAX_LOG_BYTES);
    expect(() => readLogFile(file)).toThrow(
      `the file is larger than ${MAX_ARRAY_BYTES / 2 ** 20} MiB, the most a JSON array log may be here`,
    );
  });

  test("a JSON array one byte over MAX_ARRAY_BYTES: TOO_LARGE by its size, after reading one piece, not the 256 MiB", ({ dir }) => {
    const file = path.join(dir, "sparse-array.json");
    writeFileSync(file, "[");
    truncateSync(file, MAX_ARRAY_BYTES + 1); // "[" and then zeros that are never written, nor to be read
    const before = bytesReadSoFar();
    expect(() => readLogFile(file)).toThrow(expect.objectContaining({ code: "TOO_LARGE" }));
    expect(bytesReadSoFar() - before, "bytes read before the refusal: the size says it all").toBeLessThan(8 * READ_PIECE);
    expect(() => readLogFile(file)).toThrow(
      `the file is larger than ${MAX_ARRAY_BYTES / 2 ** 20} MiB, the most a JSON array log may be here`,
    );
  });

  test("demo --load of a 3 GiB file: that sentence, exit 1, no stack", async ({ dir }) => {
    const file = path.join(dir, "huge.jsonl");
    writeFileSync(file, "");
    truncateSync(file, 3 * 2 ** 30);
    const { code, text } = await runInProcess(["--offline", "--load", file]);
    expect(code).toBe(1);
    expect(text).toContain("文件太大：JSONL 日志最多 512 MiB");
    expect(text).not.toMatch(/ERR_FS_FILE_TOO_LARGE|\n\s+at /);
  });
});

describe("a log is read a piece at a time, never as one buffer", () => {
  test(`the first line of a 20 MiB log is read once one piece (${READ_PIECE / 2 ** 20} MiB) is in, and every line comes back whole`, ({
    dir,
  }) => {
    const file = path.join(dir, "streamed.jsonl");
    const events = writeStreamedRunLog(file, 20);
    const fd = openSync(file, "r");
    try {
      let pieces = 0;
      const counted = (function* () {
        for (const piece of piecesOf(fd)) {
          pieces++;
          yield piece;
        }
      })();
      const lines = linesOf(counted);
      expect(JSON.parse(Buffer.from(lines.next().value?.bytes ?? []).toString())).toMatchObject({ id: 0 });
      expect(pieces, "the first line needs only the first piece").toBe(1);
      let count = 1;
      for (const { terminated } of lines) if (terminated) count++;
      expect(count).toBe(events);
      expect(pieces, "then the rest of the file, a piece at a time").toBeGreaterThan(20);
    } finally {
      closeSync(fd);
    }
  });

  test("a line longer than a piece (one event of 2.5 MiB) is read whole across pieces", ({ dir }) => {
    const file = path.join(dir, "long-line.jsonl");
    const content = "事件溯源。".repeat((2.5 * 2 ** 20) / 15);
    writeFileSync(file, `${JSON.stringify({ id: 0, type: "user/message", ts: 1, data: { content } })}\n`);
    const { session, torn } = readLogFile(file);
    expect(torn).toBeUndefined();
    expect(session.events[0]?.data).toEqual({ content });
  });

  test("the large log the tests and the bench use is one the loop could have left: every turn closed, nothing to repair", ({ dir }) => {
    const file = path.join(dir, "streamed.jsonl");
    writeStreamedRunLog(file, 1, { packed: true });
    expect(whereTheLoopStopped(readLogFile(file).session.events)).toEqual({ fits: true, open: undefined });
  });

  test("demo --load of a 20 MiB log lives in a 128 MB heap: no second copy of the log as one JSON text", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "streamed.jsonl");
    const events = writeStreamedRunLog(file, 20);
    const run = await runProgram([DEMO, "--offline", "--load", file], { heapMb: 128 });
    expect(run.stderr, "V8 ran out of memory: the demo held the log twice over").not.toMatch(/heap out of memory/);
    expect(run.stdout).toContain(`Session.fromLog 重建 ${events} 条事件`);
  });
});

/** How many bytes this process has read so far, by any read call (Linux's /proc/self/io `rchar`). */
function bytesReadSoFar(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);
}
