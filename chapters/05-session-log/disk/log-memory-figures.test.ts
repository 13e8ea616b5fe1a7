// What log-memory.ts counts, in this process: what a line costs, how much of the heap one loaded log may
// have, and the refusal's figures (the estimate, the limit, and a heap that would take the log). The
// refusal met for real, in processes with a small heap, is in log-memory.test.ts; these are its rules one
// by one, where a change of a figure is seen.
import { getHeapStatistics } from "node:v8";
import { describe, expect, test } from "vitest";
import { LogMemoryError } from "./log-file-types.ts";
import { ARRAY_COST_PER_BYTE, EVENT_BYTES, lineCost, memoryForALog, mib, SHARED_CHUNK_BYTES, tooMuchMemory } from "./log-memory.ts";

const MiB = 2 ** 20;
/** The share of the heap left that one loaded log may have: a seventh. */
const SHARE = 7;

describe("what a line costs once loaded: the larger of its bytes and its events", () => {
  test("a long message costs its bytes; a packed row of 64 small chunks costs 240 bytes an event, 160 for each whose chunk repeats one read before", () => {
    expect([EVENT_BYTES, SHARED_CHUNK_BYTES]).toEqual([240, 80]);
    expect(lineCost(5_000, 1, 0), "one event on a 5,000-byte line").toBe(5_000);
    expect(lineCost(1_300, 64, 0), "64 chunk events on a 1,300-byte row").toBe(64 * 240);
    expect(lineCost(1_300, 64, 10), "10 of them repeating a chunk").toBe(54 * 240 + 10 * 160);
    expect(lineCost(240, 1, 0), "at the boundary either is the same").toBe(240);
  });
});

describe("how much of this process's memory one loaded log may have", () => {
  test("a seventh of the heap this process has left", () => {
    const before = getHeapStatistics();
    const limit = memoryForALog();
    const after = getHeapStatistics();
    const left = (used: number) => (before.heap_size_limit - used) / SHARE;
    // The heap in use moves between the readings (a collection, an allocation): the limit lies between them.
    const [low, high] = [
      left(Math.max(before.used_heap_size, after.used_heap_size)),
      left(Math.min(before.used_heap_size, after.used_heap_size)),
    ];
    expect(limit).toBeGreaterThanOrEqual(Math.floor(low) - MiB);
    expect(limit).toBeLessThanOrEqual(high + MiB);
    expect(Number.isInteger(limit), "whole bytes").toBe(true);
  });
});

describe("the refusal: the estimate, the limit, and a heap that would take the log", () => {
  test("JSONL: the line, the events read by it, the whole log's estimate and the limit, in MiB to a tenth", () => {
    const error = tooMuchMemory("run.jsonl", 1200, 76_800, 45.5 * MiB, 12.25 * MiB);
    expect(error).toBeInstanceOf(LogMemoryError);
    expect(error).toMatchObject({ code: "TOO_LARGE_IN_MEMORY", source: "run.jsonl", line: 1200 });
    expect(error.memory).toMatchObject({ events: 76_800, estimate: 45.5 * MiB, limit: 12.25 * MiB });
    expect(error.message).toBe(
      "run.jsonl line 1200: the log would take more memory than a loaded log may have here: by this line it holds 76800 events; " +
        "at that rate the whole log would take about 45.5 MiB in memory (an event takes about 240 bytes, 160 when its chunk repeats one already read, never less than its line), " +
        "over the limit of 12.3 MiB (a seventh of the heap this process has left). The file is not damaged: read it with a larger heap, " +
        `e.g. NODE_OPTIONS=--max-old-space-size=${error.memory.heap}`,
    );
  });

  test("a JSON array: no line and no events, refused by its size at three times it", () => {
    const error = tooMuchMemory("run.json", undefined, undefined, 60 * MiB, 40 * MiB);
    expect(ARRAY_COST_PER_BYTE).toBe(3);
    expect(error).toMatchObject({ line: undefined, memory: { events: undefined } });
    expect(error.message).toMatch(
      /^run\.json: the log would take more memory than a loaded log may have here: a JSON array is parsed whole, its text and its events in memory at once: about 3 times its size, 60\.0 MiB, over the limit of 40\.0 MiB /,
    );
  });

  test("the heap named is in steps of 512 MiB, and leaves a seventh of itself, after what is in use, for the log: seven times the estimate", () => {
    for (const estimate of [1 * MiB, 100 * MiB, 700 * MiB, 3_000 * MiB]) {
      const before = getHeapStatistics().used_heap_size;
      const { heap } = tooMuchMemory("run.jsonl", 1, 1, estimate, 0).memory;
      const after = getHeapStatistics().used_heap_size;
      // The heap in use moves while it is read (see above): the rule holds for what it was, give or take a MiB.
      const [low, high] = [Math.min(before, after) - MiB, Math.max(before, after) + MiB];
      expect(heap % 512, `${mib(estimate)} MiB: a multiple of 512`).toBe(0);
      // What memoryForALog would give the log in that heap: enough for the estimate; 512 MiB less would not be.
      expect((heap * MiB - low) / SHARE, `${mib(estimate)} MiB fits in ${heap}`).toBeGreaterThanOrEqual(estimate);
      expect(((heap - 512) * MiB - high) / SHARE, `${mib(estimate)} MiB would not fit in ${heap - 512}`).toBeLessThan(estimate);
    }
  });
});
