// The fold's work grows with the log, not with its square, checked by counting instead of timing: each
// event, and each list the view keeps (events, groups, messages), is wrapped so that every read of it is
// counted. Folding four times the events must read about four times as often. A fold that re-read the
// log for every event (running the structure check per event did: 10,000 events took minutes to draw),
// or copied a list per event, reads each event or list item about n times, and this test fails.
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { addEvent, emptyTimeline, problemsOf, type TimelineView } from "./view-model.ts";

/** Turns of two calls and an answer, some replies streamed in chunks: `turns` × 17 events. */
function turnsOf(turns: number): readonly SessionEvent[] {
  const session = new Session({ clock: () => 0 });
  for (let turn = 1; turn <= turns; turn++) {
    session.append("turn/start", { turn });
    session.append("user/message", { content: "q" });
    session.append("step/start", { turn, step: 1 });
    const calls = [1, 2].map((i) => ({ id: `c${turn}_${i}`, name: "calculator", arguments: "{}" }));
    session.append("assistant/message", { content: "", tool_calls: calls });
    for (const call of calls) session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
    for (const call of calls) session.append("tool/result", { call_id: call.id, content: "2", is_error: false });
    session.append("step/end", { turn, step: 1 });
    session.append("step/start", { turn, step: 2 });
    const chunk = (text: string) => session.append("assistant/chunk", { turn, step: 2, attempt: 1, chunk: { kind: "text", text } }).id;
    const chunkIds = [chunk("4"), chunk(" in all")];
    session.append("assistant/message", { content: "4 in all", tool_calls: [], chunk_ids: chunkIds });
    session.append("step/end", { turn, step: 2 });
    session.append("turn/end", { turn, reason: "completed" });
  }
  return session.events;
}

/** Folds `events` into a view whose every read (of an event, or of a list the view keeps) is counted. */
function readsToFold(events: readonly SessionEvent[], after?: (view: TimelineView) => void): number {
  let reads = 0;
  const counted = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        reads++;
        return Reflect.get(object, key, receiver);
      },
    });
  const empty = emptyTimeline();
  const view: TimelineView = { ...empty, events: counted(empty.events), groups: counted(empty.groups), messages: counted(empty.messages) };
  for (const event of events) {
    addEvent(view, counted(event));
    after?.(view);
  }
  return reads;
}

describe("the timeline's fold does the same work for every event", () => {
  test("folding 4 × the events reads 4 × as often (within 10%): no step of the fold grows with the log", () => {
    const small = readsToFold(turnsOf(150));
    const large = readsToFold(turnsOf(600));
    expect(large / small, `reads for 2,550 events: ${small}; for 10,200: ${large}`).toBeGreaterThan(3.6);
    expect(large / small, `reads for 2,550 events: ${small}; for 10,200: ${large}`).toBeLessThan(4.4);
  });

  test("the count sees a fold that re-reads the log per event: running the structure check after each event", () => {
    const checkEach = (view: TimelineView) => void problemsOf(view);
    const small = readsToFold(turnsOf(15), checkEach);
    const large = readsToFold(turnsOf(60), checkEach);
    expect(large / small, "quadratic: about 16 × the reads for 4 × the events").toBeGreaterThan(10);
  });
});
