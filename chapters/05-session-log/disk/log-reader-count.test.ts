// What the reader counts against the memory a loaded log may have, line by line (log-reader.ts with
// log-memory.ts's lineCost). Here the limit is a figure the test sets, so each rule shows on a log of a
// few lines: where the count passes the limit, what a line costs, which chunks count as shared, and what
// the refusal reports. The same refusal under a real heap limit, in a process of its own, is in
// log-memory.test.ts and loaded-log-memory.test.ts.
import { truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, vi } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { line } from "../testing/log-errors.ts";
import { EVENT_BYTES, SHARED_CHUNK_BYTES } from "./log-memory.ts";

// The one thing replaced: how much memory this process gives one log (a seventh of the heap left). The
// reader is imported afresh with it, since the files of this project share one module cache (isolate:
// false), where another test may have loaded the reader with the real figure already.
const heap = { limit: Number.POSITIVE_INFINITY };
let reader: typeof import("./log-file.ts") & typeof import("./log-file-types.ts");
beforeAll(async () => {
  vi.resetModules();
  vi.doMock("./log-memory.ts", async (importOriginal) => ({
    ...(await importOriginal<typeof import("./log-memory.ts")>()),
    memoryForALog: () => heap.limit,
  }));
  reader = { ...(await import("./log-file.ts")), ...(await import("./log-file-types.ts")) };
});
afterAll(() => {
  vi.doUnmock("./log-memory.ts");
  vi.resetModules();
});
beforeEach(() => {
  heap.limit = Number.POSITIVE_INFINITY;
});
const parseLogText = (...args: Parameters<typeof reader.parseLogText>) => reader.parseLogText(...args);
const readLogFile = (...args: Parameters<typeof reader.readLogFile>) => reader.readLogFile(...args);

const SHARED = EVENT_BYTES - SHARED_CHUNK_BYTES; // what a chunk event costs when its chunk repeats one read before

const start = () => line(0, "turn/start", { turn: 1 });
const step = () => line(1, "step/start", { turn: 1, step: 1 });
const chunkLine = (id: number, chunk: object) => line(id, "assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk });
/** turn/start, step/start, then one chunk event a line: `chunks(i)` is event #(i + 2)'s chunk. */
function chunkLog(count: number, chunks: (index: number) => object): string {
  const lines = [start(), step(), ...Array.from({ length: count }, (_, index) => chunkLine(index + 2, chunks(index)))];
  return lines.join("");
}
/** `count` user messages, one a line: each line is shorter than EVENT_BYTES, so each costs a whole event. */
function messageLog(count: number): string {
  return Array.from({ length: count }, (_, id) => line(id, "user/message", { content: `问题 ${id % 10}` })).join("");
}

function refusal(read: () => unknown) {
  return thrownAs(reader.LogMemoryError, read, "这份日志应当因内存不够被拒绝 / the log must be refused for memory");
}

describe("a JSONL log is refused at the line where what its lines cost passes the limit, not before", () => {
  test("lines that cost exactly the limit load; one event more is refused at its line", () => {
    heap.limit = 6 * EVENT_BYTES;
    expect(parseLogText(messageLog(6)).session.events).toHaveLength(6);
    const error = refusal(() => parseLogText(messageLog(7)));
    expect(error).toMatchObject({ code: "TOO_LARGE_IN_MEMORY", line: 7 });
    expect(error.memory).toMatchObject({ events: 7, estimate: 7 * EVENT_BYTES, limit: 6 * EVENT_BYTES });
  });

  test("the estimate scales the count by the bytes still unread: refused at line 7 of 14, about twice what 7 lines cost", () => {
    heap.limit = 6 * EVENT_BYTES;
    const log = messageLog(14);
    const read = Buffer.byteLength(log.split("\n").slice(0, 7).join("\n")) + 1; // seven lines and their newlines
    const error = refusal(() => parseLogText(log));
    expect(error).toMatchObject({ line: 7, memory: { events: 7, estimate: (7 * EVENT_BYTES * Buffer.byteLength(log)) / read } });
  });

  test("a line costs its bytes when they are more than its events: one long message", () => {
    const long = line(0, "user/message", { content: "长".repeat(2_000) });
    const bytes = Buffer.byteLength(long) - 1; // without its newline
    heap.limit = bytes;
    expect(parseLogText(long).session.events).toHaveLength(1);
    heap.limit = bytes - 1;
    expect(refusal(() => parseLogText(long)).memory).toMatchObject({ events: 1, estimate: bytes });
  });

  test("a packed row counts every event it holds, and the events read before it", () => {
    const packed = JSON.stringify({
      packed: "assistant/chunk",
      id: 2,
      ts: 1,
      dt: [0, 0, 0, 0],
      turn: 1,
      step: 1,
      attempt: 1,
      chunks: ["a", "b", "c", "d"].map((text) => ({ kind: "text", text })),
    });
    const log = `${start()}${step()}${packed}\n`;
    heap.limit = 6 * EVENT_BYTES - 1;
    expect(refusal(() => parseLogText(log))).toMatchObject({ line: 3, memory: { events: 6, estimate: 6 * EVENT_BYTES } });
  });
});

describe("a chunk event costs less when its chunk repeats one read before: only an exact {kind, text} of text or reasoning", () => {
  test("ten repeated text chunks fit where ten new ones do not: the first is counted whole, the rest shared", () => {
    heap.limit = 2 * EVENT_BYTES + EVENT_BYTES + 9 * SHARED; // turn/start, step/start, one new chunk, nine repeats
    expect(parseLogText(chunkLog(10, () => ({ kind: "text", text: "好" }))).session.events).toHaveLength(12);
    expect(parseLogText(chunkLog(10, () => ({ kind: "reasoning", text: "嗯" }))).session.events).toHaveLength(12);
    const error = refusal(() => parseLogText(chunkLog(10, (index) => ({ kind: "text", text: `第 ${index} 段` }))));
    expect(error.line, "new chunks cost a whole event each: refused at the first line past the limit").toBe(10);
  });

  test("a repeated chunk of another shape costs a whole event: other key order, other keys, a tool call, not an object", () => {
    heap.limit = 2 * EVENT_BYTES + EVENT_BYTES + 9 * SHARED;
    const shapes: Record<string, object> = {
      "{text, kind}": { text: "好", kind: "text" },
      "{kind, text, extra}": { kind: "text", text: "好", extra: 1 },
      "{kind} alone": { kind: "text" },
      "a number as text": { kind: "text", text: 1 },
      "a tool call's piece": { kind: "tool_call", index: 0, arguments: "{}" },
      "another kind": { kind: "refusal", text: "好" },
    };
    for (const [shape, chunk] of Object.entries(shapes)) {
      // The count comes before replay's checks, so even a chunk its schema refuses is counted first.
      expect(refusal(() => parseLogText(chunkLog(10, () => chunk))).line, `${shape}: counted as shared`).toBe(10);
    }
  });

  test("a chunk event whose data or chunk is not an object is left to replay, which refuses it by its line", () => {
    for (const data of [null, [], "text", { turn: 1, step: 1, attempt: 1, chunk: null }]) {
      const log = start() + step() + line(2, "assistant/chunk", data as object);
      const error = thrownAs(reader.LogFileError, () => parseLogText(log), `data ${JSON.stringify(data)}`);
      expect([error.code, error.line], JSON.stringify(data)).toEqual(["REPLAY", 3]);
    }
  });

  test("an event that is not a chunk is never counted as shared, however often it repeats", () => {
    heap.limit = 11 * SHARED; // what 11 events would cost if they counted as shared
    expect(refusal(() => parseLogText(messageLog(11))).line).toBe(8); // 8 × 240 > 11 × 160
  });
});

describe("a JSON array is parsed whole: refused by its size before it is read", () => {
  const array = (count: number) =>
    JSON.stringify(Array.from({ length: count }, (_, id) => JSON.parse(line(id, "user/message", { content: "问" })) as unknown));

  test("it costs three times its bytes: exactly the limit loads, one byte less of limit is refused with that estimate", () => {
    const text = array(3);
    const bytes = Buffer.byteLength(text);
    heap.limit = 3 * bytes;
    expect(parseLogText(text).format).toBe("json-array");
    heap.limit = 3 * bytes - 1;
    const error = refusal(() => parseLogText(text));
    expect(error).toMatchObject({ line: undefined, memory: { events: undefined, estimate: 3 * bytes, limit: 3 * bytes - 1 } });
  });

  test("a file of exactly MAX_ARRAY_BYTES is not TOO_LARGE but goes on to the memory check (a sparse file: one piece read)", ({ dir }) => {
    const file = path.join(dir, "at-the-limit.json");
    writeFileSync(file, "[");
    truncateSync(file, reader.MAX_ARRAY_BYTES);
    heap.limit = 3 * reader.MAX_ARRAY_BYTES - 1;
    expect(refusal(() => readLogFile(file)).memory).toMatchObject({ estimate: 3 * reader.MAX_ARRAY_BYTES });
    truncateSync(file, reader.MAX_ARRAY_BYTES + 1);
    expect(thrownAs(reader.LogFileError, () => readLogFile(file), "one byte more is TOO_LARGE").code).toBe("TOO_LARGE");
  });
});
