// whereTheLoopStopped on streamed steps: chunks of the open step only, attempts that only go up, and a
// message that cites every chunk of the latest attempt and is what they assemble to (or, marked
// interrupted, the text seen). The rest of the loop's order: loop-order.test.ts.
import { describe, expect, test } from "vitest";
import { call, chunk, finish, log, message, opening, openOf, other, refusal, stepStart, text, type Entry } from "../testing/loop-log.ts";

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
    for (const chunk_ids of [
      [4, 5, 6],
      [5, 6, 4],
    ]) {
      expect(refusal(streamed(text("lost", 1), text("2", 2), finish(2), message([], { chunk_ids }))).why, `${chunk_ids}`).toBe(
        "assistant/message cites 3 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
      );
    }
  });

  test("a message citing a chunk of no step, some of its chunks, none (no chunk_ids at all), or its chunks out of order is refused", () => {
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [4, 1] }))).why).toBe(
      "assistant/message cites #1, which is not a chunk of step 1",
    );
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [4] }))).why).toBe(
      "assistant/message cites 1 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
    );
    expect(refusal(streamed(text("2"), finish(), message([], { chunk_ids: [5, 4] }))).why).toBe(
      "assistant/message cites 2 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
    );
    for (const unstreamed of [message([], { chunk_ids: [] }), message([])]) {
      expect(refusal(streamed(text("2"), finish(), unstreamed)).why).toBe(
        "assistant/message cites 0 of the 2 chunks of the step's latest attempt (the loop cites every one, in order)",
      );
    }
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
