// What a loaded log really holds in memory, measured in a process of its own with a real heap limit
// (`node --max-old-space-size`) and `--expose-gc`: the heap is weighed after a full collection, so only
// what is still held counts. The reader keeps one copy of each repeated chunk, and the demo's ④ rebuilds
// the session without a second copy of the log. Peak memory (max RSS) is measured by `npm run bench`.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { root } from "../../common/root.ts";
import { readInHeap, runProgram } from "../testing/demo-testing.ts";
import { writeStreamedRunLog } from "../testing/large-log.ts";
import type { SessionEvent } from "../events.ts";
import { parseLogText, readLogFile } from "./log-file.ts";
import { rowsOf } from "./log-rows.ts";

const module = (name: string) => JSON.stringify(path.join(root, "chapters/05-session-log", name));

/** Runs `body` (module code; `heap()` weighs the heap after a full collection) in a 256 MB heap and returns what it printed as JSON. */
async function weighed(body: string): Promise<Record<string, number>> {
  const heap = "const heap = () => { globalThis.gc(); return process.memoryUsage().heapUsed; };";
  const run = await runProgram(["--expose-gc", "--input-type=module", "-e", `${heap}\n${body}`], { heapMb: 256 });
  expect(run.stderr, "the program failed").toBe("");
  return JSON.parse(run.stdout) as Record<string, number>;
}

const chunkOf = (event: SessionEvent | undefined) => (event?.data as { chunk?: unknown } | undefined)?.chunk;

describe("a loaded log holds each repeated chunk once", () => {
  test("two chunk events with equal {kind, text} hold one chunk object, one event per line and in packed rows", ({ dir }) => {
    for (const packed of [false, true]) {
      const file = path.join(dir, packed ? "packed.jsonl" : "plain.jsonl");
      writeStreamedRunLog(file, 1, { packed });
      const { events } = readLogFile(file).session;
      // Each turn streams the same 400 texts; its first chunk is event #4 (after turn/start, user/message, request/header, step/start).
      const turnLength = events.findIndex((event, index) => index > 0 && event.type === "turn/start");
      const [first, again] = [events[4], events[4 + turnLength]];
      expect(first?.type).toBe("assistant/chunk");
      expect(chunkOf(again), `${file}: the second turn's first chunk is equal to the first turn's`).toEqual(chunkOf(first));
      expect(chunkOf(again) === chunkOf(first), `${file}: an equal chunk read again should be the one read first (shareChunk)`).toBe(true);
      const third = events[4 + 2 * turnLength];
      expect(chunkOf(third) === chunkOf(first), `${file}: and the third time too, not the second one read`).toBe(true);
      expect(chunkOf(events[5]) === chunkOf(first), "different texts are different chunks").toBe(false);
    }
  });

  test("only an exact {kind, text} of text or reasoning is shared: other keys, another order, another kind stay as read", ({ dir }) => {
    const file = path.join(dir, "mixed.jsonl");
    const chunks = [
      { kind: "text", text: "好" },
      { kind: "text", text: "好" },
      { text: "好", kind: "text" },
      { kind: "reasoning", text: "好" },
      { kind: "reasoning", text: "好" },
    ];
    const lines = chunks.map((chunk, id) =>
      JSON.stringify({ id, type: "assistant/chunk", ts: 1, data: { turn: 1, step: 1, attempt: 1, chunk } }),
    );
    writeFileSync(file, `${lines.join("\n")}\n`);
    const { events } = readLogFile(file).session;
    const [a, b, reordered, reasoning, reasoningAgain] = events.map(chunkOf);
    expect(a === b, "the same text chunk twice: one object").toBe(true);
    expect(Object.keys(reordered as object), "key order is kept exactly as logged").toEqual(["text", "kind"]);
    expect(reordered === a, "{text, kind} is not {kind, text}").toBe(false);
    expect(reasoning === a, "a reasoning chunk is not a text chunk").toBe(false);
    expect(reasoningAgain === reasoning).toBe(true);
  });

  test("readLogFile of a streamed run's log keeps under 180 bytes an event, weighed after a full collection (each chunk its own object: 208)", {
    timeout: 240_000,
  }, async ({ dir }) => {
    for (const packed of [false, true]) {
      const file = path.join(dir, packed ? "packed.jsonl" : "plain.jsonl");
      writeStreamedRunLog(file, 6, { packed });
      const { before, after, events } = await weighed(
        `const { readLogFile } = await import(${module("disk/log-file.ts")});
         const before = heap();
         const { session } = readLogFile(${JSON.stringify(file)});
         console.log(JSON.stringify({ before, after: heap(), events: session.events.length }));`,
      );
      const perEvent = ((after ?? 0) - (before ?? 0)) / (events ?? 1);
      expect(perEvent, `${file}: bytes an event once loaded; more means equal chunks are held apart again`).toBeLessThan(180);
    }
  });
});

describe("a log is refused by what it will really cost: a seventh of the heap left, a repeated chunk counted as shared", () => {
  /** The plain log `file` with every chunk's text made its own (its id added), so no chunk repeats another. */
  function everyChunkNew(file: string, to: string): void {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const unique = lines.map((line) => {
      const event = JSON.parse(line) as { id: number; type: string; data: { chunk: { text: string } } };
      if (event.type !== "assistant/chunk") return line;
      event.data.chunk.text += `#${event.id}`;
      return JSON.stringify(event);
    });
    writeFileSync(to, `${unique.join("\n")}\n`);
  }

  test("in a 256 MB heap (a seventh: about 41 MiB), 34 MiB of lines whose chunks repeat load; the same with every chunk new is refused in the sentence", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const repeated = path.join(dir, "repeated.jsonl");
    const events = writeStreamedRunLog(repeated, 34);
    const fresh = path.join(dir, "fresh.jsonl");
    everyChunkNew(repeated, fresh);
    // Counted at 160 bytes a repeated chunk event (about 37 MiB in all), 240 a new one (about 54 MiB).
    expect((await readInHeap(repeated, 256)).stdout.trim(), "the repeated chunks should be counted as shared").toBe(`${events} events`);
    const refused = (await readInHeap(fresh, 256)).stdout;
    expect(refused, "every chunk new: a whole event each, over a seventh of the heap").toMatch(
      /超过了这里读入一份日志的上限 [\d.]+ MiB（本进程剩余堆内存的七分之一）/,
    );
    expect(refused).toMatch(/\(a seventh of the heap this process has left\)/);
  });
});

describe("the reader keeps no table of every line: a replay error's line is counted on from the packed rows", () => {
  const chunk = (id: number): SessionEvent => ({
    id,
    type: "assistant/chunk",
    ts: 1,
    data: { turn: 1, step: 1, attempt: 1, chunk: { kind: "text", text: `#${id}` } },
  });
  const message = (id: number): SessionEvent => ({ id, type: "user/message", ts: 1, data: { content: "hi" } });
  // Line 1: a row of #0–#2; line 2: #3; line 3: a row of #4–#5; lines 4 and 5: #6 and #7.
  const log = [chunk(0), chunk(1), chunk(2), message(3), chunk(4), chunk(5), message(6), message(7)];
  const lineOf = [1, 1, 1, 2, 3, 3, 4, 5];

  test("while replay runs, the reader holds one slot a line beyond the session (its entries), not two: under 18 bytes a line of 120,000", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "plain.jsonl");
    const lines = Array.from({ length: 120_000 }, (_, id) => JSON.stringify({ id, type: "user/message", ts: 1, data: { content: "hi" } }));
    // The last event's schema weighs the heap while Session.fromLog checks it: everything the reader holds is still held.
    const probe = JSON.stringify({ id: lines.length, type: "probe/weigh", ts: 1, data: {} });
    writeFileSync(file, `${[...lines, probe].join("\n")}\n`);
    const { during, after } = await weighed(
      `const { z } = await import("zod");
       const { readLogFile } = await import(${module("disk/log-file.ts")});
       const weights = {};
       const schemas = { "probe/weigh": z.object({}).refine(() => { weights.during = heap(); return true; }) };
       globalThis.loaded = readLogFile(${JSON.stringify(file)}, { schemas }); // held while weighed
       weights.after = heap(); // the session alone, not yet asked for its events
       console.log(JSON.stringify(weights));`,
    );
    const perLine = ((during ?? 0) - (after ?? 0)) / lines.length;
    expect(
      perLine,
      "bytes a line the reader held beyond the session while it replayed: a table of every line's first event is back",
    ).toBeLessThan(18);
  });

  test("each event, refused in turn (ts -1), is named by the line it is on, in a row or after one", () => {
    expect(rowsOf(log).toString().trimEnd().split("\n")).toHaveLength(5);
    for (const [index, line] of lineOf.entries()) {
      const damaged = log.map((event) => (event.id === index ? { ...event, ts: -1 } : event));
      expect(() => parseLogText(rowsOf(damaged)), `event #${index}`).toThrow(
        expect.objectContaining({ code: "REPLAY", line, cause: expect.objectContaining({ index, code: "BAD_TS" }) }),
      );
    }
  });
});

describe("demo ③ and ④ hold no second copy of a loaded log", () => {
  test("③ makes each message's entry as it prints it: at its first entry the heap holds under 0.5 MB more than at its heading (all of them: 1.6 MB)", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "plain.jsonl");
    writeStreamedRunLog(file, 16);
    const { heading, first } = await weighed(
      `const { main } = await import(${module("demo.ts")});
       const weights = {};
       let section = "";
       const out = (line) => {
         if (line.includes("=== ")) section = line;
         if (line.includes("=== ③ ")) weights.heading = heap();
         else if (section.includes("=== ③ ") && line.startsWith("  [") && weights.first === undefined) weights.first = heap();
       };
       await main(["--offline", "--load", ${JSON.stringify(file)}], { out, env: {} });
       console.log(JSON.stringify(weights));`,
    );
    const held = (first ?? 0) - (heading ?? 0);
    expect(held, `③ held ${held} bytes more at its first entry: every entry was made before the first was printed`).toBeLessThan(5e5);
  });

  test("while ④ holds its new session, the heap holds under a quarter more than the loaded log (a parsed copy would double it)", {
    timeout: 240_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "plain.jsonl");
    writeStreamedRunLog(file, 8);
    const { before, loaded, replayed } = await weighed(
      `const { main } = await import(${module("demo.ts")});
       const weights = { before: heap() };
       const out = (line) => {
         if (line.includes("=== ② ")) weights.loaded = heap(); // the loaded session, printed from
         if (line.includes("Session.fromLog 重建")) weights.replayed = heap(); // ④'s new session, built and still held
       };
       await main(["--offline", "--load", ${JSON.stringify(file)}], { out, env: {} });
       console.log(JSON.stringify(weights));`,
    );
    const log = (loaded ?? 0) - (before ?? 0);
    const added = (replayed ?? 0) - (loaded ?? 0);
    expect(log, "the loaded log weighs something").toBeGreaterThan(5e6);
    expect(
      added / log,
      `④ added ${added} bytes to a loaded log of ${log}: its new session should share the log's frozen events`,
    ).toBeLessThan(0.25);
  });
});
