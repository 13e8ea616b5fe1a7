// How a long log is cut into the slices its page is drawn by (slices.ts), over logs of many shapes:
// every event is in exactly one slice, so the jump box reaches every event and every turn; no slice
// holds many more than 2 × SLICE_ROWS lines, however long a turn or a step; and no cut parts a run of
// chunks from its own chunks or from the message it built (they are drawn as one).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { noSlices, SLICE_ROWS, type Slices, sliceEvent, sliceIds, sliceOf } from "./slices.ts";
import { deriveTimeline, type TimelineView } from "./view-model.ts";

interface StepShape {
  readonly failed: number; // attempts whose stream broke off
  readonly chunks: number; // chunks of the reply (0: not streamed)
  readonly calls: number;
}

/** A log of turns of steps: failed streams, then a reply (streamed or not), then its tool calls. */
function logOf(turns: readonly (readonly StepShape[])[]): readonly SessionEvent[] {
  const session = new Session({ clock: () => 0 });
  turns.forEach((steps, t) => {
    const turn = t + 1;
    session.append("turn/start", { turn });
    session.append("user/message", { content: "q" });
    steps.forEach(({ failed, chunks, calls }, s) => {
      const step = s + 1;
      session.append("step/start", { turn, step });
      const chunk = (attempt: number, kind: "text" | "error") =>
        session.append("assistant/chunk", {
          turn,
          step,
          attempt,
          chunk: kind === "text" ? { kind, text: "x" } : { kind, message: "reset" },
        }).id;
      for (let attempt = 1; attempt <= failed; attempt++) chunk(attempt, "error");
      const ids = Array.from({ length: chunks }, () => chunk(failed + 1, "text"));
      const toolCalls = Array.from({ length: calls }, (_, i) => ({ id: `c${turn}_${step}_${i}`, name: "calculator", arguments: "{}" }));
      session.append("assistant/message", { content: "x".repeat(chunks), tool_calls: toolCalls, ...(chunks > 0 && { chunk_ids: ids }) });
      for (const call of toolCalls) session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
      for (const call of toolCalls) session.append("tool/result", { call_id: call.id, content: "2", is_error: false });
      session.append("step/end", { turn, step });
    });
    session.append("turn/end", { turn, reason: "completed" });
  });
  return session.events;
}

function sliced(events: readonly SessionEvent[]): { view: TimelineView; slices: Slices; placed: number[] } {
  const view = deriveTimeline(events);
  const slices = noSlices();
  return { view, slices, placed: view.events.map((item) => sliceEvent(slices, item)) };
}

const step = fc.record({ failed: fc.nat({ max: 2 }), chunks: fc.nat({ max: 40 }), calls: fc.nat({ max: 130 }) });
const logs = fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }).map(logOf);

describe("slicing a long log for its page", () => {
  test("every event is in exactly one slice: slices are consecutive ranges of ids from the first event to the last", () => {
    fc.assert(
      fc.property(logs, (events) => {
        const { slices, placed } = sliced(events);
        expect(slices.starts[0]).toBe(0);
        const ranges = slices.starts.map((_, s) => sliceIds(slices, s, s + 1, events.length));
        expect(ranges.flatMap(({ first, end }) => Array.from({ length: end - first }, (_, i) => first + i))).toEqual(
          events.map((e) => e.id),
        );
        expect(
          events.map((event) => sliceOf(slices, event.id)),
          "sliceOf finds the slice each event was put in",
        ).toEqual(placed);
      }),
      { numRuns: 25 },
    );
  });

  test(`no slice holds more than 2 × SLICE_ROWS + 1 lines (a line: an event, or a whole run of chunks), however long the step`, () => {
    fc.assert(
      fc.property(logs, (events) => {
        const { view, slices } = sliced(events);
        for (let s = 0; s < slices.starts.length; s++) {
          const { first, end } = sliceIds(slices, s, s + 1, events.length);
          const lines = view.events.slice(first, end).filter((item) => item.run === null || item.run === item.event.id).length;
          expect(lines, `slice ${s} (#${first}–#${end - 1})`).toBeLessThanOrEqual(2 * SLICE_ROWS + 1);
        }
      }),
      { numRuns: 25 },
    );
  });

  test("a run of chunks, and the message it built, are always in the same slice", () => {
    fc.assert(
      fc.property(logs, (events) => {
        const { view, slices } = sliced(events);
        for (const run of view.runs.byFirst.values()) {
          const together = [...run.ids, ...(run.foldedInto === null ? [] : [run.foldedInto])];
          expect(new Set(together.map((id) => sliceOf(slices, id))), `run #${run.first}`).toEqual(new Set([sliceOf(slices, run.first)]));
        }
      }),
      { numRuns: 25 },
    );
  });

  test("a log of short turns (11 events each) is cut only where a turn starts, into slices of SLICE_ROWS lines and less than a turn more", () => {
    const turn = [
      { failed: 0, chunks: 0, calls: 1 },
      { failed: 0, chunks: 0, calls: 0 },
    ];
    const events = logOf(Array.from({ length: 2_000 }, () => turn));
    const { slices } = sliced(events);
    expect(slices.starts.map((id) => events[id]?.type)).toEqual(slices.starts.map(() => "turn/start"));
    const sizes = slices.starts
      .slice(0, -1)
      .map((_, s) => sliceIds(slices, s, s + 1, events.length))
      .map(({ first, end }) => end - first);
    expect(sizes.filter((size) => size < SLICE_ROWS || size >= SLICE_ROWS + 11)).toEqual([]);
  });
});
