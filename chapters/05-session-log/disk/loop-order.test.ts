// whereTheLoopStopped, rule by rule: a log that is a prefix of the agent loop's order of appends says
// where the loop stopped; anything else names the first event the loop could not have written there and
// says why, in the words a RepairError shows (05.7's tests check the repair around it).
import { describe, expect, test } from "vitest";
import type { EventData, KnownEventType, SessionEvent, StreamChunk } from "../events.ts";
import { whereTheLoopStopped } from "./loop-order.ts";

type Entry = { [T in KnownEventType]: [T, EventData<T>] }[KnownEventType];

/** The events, numbered from 0 as a log numbers them. */
function log(...entries: readonly Entry[]): SessionEvent[] {
  return entries.map(([type, data], id) => ({ id, type, ts: id, data }) as SessionEvent);
}

const call = { id: "call_1", name: "calculator", arguments: '{"expression":"1+1"}' };
const other = { id: "call_2", name: "calculator", arguments: '{"expression":"2+2"}' };

const turnStart = (turn = 1): Entry => ["turn/start", { turn }];
const opening = (turn = 1): Entry[] => [
  turnStart(turn),
  ["user/message", { content: "1+1?" }],
  ["request/header", { header: { model: "m", system: "s", tools: [] }, reason: "initial" }],
];
const stepStart = (step: number, turn = 1): Entry => ["step/start", { turn, step }];
const stepEnd = (step: number, turn = 1): Entry => ["step/end", { turn, step }];
const message = (tool_calls: (typeof call)[], extra: Partial<EventData<"assistant/message">> = {}): Entry => [
  "assistant/message",
  { content: tool_calls.length === 0 ? "2" : "", reasoning_content: null, tool_calls, ...extra },
];
const toolCall = (asked = call): Entry => ["tool/call", { call_id: asked.id, name: asked.name, arguments: asked.arguments }];
const toolResult = (id = call.id): Entry => ["tool/result", { call_id: id, content: "2", is_error: false }];
const chunk = (data: StreamChunk, attempt = 1, step = 1, turn = 1): Entry => ["assistant/chunk", { turn, step, attempt, chunk: data }];
const text = (words: string, attempt = 1) => chunk({ kind: "text", text: words }, attempt);
const finish = (attempt = 1) => chunk({ kind: "finish", reason: "stop" }, attempt);
/** One whole turn: a tool call in step 1, the final answer in step 2. */
const wholeTurn = (turn = 1): Entry[] => [
  ...opening(turn),
  stepStart(1, turn),
  message([call]),
  toolCall(),
  toolResult(),
  stepEnd(1, turn),
  stepStart(2, turn),
  message([]),
  stepEnd(2, turn),
  ["turn/end", { turn, reason: "completed" }],
];

/** The refusal: the event's id and the sentence that starts with its type. */
function refusal(events: readonly SessionEvent[]): { index: number; why: string } {
  const stop = whereTheLoopStopped(events);
  if (stop.fits) throw new Error(`expected the walk to refuse an event, but the log fits: ${JSON.stringify(stop.open)}`);
  return { index: stop.index, why: stop.why };
}

function openOf(events: readonly SessionEvent[]) {
  const stop = whereTheLoopStopped(events);
  if (!stop.fits) throw new Error(`expected the log to fit the loop's order, but #${stop.index} ${stop.why}`);
  return stop.open;
}

describe("turns: one open at a time, numbered from 1, ended after a step/end", () => {
  test("a turn/start inside an open turn names the open turn", () => {
    expect(refusal(log(...opening(), turnStart(2)))).toEqual({
      index: 3,
      why: "turn/start while turn 1 is still open (a crash leaves only the last turn open)",
    });
  });

  test("a turn/start with the wrong number says which number the log is at", () => {
    expect(refusal(log(...wholeTurn(), turnStart(3)))).toEqual({ index: 12, why: "turn/start says turn 3, but it is turn 2 of the log" });
    expect(refusal(log(turnStart(2)))).toEqual({ index: 0, why: "turn/start says turn 2, but it is turn 1 of the log" });
  });

  test("a turn/end with no turn open, or for another turn, or inside a step is refused", () => {
    expect(refusal(log(["turn/end", { turn: 1, reason: "completed" }]))).toEqual({
      index: 0,
      why: "turn/end for turn 1, but no turn is open",
    });
    expect(refusal(log(...opening(), stepStart(1), message([]), stepEnd(1), ["turn/end", { turn: 2, reason: "completed" }]))).toEqual({
      index: 6,
      why: "turn/end says turn 2, but the open turn is 1",
    });
    expect(refusal(log(...opening(), stepStart(1), ["turn/end", { turn: 1, reason: "interrupted" }]))).toEqual({
      index: 4,
      why: "turn/end while step 1 is still open (the loop ends a step before its turn)",
    });
  });

  test('before the first step only "interrupted" may end a turn (what a repair writes there)', () => {
    expect(refusal(log(...opening(), ["turn/end", { turn: 1, reason: "completed" }]))).toEqual({
      index: 3,
      why: 'turn/end "completed" before the turn\'s first step (only a repair closes a turn there, as "interrupted")',
    });
    expect(openOf(log(...opening(), ["turn/end", { turn: 1, reason: "interrupted" }]))).toBeUndefined();
  });

  test("the opening comes in its order: user/message, then request/header, then a step", () => {
    expect(refusal(log(turnStart(), opening()[2] as Entry))).toEqual({ index: 1, why: "request/header where the loop logs user/message" });
    expect(refusal(log(turnStart(), stepStart(1)))).toEqual({ index: 1, why: "step/start where the loop logs user/message" });
    expect(refusal(log(...opening(), opening()[1] as Entry))).toEqual({ index: 3, why: "user/message where the loop logs step" });
    expect(refusal(log(...opening(), stepStart(1), opening()[1] as Entry))).toEqual({
      index: 4,
      why: "user/message where the loop logs the step's events",
    });
  });
});

describe("steps: numbered from 1 in their turn, one open at a time, another only after tool calls", () => {
  test("a step/start inside an open step names the step/end the loop logs first", () => {
    expect(refusal(log(...opening(), stepStart(1), stepStart(2)))).toEqual({
      index: 4,
      why: "step/start where the loop logs step/end for step 1",
    });
  });

  test("a step/start with the wrong turn or step says which comes next", () => {
    expect(refusal(log(...opening(), stepStart(2)))).toEqual({
      index: 3,
      why: "step/start says turn 1 step 2, but the next is turn 1 step 1",
    });
    expect(refusal(log(...opening(), stepStart(1, 2)))).toEqual({
      index: 3,
      why: "step/start says turn 2 step 1, but the next is turn 1 step 1",
    });
  });

  test("no step follows a final answer or a step without a full reply", () => {
    expect(refusal(log(...opening(), stepStart(1), message([]), stepEnd(1), stepStart(2)))).toEqual({
      index: 6,
      why: "step/start after a step that ended with final answer (the loop goes on only after tool calls)",
    });
    expect(refusal(log(...opening(), stepStart(1), stepEnd(1), stepStart(2)))).toEqual({
      index: 5,
      why: "step/start after a step that ended with no full reply (the loop goes on only after tool calls)",
    });
    const cutShort = message([], { chunk_ids: [4], interrupted: true });
    expect(refusal(log(...opening(), stepStart(1), text("2"), cutShort, stepEnd(1), stepStart(2))).why).toBe(
      "step/start after a step that ended with no full reply (the loop goes on only after tool calls)",
    );
  });

  test("a step/end for another turn or step, with a call running, or before a call asked for, is refused", () => {
    expect(refusal(log(...opening(), stepStart(1), stepEnd(2)))).toEqual({
      index: 4,
      why: "step/end says turn 1 step 2, but the open step is turn 1 step 1",
    });
    expect(refusal(log(...opening(), stepStart(1), stepEnd(1, 2))).why).toBe(
      "step/end says turn 2 step 1, but the open step is turn 1 step 1",
    );
    expect(refusal(log(...opening(), stepStart(1), message([call]), toolCall(), stepEnd(1)))).toEqual({
      index: 6,
      why: "step/end while call call_1 still has no result",
    });
    expect(refusal(log(...opening(), stepStart(1), message([call, other]), toolCall(), toolResult(), stepEnd(1)))).toEqual({
      index: 7,
      why: "step/end before call call_2 that the reply asked for was logged",
    });
  });

  test("an event of a step outside any step, and an event the loop never writes, are refused", () => {
    expect(refusal(log(...opening(), toolResult()))).toEqual({
      index: 3,
      why: "tool/result outside any step (the loop logs it only between step/start and step/end)",
    });
    const note = { id: 4, type: "ui/note", ts: 4, data: { text: "hi" } } as unknown as SessionEvent;
    expect(refusal([...log(...opening(), stepStart(1)), note])).toEqual({ index: 4, why: "ui/note is not an event the agent loop writes" });
  });
});

describe("tool calls: each one the reply asked for, in its order, one at a time", () => {
  test("a call while another has no result names the running call", () => {
    expect(refusal(log(...opening(), stepStart(1), message([call, other]), toolCall(), toolCall(other)))).toEqual({
      index: 6,
      why: "tool/call while call call_1 still has no result (the loop runs calls one by one)",
    });
  });

  test("a call the reply did not ask for next says what it asked for", () => {
    expect(refusal(log(...opening(), stepStart(1), message([call, other]), toolCall(other))).why).toBe(
      "tool/call call_2 is not what the reply asked for next (call call_1)",
    );
    expect(refusal(log(...opening(), stepStart(1), message([call]), toolCall(), toolResult(), toolCall())).why).toBe(
      "tool/call call_1 is not what the reply asked for next (nothing more)",
    );
    expect(refusal(log(...opening(), stepStart(1), toolCall())).why).toBe(
      "tool/call call_1 is not what the reply asked for next (nothing more)",
    );
  });

  test("a call is the one asked for only with the same name and the same arguments", () => {
    const renamed = { ...call, name: "shell" };
    const reargued = { ...call, arguments: "{}" };
    for (const asked of [renamed, reargued]) {
      expect(refusal(log(...opening(), stepStart(1), message([call]), toolCall(asked))).why).toBe(
        "tool/call call_1 is not what the reply asked for next (call call_1)",
      );
    }
  });

  test("a result for a call that is not running names the one that is, or none", () => {
    expect(refusal(log(...opening(), stepStart(1), message([call]), toolResult("call_9"))).why).toBe(
      "tool/result for call call_9, which is not the call running (none)",
    );
    expect(refusal(log(...opening(), stepStart(1), message([call]), toolCall(), toolResult("call_9"))).why).toBe(
      "tool/result for call call_9, which is not the call running (call_1)",
    );
  });

  test("a reply asking for one call id twice is refused: a result could not tell them apart", () => {
    expect(refusal(log(...opening(), stepStart(1), message([call, call])))).toEqual({
      index: 4,
      why: "assistant/message asks for tool call call_1 twice (a result could not tell them apart)",
    });
  });

  test("a second reply in one step is refused", () => {
    expect(refusal(log(...opening(), stepStart(1), message([call]), message([])))).toEqual({
      index: 5,
      why: "assistant/message is the second reply in step 1 (one model call, one message)",
    });
  });
});

describe("streamed steps: chunks of the step, attempts that only go up, a message that is what they assemble to", () => {
  const streamed = (...entries: Entry[]) => log(...opening(), stepStart(1), ...entries);

  test("a chunk after the step's message, or of another turn or step, is refused", () => {
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [4, 5] }), text("3"))).why).toBe(
      "assistant/chunk after the step's assistant/message (chunks come before the message built from them)",
    );
    expect(refusal(streamed(chunk({ kind: "text", text: "2" }, 1, 2))).why).toBe(
      "assistant/chunk says turn 1 step 2, inside turn 1 step 1",
    );
    expect(refusal(streamed(chunk({ kind: "text", text: "2" }, 1, 1, 2))).why).toBe(
      "assistant/chunk says turn 2 step 1, inside turn 1 step 1",
    );
  });

  test("a retry never goes back to an earlier attempt", () => {
    expect(refusal(streamed(text("a", 2), text("b", 1)))).toEqual({
      index: 5,
      why: "assistant/chunk of attempt 1 after attempt 2 (a retry never goes back)",
    });
  });

  test("a retried step's message cites the latest attempt's chunks only, and the open step shows only those", () => {
    const events = streamed(text("lost", 1), text("2", 2), finish(2));
    expect(openOf(events)?.step?.chunks.map((event) => event.id)).toEqual([5, 6]);
    expect(openOf([...events, ...log(message([], { chunk_ids: [5, 6] })).map((event) => ({ ...event, id: 7 }))])?.step?.chunks).toEqual([]);
    expect(refusal(streamed(text("lost", 1), text("2", 2), finish(2), message([], { chunk_ids: [4, 5, 6] }))).why).toBe(
      "assistant/message cites 3 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
    );
  });

  test("a message citing a chunk of no step, some of its chunks, or its chunks out of order is refused", () => {
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [4, 1] }))).why).toBe(
      "assistant/message cites #1, which is not a chunk of step 1",
    );
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [4] }))).why).toBe(
      "assistant/message cites 1 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
    );
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [5, 4] }))).why).toBe(
      "assistant/message cites 2 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
    );
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [] }))).why).toBe(
      "assistant/message cites 0 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
    );
  });

  test("a message that differs from what its chunks assemble to names the field", () => {
    expect(refusal(streamed(text("3"), finish(), message([], { chunk_ids: [4, 5] }))).why).toBe(
      "assistant/message has content that its chunks did not carry",
    );
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [4, 5], reasoning_content: "because" }))).why).toBe(
      "assistant/message has reasoning_content that its chunks did not carry",
    );
    const callChunk = chunk({ kind: "tool_call", index: 0, id: call.id, name: call.name, arguments: call.arguments });
    const asked = (calls: (typeof call)[]) => message(calls, { content: null, chunk_ids: [4, 5] });
    expect(openOf(streamed(callChunk, finish(), asked([call])))?.step?.reply?.tool_calls).toEqual([call]);
    for (const calls of [[], [call, other], [{ ...call, id: "call_9" }], [{ ...call, name: "shell" }], [{ ...call, arguments: "{}" }]]) {
      expect(refusal(streamed(callChunk, finish(), asked(calls))).why, JSON.stringify(calls)).toBe(
        "assistant/message asks for tool calls that its chunks did not carry",
      );
    }
  });

  test("a message marked interrupted keeps only text seen; one with none to keep is refused", () => {
    expect(openOf(streamed(text("2"), message([], { chunk_ids: [4], interrupted: true })))?.step?.reply?.interrupted).toBe(true);
    expect(refusal(streamed(text("  "), message([], { content: "", chunk_ids: [4], interrupted: true }))).why).toBe(
      "assistant/message is marked interrupted, but its chunks carried no text to keep (the loop then logs no message)",
    );
    expect(refusal(streamed(message([], { content: "", interrupted: true }))).why).toBe(
      "assistant/message is marked interrupted, but its chunks carried no text to keep (the loop then logs no message)",
    );
  });

  test("a message not marked interrupted needs a finish chunk and chunks that make a reply", () => {
    expect(refusal(streamed(text("2"), message([], { chunk_ids: [4] }))).why).toBe(
      "assistant/message is not marked interrupted, but its chunks never finished (no finish chunk)",
    );
    const nameless = chunk({ kind: "tool_call", index: 0, id: call.id, arguments: "{}" });
    expect(refusal(streamed(nameless, finish(), message([], { chunk_ids: [4, 5] }))).why).toBe(
      "assistant/message is not marked interrupted, but its chunks do not make a reply (the streamed tool call at index 0 never said its name)",
    );
    expect(refusal(streamed(message([], { chunk_ids: [] }))).why).toBe(
      "assistant/message is not marked interrupted, but its chunks never finished (no finish chunk)",
    );
  });
});

describe("where the loop stopped", () => {
  test("a log of whole turns has nothing open; an empty log neither", () => {
    expect(whereTheLoopStopped([])).toEqual({ fits: true, open: undefined });
    expect(whereTheLoopStopped(log(...wholeTurn(), ...wholeTurn(2)))).toEqual({ fits: true, open: undefined });
  });

  test("cut before its first step, a turn is open with no step and not answered", () => {
    expect(openOf(log(...opening()))).toEqual({ turn: 1, step: undefined, answered: false });
    expect(openOf(log(...wholeTurn(), ...opening(2)))).toEqual({ turn: 2, step: undefined, answered: false });
  });

  test("cut inside a step: its chunks, its reply, the call running and the calls not started", () => {
    expect(openOf(log(...opening(), stepStart(1), text("1")))).toEqual({
      turn: 1,
      step: { turn: 1, step: 1, chunks: [expect.objectContaining({ id: 4 })], reply: undefined, running: undefined, notStarted: [] },
      answered: false,
    });
    const asked = log(...opening(), stepStart(1), message([call, other]), toolCall());
    expect(openOf(asked)?.step).toEqual({
      turn: 1,
      step: 1,
      chunks: [],
      reply: asked[4]?.data,
      running: call,
      notStarted: [other],
    });
  });

  test("a turn is answered once its latest step logged a final answer, inside that step or after it", () => {
    const answer = log(...opening(), stepStart(1), message([call]), toolCall(), toolResult(), stepEnd(1), stepStart(2), message([]));
    expect(openOf(answer)?.answered).toBe(true);
    expect(openOf(log(...wholeTurn().slice(0, -1)))?.answered).toBe(true);
    expect(openOf(log(...wholeTurn().slice(0, 8)))?.answered, "cut after step 2 began").toBe(false);
    expect(openOf(log(...wholeTurn().slice(0, 5)))?.answered, "a reply with tool calls").toBe(false);
    const cutShort = message([], { chunk_ids: [4], interrupted: true });
    expect(openOf(log(...opening(), stepStart(1), text("2"), cutShort))?.answered, "interrupted").toBe(false);
  });
});
