// A packed row (log-rows.ts) is only what the writer writes: 1 to CHUNK_GROUP chunks of one attempt,
// with consecutive ids. A row it cannot have written is refused by its line before its events are made
// (a few bytes must not become millions of events), and the writer never packs what it cannot unpack
// the same way. Real files, and a real heap limit where the old reader ran out of memory.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { readInHeap } from "../testing/demo-testing.ts";
import { EventDataError } from "../event-schemas.ts";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { LogFileError } from "./log-file-types.ts";
import { parseLogText, readLogFile } from "./log-file.ts";
import { CHUNK_GROUP, rowsOf } from "./log-rows.ts";
import { attachLogFile } from "./log-writer.ts";

const START = '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1}}';
const STEP = '{"id":1,"type":"step/start","ts":1,"data":{"turn":1,"step":1}}';

/** A packed row of `chunks` starting at event #2, as the writer would write it (or not: any count, any chunk). */
function row(chunks: readonly unknown[], dt: readonly number[] = chunks.map(() => 0)): string {
  return JSON.stringify({ packed: "assistant/chunk", id: 2, ts: 1, dt, turn: 1, step: 1, attempt: 1, chunks });
}
const jsonl = (events: readonly unknown[]) => events.map((event) => `${JSON.stringify(event)}\n`).join("");
const text = (index: number) => ({ kind: "text" as const, text: `第 ${index} 段，` });
const texts = (count: number) => Array.from({ length: count }, (_, index) => text(index));

function refusal(read: () => unknown): LogFileError {
  return thrownAs(LogFileError, read, "这份日志应当被拒绝 / the log must be refused");
}

describe("a row holds 1 to CHUNK_GROUP chunks: anything else is a damaged line, refused by its line number", () => {
  test("a row of CHUNK_GROUP + 1 chunks is BAD_LINE, before another line and as the last line (not torn); 1 and CHUNK_GROUP read", () => {
    const over = row(texts(CHUNK_GROUP + 1));
    for (const lines of [
      [START, STEP, over, START.replace('"id":0', '"id":67')],
      [START, STEP, over],
    ]) {
      const error = refusal(() => parseLogText(`${lines.join("\n")}\n`, { source: "big-row.jsonl" }));
      expect(error.code).toBe("BAD_LINE");
      expect(error.line).toBe(3);
      expect(error.message).toContain(`a packed row holds 1 to ${CHUNK_GROUP} chunks (the most the writer groups), this one has 65 chunks`);
    }
    for (const count of [1, CHUNK_GROUP]) {
      expect(parseLogText(`${[START, STEP, row(texts(count))].join("\n")}\n`).session.events, `${count} chunks`).toHaveLength(2 + count);
    }
  });

  test("a file whose only line is an empty packed row is not an empty log: BAD_LINE line 1 (only a file of zero bytes is empty)", ({
    dir,
  }) => {
    const file = path.join(dir, "empty-row.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ packed: "assistant/chunk", id: 0, ts: 1, dt: [], turn: 1, step: 1, attempt: 1, chunks: [] })}\n`,
    );
    const error = refusal(() => readLogFile(file));
    expect(error).toMatchObject({ code: "BAD_LINE", line: 1 });
    expect(error.message).toContain("this one has 0 chunks");
    writeFileSync(
      file,
      `${JSON.stringify({ packed: "assistant/chunk", id: 0, ts: 1, dt: [0], turn: 1, step: 1, attempt: 1, chunks: "x" })}\n`,
    );
    expect(refusal(() => readLogFile(file)).message).toContain("this one has no chunks array");
    writeFileSync(file, "");
    expect(readLogFile(file).session.events).toEqual([]);
  });

  test("8 MB holding one row of 2,000,000 chunks, read in a 256 MB heap: refused by its line in a sentence, no V8 out-of-memory stack", {
    timeout: 120_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "two-million.jsonl");
    const zeros = Array.from({ length: 2_000_000 }, () => 0);
    writeFileSync(file, `${START}\n${STEP}\n${row(zeros, zeros)}\n`);
    const { stdout, stderr } = await readInHeap(file, 256);
    expect(stderr, "V8 ran out of memory: the row's entries were unpacked before they were counted").not.toMatch(/heap out of memory/);
    expect(stdout).toMatch(
      /^无法读入 .*：第 3 行是损坏的打包行（打包行装 1 到 64 个分片，写入者一组最多攒这么多；这一行有 2000000 个）。.* \/ Cannot load .* line 3: the line is a damaged packed row \(.*this one has 2000000 chunks\)/,
    );
  });
});

describe("a row is exactly the writer's shape: anything else with a packed key is a damaged line, never guessed at", () => {
  const SHAPE = 'a packed row is {packed, id, ts, dt, turn, step, attempt, chunks} with packed "assistant/chunk"';
  const NUMBERS = "a packed row needs a number id and ts, a number array dt, and a chunks array as long as dt";
  const good = { packed: "assistant/chunk", id: 2, ts: 1, dt: [0, 0], turn: 1, step: 1, attempt: 1, chunks: texts(2) };
  const { packed, chunks, ...middle } = good;

  test.each([
    ["another packed type", { ...good, packed: "user/message" }, SHAPE],
    ["its last key missing", { packed, ...middle }, SHAPE],
    ["its keys in another order", { ...middle, packed, chunks }, SHAPE],
    ["an id that is a string", { ...good, id: "2" }, NUMBERS],
    ["a ts that is a string", { ...good, ts: "1" }, NUMBERS],
    ["a dt that is a string", { ...good, dt: "00" }, NUMBERS],
    ["a dt holding a string", { ...good, dt: [0, "0"] }, NUMBERS],
  ])("%s: BAD_LINE at its line, saying what a row is", (_, value, why) => {
    const error = refusal(() => parseLogText(`${[START, STEP, JSON.stringify(value), START].join("\n")}\n`));
    expect(error).toMatchObject({ code: "BAD_LINE", line: 3 });
    expect(error.message).toContain(`the line is a damaged packed row (${why})`);
  });

  test("a line of null, a number or a string is an event replay refuses at its line (REPLAY), not a row", () => {
    for (const value of ["null", "7", '"packed"']) {
      const error = refusal(() => parseLogText(`${[START, value].join("\n")}\n`));
      expect(error, value).toMatchObject({ code: "REPLAY", line: 2, cause: { index: 1 } });
    }
  });
});

describe("each chunk is checked as it is unpacked", () => {
  test("a row whose 9th chunk is not a chunk is REPLAY at its line, naming the event and what is wrong, before a later damaged line is read", () => {
    const bad = row(texts(CHUNK_GROUP).map((chunk, index) => (index === 8 ? { kind: "nope" } : chunk)));
    const error = refusal(() => parseLogText(`${[START, STEP, bad, "not json", START].join("\n")}\n`, { source: "bad-chunk.jsonl" }));
    expect(error).toMatchObject({ code: "REPLAY", line: 3, cause: { index: 10, code: "SCHEMA" } });
    expect((error.cause as Error).cause, "the schema's own error, for whoever explains it").toBeInstanceOf(EventDataError);
    expect(error.message).toMatch(
      /^bad-chunk\.jsonl line 3: .*replay failed at event #10: invalid data for "assistant\/chunk" at \$\.chunk\.kind/,
    );
  });
});

describe("the writer packs only what unpacks to the very same events", () => {
  const chunk = (id: number): SessionEvent => ({
    id,
    type: "assistant/chunk",
    ts: 1,
    data: { turn: 1, step: 1, attempt: 1, chunk: { kind: "text", text: `#${id}` } },
  });

  test("a gap in the ids ends the row: events 0, 1, 9 read back as 0, 1, 9, never renumbered to 0, 1, 2", () => {
    const lines = rowsOf([chunk(0), chunk(1), chunk(9)])
      .toString()
      .trimEnd()
      .split("\n");
    const ids = lines.flatMap((line) => {
      const value = JSON.parse(line) as { packed?: string; id: number; chunks?: unknown[] };
      return value.packed === undefined ? [value.id] : (value.chunks ?? []).map((_, index) => value.id + index);
    });
    expect(ids).toEqual([0, 1, 9]);
    const error = refusal(() => parseLogText(rowsOf([chunk(0), chunk(1), chunk(9)])));
    expect(error).toMatchObject({ code: "REPLAY", line: 2, cause: { index: 2, code: "ID_MISMATCH" } });
  });

  test("chunks of consecutive ids share a row only within one turn, step and attempt: each read back as logged", () => {
    const at = (id: number, turn: number, step: number, attempt: number): SessionEvent => ({
      id,
      type: "assistant/chunk",
      ts: 100 + id * id, // a different gap each time: each dt counts
      data: { turn, step, attempt, chunk: { kind: "text", text: `#${id}` } },
    });
    const events = [at(0, 1, 1, 1), at(1, 1, 1, 1), at(2, 2, 1, 1), at(3, 2, 1, 1), at(4, 2, 2, 1), at(5, 2, 2, 1)];
    const rows = rowsOf(events).toString().trimEnd().split("\n");
    expect(rows.map((line) => (JSON.parse(line) as { chunks: unknown[] }).chunks.length)).toEqual([2, 2, 2]);
    expect(jsonl(parseLogText(rowsOf(events)).session.events)).toBe(jsonl(events));
  });

  test("a chunk event whose data keys are in another order is written as its own line, byte for byte, never packed", () => {
    const reordered = (id: number): SessionEvent => ({
      id,
      type: "assistant/chunk",
      ts: 1,
      data: { step: 1, turn: 1, attempt: 1, chunk: { kind: "text", text: `#${id}` } },
    });
    const events = [reordered(0), reordered(1), reordered(2)];
    expect(rowsOf(events).toString()).toBe(jsonl(events));
    expect(jsonl(parseLogText(rowsOf(events)).session.events)).toBe(jsonl(events));
  });

  test("a writer attached after 200 chunks were logged writes them in rows of at most CHUNK_GROUP, and they read back", ({ dir }) => {
    const file = path.join(dir, "late.jsonl");
    const session = new Session();
    for (let index = 0; index < 200; index++) session.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: text(index) });
    attachLogFile(session, file)();
    const perLine = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { chunks?: unknown[] }).chunks?.length ?? 1);
    expect(perLine).toEqual([CHUNK_GROUP, CHUNK_GROUP, CHUNK_GROUP, 200 - 3 * CHUNK_GROUP]);
    expect(readLogFile(file).session.events).toEqual(session.events);
  });
});
