// Step 05.8 (challenge) — stream chunks are kept in the log and never sent to the model. Your
// assembler must give the non-streamed message for ANY split of a reply, and keep exactly what the user
// saw of an interrupted one; your streamReply logs each chunk the moment it arrives, then the message
// that cites them. A scripted streaming model stands in for DeepSeek (the real client's SSE is tested
// in chapters/common/deepseek-stream.test.ts).
// Needs no earlier step: it runs on the chapter's Session, projection and findLogProblems.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { calculator } from "../../chapters/common/calculator.ts";
import type { ChatClient, ChatRequest, StreamingChatClient } from "../../chapters/common/deepseek.ts";
import type { AssistantMessage, ToolCall } from "../../chapters/common/messages.ts";
import { toolSpec } from "../../chapters/common/tools.ts";
import { runAgent } from "../../chapters/05-session-log/agent-loop.ts";
import type { SessionEvent, StreamChunk } from "../../chapters/05-session-log/events.ts";
import { findLogProblems } from "../../chapters/05-session-log/invariants.ts";
import { StreamAssemblyError } from "../../chapters/05-session-log/loop-types.ts";
import { deriveMessages } from "../../chapters/05-session-log/projection.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import {
  contentChunksArb,
  ScriptedStreamClient,
  simpleStream,
  streamArb,
  streamedReplyArb,
  type ScriptedStream,
} from "./stream-arbitraries.ts";
import { assembleInterrupted, assembleReply, streamReply } from "./streamed-step.ts";
import { thrownAs } from "./thrown.ts";

const text = (t: string): StreamChunk => ({ kind: "text", text: t });
const reasoning = (t: string): StreamChunk => ({ kind: "reasoning", text: t });
const fragment = (index: number, args: string, id?: string): StreamChunk =>
  id === undefined ? { kind: "tool_call", index, arguments: args } : { kind: "tool_call", index, id, name: "calculator", arguments: args };

const SYSTEM = "你是一个乐于助人的助手。遇到算术题时，用 calculator 工具计算。";
const PROMPT = "1+2*3 等于几？";
const request = { system: SYSTEM, tools: [toolSpec(calculator)] };
const callReply: AssistantMessage = {
  role: "assistant",
  content: "",
  reasoning_content: "用户问 1+2*3，先调用计算器。",
  tool_calls: [{ id: "call_00_a", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
};
const answerReply: AssistantMessage = {
  role: "assistant",
  content: "根据计算，1 + 2 × 3 = 7。",
  reasoning_content: "计算器返回 7。",
  tool_calls: [],
};

/** A session with turn 1 and step `step` open, as the loop leaves it before its model call. */
function openStep(session = new Session(), step = 1): Session {
  if (step === 1) {
    session.append("turn/start", { turn: 1 });
    session.append("user/message", { content: PROMPT });
  }
  session.append("step/start", { turn: 1, step });
  return session;
}

/** What the loop does after the model call: answer each call, close the step (and the turn). */
function closeStep(session: Session, step: number, calls: readonly ToolCall[], turnEnd?: "completed" | "error" | "interrupted"): void {
  for (const call of calls) {
    session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
    session.append("tool/result", { call_id: call.id, content: "7", is_error: false });
  }
  session.append("step/end", { turn: 1, step });
  if (turnEnd) session.append("turn/end", { turn: 1, reason: turnEnd });
}

const ofType = <T extends string>(session: Session, type: T) => session.events.filter((e): e is SessionEvent<T> => e.type === type);

/** What streamReply rejected with (and a failed test if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("streamReply should rethrow the stream's error"),
    (error: unknown) => error,
  );
}

/** The requests the non-streamed loop sends for the calculator round trip: what the streamed run must send. */
async function plainRequests(): Promise<ChatRequest[]> {
  const requests: ChatRequest[] = [];
  const replies = [callReply, answerReply];
  const client: ChatClient = {
    model: "m",
    chat: async (r) => (requests.push(structuredClone(r)), replies[requests.length - 1] ?? answerReply),
  };
  await runAgent({ client, tools: [calculator], systemPrompt: SYSTEM, userPrompt: PROMPT });
  return requests;
}

describe("05.8 assembleReply: the message a finished stream carries", () => {
  test("any split of a reply into chunks (empty deltas, half an emoji, interleaved calls) assembles to exactly that reply", () => {
    fc.assert(
      fc.property(streamedReplyArb, ({ reply, chunks }) => {
        expect(assembleReply(chunks), "join every text and reasoning delta; put tool calls together by index").toEqual(reply);
      }),
      { numRuns: 200 },
    );
  });

  test("every reasoning delta is kept, not only the last one", () => {
    expect(assembleReply([reasoning("先算"), reasoning("乘法"), text("7")]).reasoning_content).toBe("先算乘法");
  });

  test("tool-call fragments are joined by index: only the first fragment carries the id", () => {
    const reply = assembleReply([
      fragment(1, '{"a":', "call_01_b"),
      fragment(0, '{"b":', "call_00_a"),
      fragment(1, "2}"),
      fragment(0, "1}"),
    ]);
    expect(reply.tool_calls, "key the calls by chunk.index, and sort them by it").toEqual([
      { id: "call_00_a", name: "calculator", arguments: '{"b":1}' },
      { id: "call_01_b", name: "calculator", arguments: '{"a":2}' },
    ]);
  });

  test('no text chunk gives content null, an empty one gives ""; no reasoning chunk gives null', () => {
    expect(assembleReply([reasoning("r")])).toEqual({ role: "assistant", content: null, reasoning_content: "r", tool_calls: [] });
    expect(assembleReply([text(""), { kind: "finish", reason: "stop" }])).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: null,
      tool_calls: [],
    });
  });

  test("a tool call that never says its id or name is a StreamAssemblyError naming its index", () => {
    const error = thrownAs(StreamAssemblyError, () => assembleReply([fragment(2, "{}")]));
    expect(error.message, "say which tool call: its index").toMatch(/index 2/);
  });
});

describe("05.8 assembleInterrupted: what the user already saw", () => {
  test("keeps the text and reasoning seen, exactly, and drops tool-call fragments", () => {
    expect(assembleInterrupted([reasoning("先算"), text(" 答案"), fragment(0, '{"ex', "call_00_a")])).toEqual({
      role: "assistant",
      content: " 答案",
      reasoning_content: "先算",
      tool_calls: [],
    });
  });

  test("null when nothing but whitespace and tool-call fragments arrived", () => {
    expect(assembleInterrupted([])).toBeNull();
    expect(assembleInterrupted([text(" \n"), reasoning("\t"), fragment(0, "{", "call_00_a")])).toBeNull();
  });

  test('whitespace-only text beside reasoning is dropped, and content is "" so the next request is valid', () => {
    expect(assembleInterrupted([reasoning("想"), text("  ")])).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: "想",
      tool_calls: [],
    });
  });
});

describe("05.8 streamReply: each chunk is logged as it arrives, and only the message reaches the model", () => {
  test("each chunk is appended as assistant/chunk { turn, step, attempt: 1, chunk } before the next one arrives", async () => {
    const session = openStep();
    const chunks = simpleStream(callReply).chunks;
    const logged: number[] = [];
    const client: StreamingChatClient = {
      model: "m",
      chat: () => Promise.reject(new Error("stream, don't chat")),
      async *stream() {
        for (const chunk of chunks) {
          logged.push(ofType(session, "assistant/chunk").length);
          yield chunk;
        }
        logged.push(ofType(session, "assistant/chunk").length);
      },
    };
    await streamReply({ session, client, turn: 1, step: 1, request });
    expect(logged, "append each chunk the moment it arrives, not after the stream ends").toEqual([0, 1, 2, 3, 4]);
    expect(ofType(session, "assistant/chunk").map((e) => e.data)).toEqual(chunks.map((chunk) => ({ turn: 1, step: 1, attempt: 1, chunk })));
  });

  test("then one assistant/message with the reply and chunk_ids citing those chunks; the reply is returned", async () => {
    const session = openStep();
    const reply = await streamReply({ session, client: new ScriptedStreamClient([simpleStream(callReply)]), turn: 1, step: 1, request });
    expect(reply).toEqual(callReply);
    expect(session.events.map((e) => e.type).slice(3)).toEqual([...Array(4).fill("assistant/chunk"), "assistant/message"]);
    expect(session.events.at(-1)?.data).toEqual({
      content: callReply.content,
      reasoning_content: callReply.reasoning_content,
      tool_calls: callReply.tool_calls,
      chunk_ids: [3, 4, 5, 6],
    });
  });

  test("for any split of a two-step run, the model is sent exactly what the non-streamed loop sends, and the log passes findLogProblems", async () => {
    const expected = await plainRequests();
    await fc.assert(
      fc.asyncProperty(streamArb(callReply), streamArb(answerReply), async (first, second) => {
        const client = new ScriptedStreamClient([{ chunks: first }, { chunks: second }]);
        const session = openStep();
        const reply = await streamReply({ session, client, turn: 1, step: 1, request });
        closeStep(session, 1, reply.tool_calls);
        openStep(session, 2);
        await streamReply({ session, client, turn: 1, step: 2, request });
        closeStep(session, 2, [], "completed");
        expect(client.requests, "derive the request's messages from the log: chunks never reach the model").toEqual(expected);
        expect(findLogProblems(session.events)).toEqual([]);
        const withoutChunks = session.events.filter((e) => e.type !== "assistant/chunk");
        expect(deriveMessages(withoutChunks), "the messages come from assistant/message, not the chunks").toEqual(session.deriveMessages());
      }),
      { numRuns: 60 },
    );
  });
});

describe("05.8 a stream that ends early leaves what the user saw", () => {
  test("aborted after any chunk: the chunks received stay, the message holds exactly the text seen, and the log passes findLogProblems", async () => {
    const arb = fc
      .tuple(contentChunksArb(callReply), contentChunksArb(answerReply))
      .map(([a, b]) => [...a, ...b])
      .chain((chunks) => fc.tuple(fc.constant(chunks), fc.nat(Math.max(chunks.length - 1, 0))));
    await fc.assert(
      fc.asyncProperty(arb, async ([chunks, stopAfter]) => {
        const controller = new AbortController();
        const reason = new Error("Ctrl-C");
        const session = openStep();
        session.subscribe((event) => {
          if (event.type === "assistant/chunk" && ofType(session, "assistant/chunk").length === stopAfter + 1) controller.abort(reason);
        });
        const client = new ScriptedStreamClient([{ chunks }]);
        const error = await rejection(streamReply({ session, client, turn: 1, step: 1, request, signal: controller.signal, attempts: 3 }));
        // Checked first: a retry after Ctrl-C asks the script for a stream it does not have, which is the error seen.
        expect(client.requests, "an aborted stream is never retried, whatever `attempts` allows: check signal.aborted").toHaveLength(1);
        expect(error, "rethrow the stream's error after logging what was seen").toBe(reason);
        const received = chunks.slice(0, stopAfter + 1);
        expect(ofType(session, "assistant/chunk").map((e) => e.data.chunk)).toEqual(received);
        const seen = assembleInterrupted(received);
        const messages = ofType(session, "assistant/message");
        if (seen === null) expect(messages, "nothing but whitespace or tool-call fragments: no message").toEqual([]);
        else {
          const { role: _, ...fields } = seen;
          const chunk_ids = ofType(session, "assistant/chunk").map((e) => e.id);
          expect(
            messages.map((e) => e.data),
            "text or reasoning was seen: log it as an assistant/message (assembleInterrupted) citing the chunks, with interrupted: true",
          ).toEqual([{ ...fields, chunk_ids, interrupted: true }]);
        }
        closeStep(session, 1, [], "interrupted");
        expect(findLogProblems(session.events)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  test("a dropped connection: the chunks stay, an interrupted message keeps the text, the same error is rethrown", async () => {
    const drop = new Error("socket hang up");
    const session = openStep();
    const client = new ScriptedStreamClient([{ chunks: [reasoning("先算"), text("答案是")], fail: drop }]);
    expect(await rejection(streamReply({ session, client, turn: 1, step: 1, request }))).toBe(drop);
    expect(session.events.at(-1)?.data, "after the chunks, the text seen as an assistant/message with interrupted: true").toEqual({
      content: "答案是",
      reasoning_content: "先算",
      tool_calls: [],
      chunk_ids: [3, 4],
      interrupted: true,
    });
  });

  test("an error chunk after tool-call fragments only: the chunks stay, and there is no message", async () => {
    const session = openStep();
    const overloaded: ScriptedStream = {
      chunks: [fragment(0, '{"ex', "call_00_a"), { kind: "error", message: "overloaded" }],
      fail: new Error("overloaded"),
    };
    await rejection(streamReply({ session, client: new ScriptedStreamClient([overloaded]), turn: 1, step: 1, request }));
    expect(session.events.map((e) => e.type).slice(3), "a half-written tool call cannot be kept: drop it").toEqual([
      "assistant/chunk",
      "assistant/chunk",
    ]);
  });

  test("a retried stream never mixes attempts: the failed attempt's chunks stay (attempt 1), the message cites only attempt 2's", async () => {
    const session = openStep();
    const broken: ScriptedStream = { chunks: [text("根据")], fail: new Error("socket hang up") };
    const client = new ScriptedStreamClient([broken, simpleStream(answerReply)]);
    const reply = await streamReply({ session, client, turn: 1, step: 1, request, attempts: 2 });
    expect(reply).toEqual(answerReply);
    const chunks = ofType(session, "assistant/chunk");
    expect(chunks.map((e) => e.data.attempt)).toEqual([1, 2, 2, 2]);
    const messages = ofType(session, "assistant/message");
    expect(messages, "a failed attempt that is retried leaves no message").toHaveLength(1);
    expect(messages[0]?.data.chunk_ids, "cite only the chunks of the attempt the message was built from").toEqual(
      chunks.slice(1).map((e) => e.id),
    );
    expect(client.requests[1], "the retry sends the same request").toEqual(client.requests[0]);
    closeStep(session, 1, [], "completed");
    expect(findLogProblems(session.events)).toEqual([]);
  });
});
