// whereTheLoopStopped, rule by rule: a log that is a prefix of the agent loop's order of appends says
// where the loop stopped; anything else names the first event the loop could not have written there and
// says why, in the words a RepairError shows (05.7's tests check the repair around it). Streamed steps:
// loop-order-streamed.test.ts.
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../events.ts";
import { whereTheLoopStopped } from "./loop-order.ts";
import {
  call,
  log,
  message,
  opening,
  openOf,
  other,
  refusal,
  stepEnd,
  stepStart,
  text,
  toolCall,
  toolResult,
  turnStart,
  wholeTurn,
  type Entry,
} from "../testing/loop-log.ts";

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
