// Chunk events in a log: findLogProblems' two chunk rules, and the projection's promise that chunks
// never reach the model (proved for any log, not only the ones runAgent writes).
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { eventInputsArb } from "../../../exercises/05-session-log/arbitraries.ts";
import { sessionOf } from "../../../exercises/05-session-log/practice-runs.ts";
import type { StreamChunk } from "../events.ts";
import { findLogProblems } from "../invariants.ts";
import { deriveMessages } from "../projection.ts";
import { Session } from "../session.ts";

const text = (t: string): StreamChunk => ({ kind: "text", text: t });
const codes = (session: Session) => findLogProblems(session.events).map((p) => `${p.code}@${p.index}`);

/** turn 1 step 1 open, then chunks of the given attempts (ids 2, 3, …). */
function openStepWithChunks(attempts: readonly number[]): Session {
  const session = new Session({ clock: () => 0 });
  session.append("turn/start", { turn: 1 });
  session.append("step/start", { turn: 1, step: 1 });
  for (const attempt of attempts) session.append("assistant/chunk", { turn: 1, step: 1, attempt, chunk: text("a") });
  return session;
}

function close(session: Session): Session {
  session.append("step/end", { turn: 1, step: 1 });
  session.append("turn/end", { turn: 1, reason: "completed" });
  return session;
}

const message = (chunk_ids: number[]) => ({ content: "a", reasoning_content: null, tool_calls: [], chunk_ids });

describe("findLogProblems: chunk rules", () => {
  test("a message citing every chunk of one attempt of its step, in order, is fine", () => {
    const session = openStepWithChunks([1, 1, 2, 2]);
    session.append("assistant/message", message([4, 5]));
    expect(codes(close(session))).toEqual([]);
  });

  test("a message citing chunks of two attempts is BAD_CHUNK_IDS: a retry never mixes attempts", () => {
    const session = openStepWithChunks([1, 2]);
    session.append("assistant/message", message([2, 3]));
    expect(codes(close(session))).toEqual(["BAD_CHUNK_IDS@4"]);
    expect(findLogProblems(session.events)[0]?.message).toBe(
      "event #4: assistant/message cites chunks [2, 3], but attempt 1 of its step logged [2]",
    );
    expect(findLogProblems(session.events)[0]?.zh).toBe(
      "事件 #4：assistant/message 引用了分片 [2, 3]，但它这一步的第 1 次尝试记下的是 [2]",
    );
  });

  test("a message citing only some chunks of its attempt, or out of order, is BAD_CHUNK_IDS", () => {
    for (const ids of [[2], [3, 2], [2, 3, 3]]) {
      const session = openStepWithChunks([1, 1]);
      session.append("assistant/message", message(ids));
      expect(codes(close(session))).toEqual(["BAD_CHUNK_IDS@4"]);
    }
  });

  test("a message citing chunks logged after it, or in another step, or none, is BAD_CHUNK_IDS", () => {
    const before = openStepWithChunks([]);
    before.append("assistant/message", message([3]));
    before.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: text("a") });
    expect(codes(close(before))).toEqual(["BAD_CHUNK_IDS@2"]);
    expect(findLogProblems(before.events)[0]?.message).toBe(
      "event #2: assistant/message cites chunks [3], which are not earlier chunks of its step",
    );
    expect(findLogProblems(before.events)[0]?.zh).toBe("事件 #2：assistant/message 引用的分片 [3] 不是它这一步里更早的分片");

    const elsewhere = close(openStepWithChunks([1]));
    elsewhere.append("turn/start", { turn: 2 });
    elsewhere.append("step/start", { turn: 2, step: 1 });
    elsewhere.append("assistant/message", message([2]));
    expect(codes(elsewhere)).toEqual(["OPEN_TURN@5", "OPEN_STEP@6", "BAD_CHUNK_IDS@7"]);

    const none = openStepWithChunks([1]);
    none.append("assistant/message", message([]));
    expect(codes(close(none))).toEqual(["BAD_CHUNK_IDS@3"]);
  });

  test("a chunk outside its open step is STRAY_CHUNK", () => {
    const session = new Session({ clock: () => 0 });
    session.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: text("a") });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("assistant/chunk", { turn: 1, step: 2, attempt: 1, chunk: text("a") });
    close(session);
    expect(codes(session)).toEqual(["STRAY_CHUNK@0", "STRAY_CHUNK@3"]);
    expect(findLogProblems(session.events)[1]?.message).toBe("event #3: a chunk of turn 1 step 2, which is not the open step");
  });

  test("a message without chunk_ids (not streamed) is not checked against chunks", () => {
    const session = openStepWithChunks([1]);
    session.append("assistant/message", { content: "a", reasoning_content: null, tool_calls: [] });
    expect(codes(close(session))).toEqual([]);
  });
});

describe("the projection skips chunks", () => {
  test("for any log, deriving with every chunk event removed gives the same messages", () => {
    fc.assert(
      fc.property(eventInputsArb, (inputs) => {
        const events = sessionOf(inputs).events;
        expect(deriveMessages(events.filter((event) => event.type !== "assistant/chunk"))).toEqual(deriveMessages(events));
      }),
      { numRuns: 150 },
    );
  });
});
