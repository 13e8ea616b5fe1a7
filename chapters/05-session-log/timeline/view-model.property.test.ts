// Properties of the timeline over arbitrary logs: well-formed or not, with calls, results and turns in
// any order, each known type and an unknown one. Call ids come from a pool of three, so calls get
// answered, answered twice, reused and orphaned; messages cite chunk ids at random, earlier or not.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { findLogProblems } from "../invariants.ts";
import { deriveEventMessage, deriveMessages } from "../projection.ts";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { addEvent, deriveTimeline, emptyTimeline, type TimelineView } from "./view-model.ts";

const callId = fc.constantFrom("a", "b", "c");
const counter = fc.integer({ min: 1, max: 3 });
const text = fc.string({ maxLength: 4 });

const typed =
  (type: string) =>
  (data: object): [string, object] => [type, data];

const append: fc.Arbitrary<[string, object]> = fc.oneof(
  fc.record({ turn: counter }).map(typed("turn/start")),
  fc.record({ turn: counter, reason: fc.constantFrom("completed", "max_steps", "error") }).map(typed("turn/end")),
  fc.record({ turn: counter, step: counter }).map(typed("step/start")),
  fc.record({ turn: counter, step: counter }).map(typed("step/end")),
  fc.record({ content: text }).map(typed("user/message")),
  fc
    .record({
      content: fc.option(text),
      reasoning_content: fc.option(text),
      tool_calls: fc.array(fc.record({ id: callId, name: fc.constant("calculator"), arguments: fc.constant("{}") }), {
        maxLength: 2,
      }),
      chunk_ids: fc.array(fc.nat({ max: 30 }), { maxLength: 3 }),
    })
    .map(typed("assistant/message")),
  fc.record({ call_id: callId, name: fc.constant("calculator"), arguments: fc.constant("{}") }).map(typed("tool/call")),
  fc.record({ call_id: callId, content: text, is_error: fc.boolean() }).map(typed("tool/result")),
  fc
    .record({
      turn: counter,
      step: counter,
      attempt: fc.integer({ min: 1, max: 2 }),
      chunk: fc.record({ kind: fc.constant("text"), text }),
    })
    .map(typed("assistant/chunk")),
  fc.constant<[string, object]>(["ui/note", {}]),
);

const logs = fc.array(append, { maxLength: 30 }).map((appends) => {
  let now = 0;
  const session = new Session({ clock: () => (now += 7) });
  for (const [type, data] of appends) session.append(type, data as never);
  return session.events;
});

const numRuns = 300;

function drawnIds(view: TimelineView): number[] {
  return view.groups.flatMap((group) => group.entries.flatMap((entry) => (entry.kind === "event" ? [entry.id] : entry.ids)));
}

describe("the timeline of any log", () => {
  test("shows every event exactly once, in log order, each with its own event", () => {
    fc.assert(
      fc.property(logs, (log) => {
        const view = deriveTimeline(log);
        expect(drawnIds(view), "each id once, in order, across all groups and steps").toEqual(log.map((event) => event.id));
        expect(view.events.map((item) => item.event)).toEqual(log);
        for (const item of view.events) expect(drawnIds(view).indexOf(item.event.id)).toBe(item.event.id);
      }),
      { numRuns },
    );
  });

  test("links every message to an event whose projection is that message, and every other event has a reason", () => {
    fc.assert(
      fc.property(logs, (log) => {
        const view = deriveTimeline(log);
        expect(
          view.messages.map((m) => m.message),
          "the messages are deriveMessages, in order",
        ).toEqual(deriveMessages(log));
        for (const { index, fromEvent, message } of view.messages) {
          expect(deriveEventMessage(log[fromEvent] as SessionEvent)).toEqual(message);
          expect(view.events[fromEvent]?.message).toBe(index);
        }
        for (const item of view.events)
          expect(item.message === null, `#${item.event.id} has a message or a reason, not both`).toBe(item.hidden !== null);
      }),
      { numRuns },
    );
  });

  test("pairs tool calls with results by call id, both ways; a result is paired unless it is an orphan or a duplicate", () => {
    fc.assert(
      fc.property(logs, (log) => {
        const view = deriveTimeline(log);
        const unmatched = new Set(
          findLogProblems(log)
            .filter((p) => p.code === "ORPHAN_TOOL_RESULT" || p.code === "DUPLICATE_TOOL_RESULT")
            .map((p) => p.index),
        );
        for (const { event, pairedWith } of view.events) {
          if (event.type === "tool/result") expect(pairedWith === null, `result #${event.id}`).toBe(unmatched.has(event.id));
          if (pairedWith === null) continue;
          const partner = view.events[pairedWith];
          expect(partner?.pairedWith, `#${event.id} ↔ #${pairedWith}`).toBe(event.id);
          expect(partner?.event.data.call_id).toBe(event.data.call_id);
          const [call, result] = event.id < pairedWith ? [event, partner?.event] : [partner?.event, event];
          expect([call?.type, result?.type]).toEqual(["tool/call", "tool/result"]);
        }
      }),
      { numRuns },
    );
  });

  test("puts each chunk in one run of consecutive chunks of one call, folded under the first later message citing it", () => {
    fc.assert(
      fc.property(logs, (log) => {
        const view = deriveTimeline(log);
        const runs = [...view.runs.byFirst.values()];
        const chunks = log.filter((event) => event.type === "assistant/chunk").map((event) => event.id);
        expect(
          runs.flatMap((run) => run.ids),
          "every chunk in exactly one run, in order",
        ).toEqual(chunks);
        for (const run of runs) {
          const events = run.ids.map((id) => log[id] as SessionEvent<"assistant/chunk">);
          expect(
            run.ids.every((id, i) => i === 0 || id === (run.ids[i - 1] as number) + 1),
            "consecutive",
          ).toBe(true);
          expect(new Set(events.map((e) => `${e.data.turn}/${e.data.step}/${e.data.attempt}`)).size, "one call").toBe(1);
          expect(run.text).toBe(events.map((e) => (e.data.chunk.kind === "text" ? e.data.chunk.text : "")).join(""));
          // A message that cites a chunk before the chunk is in the log cannot fold it (the page draws
          // in log order): the run goes under the first message after it that cites it.
          const citing = log.find(
            (e): e is SessionEvent<"assistant/message"> =>
              e.id > run.first &&
              e.type === "assistant/message" &&
              (e as SessionEvent<"assistant/message">).data.chunk_ids?.some((id) => run.ids.includes(id)) === true,
          );
          expect(run.foldedInto, `run #${run.first}`).toBe(citing?.id ?? null);
          if (run.foldedInto !== null) expect(view.events[run.foldedInto]?.foldedRuns).toContain(run.first);
        }
      }),
      { numRuns },
    );
  });

  test("after every event, the view folded so far is the view derived from that much of the log (a live page ends as the static one)", () => {
    fc.assert(
      fc.property(logs, (log) => {
        const snapshot = (view: TimelineView) => JSON.stringify([view.events, view.groups, view.messages, [...view.runs.byFirst]]);
        const view = emptyTimeline();
        for (const event of log) {
          addEvent(view, event);
          expect(snapshot(view), `after event #${event.id}`).toBe(snapshot(deriveTimeline(log.slice(0, event.id + 1))));
        }
      }),
      { numRuns: 100 },
    );
  });
});
