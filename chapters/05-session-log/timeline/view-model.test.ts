import { describe, expect, it } from "vitest";
import { replayScenario } from "../testing/scenario-replay.ts";
import type { EventData } from "../events.ts";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { addEvent, deriveTimeline, emptyTimeline, problemsOf, TimelineOrderError, type Entry, type TimelineView } from "./view-model.ts";

/** A log appended by hand, one millisecond apart from 1000, so times since a turn's start are known. */
function logOf(...appends: [type: string, data: EventData<string>][]): readonly SessionEvent[] {
  let now = 1000;
  const session = new Session({ clock: () => now++ });
  for (const [type, data] of appends) session.append(type, data);
  return session.events;
}

const entryIds = (entry: Entry) => (entry.kind === "event" ? [entry.id] : entry.ids);
const layout = (view: TimelineView) =>
  view.groups.map((group) => ({
    turn: group.turn,
    entries: group.entries.map((entry) => (entry.kind === "step" ? { step: entry.step, ids: entry.ids } : entry.id)),
  }));
const hidden = (view: TimelineView) => view.events.map((item) => item.hidden);

describe("the calculator round trip as a timeline", async () => {
  const { session } = await replayScenario("calculator");
  const view = deriveTimeline(session.events);

  it("groups the 12 events turn → step: three before the steps, two steps, then turn/end", () => {
    expect(layout(view)).toEqual([{ turn: 1, entries: [0, 1, 2, { step: 1, ids: [3, 4, 5, 6, 7] }, { step: 2, ids: [8, 9, 10] }, 11] }]);
    expect(view.groups[0]?.end).toEqual({ reason: "completed", message: null });
  });

  it("links the 4 messages to the events they were projected from, and each event to its message", () => {
    expect(view.messages.map((m) => [m.index, m.fromEvent, m.message.role])).toEqual([
      [0, 1, "user"],
      [1, 4, "assistant"],
      [2, 6, "tool"],
      [3, 9, "assistant"],
    ]);
    expect(view.messages.map((m) => m.message)).toEqual(session.deriveMessages());
    expect(view.events.map((item) => item.message)).toEqual([null, 0, null, null, 1, null, 2, null, null, 3, null, null]);
  });

  it("gives every event that stays in the log the projection's reason", () => {
    const boundary = ["turn-boundary", null, "request-header", "step-boundary", null, "carried-by-assistant", null, "step-boundary"];
    expect(hidden(view)).toEqual([...boundary, "step-boundary", null, "step-boundary", "turn-boundary"]);
    expect(view.events[5]?.carriedBy).toBe(4); // the tool/call rides on #4's tool_calls
  });

  it("pairs the tool/call #5 with its tool/result #6 both ways", () => {
    expect(view.events.map((item) => item.pairedWith).filter((id) => id !== null)).toEqual([6, 5]);
    expect(view.events[5]?.pairedWith).toBe(6);
  });

  it("times each event from its turn's start and finds no structural problem", () => {
    const times = view.events.map((item) => item.sinceTurnStart);
    expect(times[0]).toBe(0);
    expect(times.every((ms, i) => ms === (session.events[i]?.ts ?? 0) - (session.events[0]?.ts ?? 0))).toBe(true);
    expect(problemsOf(view)).toEqual([]);
    expect(view.events.every((item) => item.alert === null)).toBe(true);
  });
});

describe("what goes wrong stands out", () => {
  it("max-steps: the turn ends with reason max_steps, on the group and as turn/end's alert", async () => {
    const view = deriveTimeline((await replayScenario("max-steps")).session.events);
    expect(view.groups.map((group) => group.end?.reason)).toEqual(["max_steps"]);
    expect(view.events.at(-1)?.alert).toEqual({ kind: "max_steps", message: null });
  });

  it("auth-error: turn/end carries reason error and the failure's message (the 401)", async () => {
    const view = deriveTimeline((await replayScenario("auth-error")).session.events);
    const alert = view.events.at(-1)?.alert;
    expect(alert?.kind).toBe("error");
    expect(alert && "message" in alert ? alert.message : null).toMatch(/401/);
  });

  it("tool-error: the result with is_error gets the tool-error alert and is still a message", async () => {
    const view = deriveTimeline((await replayScenario("tool-error")).session.events);
    const erred = view.events.filter((item) => item.alert?.kind === "tool-error");
    expect(erred.map((item) => [item.event.type, item.message !== null])).toEqual([["tool/result", true]]);
  });

  it("a log torn after the tool call keeps its turn and step open and lists the structure check's problems", () => {
    const log = logOf(
      ["turn/start", { turn: 1 }],
      ["step/start", { turn: 1, step: 1 }],
      ["assistant/message", { content: "", tool_calls: [{ id: "c1", name: "calculator", arguments: "{}" }] }],
      ["tool/call", { call_id: "c1", name: "calculator", arguments: "{}" }],
    );
    const view = deriveTimeline(log);
    expect(view.groups[0]?.end).toBeNull();
    expect(view.events[3]?.pairedWith).toBeNull();
    expect(problemsOf(view).map((p) => `${p.code}@${p.index}`)).toEqual(["OPEN_TURN@0", "OPEN_STEP@1", "UNANSWERED_TOOL_CALL@3"]);
  });
});

describe("any log draws, however it is shaped", () => {
  it("events outside a turn go into a group with turn null and no time since a turn's start", () => {
    const log = logOf(
      ["ui/note", { text: "before" }],
      ["turn/start", { turn: 1 }],
      ["turn/end", { turn: 1, reason: "completed" }],
      ["ui/note", { text: "after" }],
    );
    const view = deriveTimeline(log);
    expect(layout(view)).toEqual([
      { turn: null, entries: [0] },
      { turn: 1, entries: [1, 2] },
      { turn: null, entries: [3] },
    ]);
    expect(view.events.map((item) => item.sinceTurnStart)).toEqual([null, 0, 1, null]);
    expect(hidden(view)).toEqual(["not-in-projection", "turn-boundary", "turn-boundary", "not-in-projection"]);
  });

  it("a second turn starts a new group and its own clock", () => {
    const view = deriveTimeline(
      logOf(
        ["turn/start", { turn: 1 }],
        ["turn/end", { turn: 1, reason: "completed" }],
        ["turn/start", { turn: 2 }],
        ["user/message", { content: "again" }],
      ),
    );
    expect(view.groups.map((group) => group.turn)).toEqual([1, 2]);
    expect(view.events.map((item) => item.sinceTurnStart)).toEqual([0, 1, 0, 1]);
  });

  it("an assistant reply with nothing in it is marked empty-reply, not a message", () => {
    const view = deriveTimeline(logOf(["assistant/message", { content: null, tool_calls: [] }]));
    expect([view.messages.length, view.events[0]?.hidden]).toEqual([0, "empty-reply"]);
  });

  it("a turn/end inside an open step is drawn after the step, which stays open", () => {
    const view = deriveTimeline(
      logOf(["turn/start", { turn: 1 }], ["step/start", { turn: 1, step: 1 }], ["turn/end", { turn: 1, reason: "error", message: "boom" }]),
    );
    expect(layout(view)).toEqual([{ turn: 1, entries: [0, { step: 1, ids: [1] }, 2] }]);
    expect(view.events[2]?.alert).toEqual({ kind: "error", message: "boom" });
  });
});

describe("addEvent folds one event at a time", () => {
  it("adds the event and updates what it changed: a result marks the call it answers", async () => {
    const { events } = (await replayScenario("calculator")).session;
    const view = deriveTimeline(events.slice(0, 6));
    expect([view.events[5]?.pairedWith, view.pendingCalls.size]).toEqual([null, 1]);
    const added = addEvent(view, events[6] as SessionEvent);
    expect([added.pairedWith, view.events[5]?.pairedWith, view.pendingCalls.size]).toEqual([5, 6, 0]);
  });

  it("takes events only in id order: a gap or a repeat is a TimelineOrderError naming both ids", () => {
    const [first, second] = logOf(["turn/start", { turn: 1 }], ["user/message", { content: "hi" }]) as [SessionEvent, SessionEvent];
    expect(() => addEvent(emptyTimeline(), second)).toThrow(TimelineOrderError);
    const view = emptyTimeline();
    addEvent(view, first);
    expect(() => addEvent(view, first)).toThrow(/event #0 arrived where #1 was expected/);
    expect(deriveTimeline([first, second]).groups.flatMap((group) => group.entries.flatMap(entryIds))).toEqual([0, 1]);
  });
});
