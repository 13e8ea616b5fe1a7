// runAgent with `stream: true`: every chunk logged as it arrives, the model sent exactly what the
// non-streamed run sends, and a stream that ends early (abort, drop, error chunk) leaves a log that
// findLogProblems accepts and that the next turn can go on from.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { calculator } from "../../common/calculator.ts";
import type { ChatClient, ChatRequest } from "../../common/deepseek.ts";
import type { AssistantMessage, Message } from "../../common/messages.ts";
import {
  contentChunksArb,
  ScriptedStreamClient,
  simpleStream,
  streamArb,
  type ScriptedStream,
} from "../../../exercises/05-session-log/stream-arbitraries.ts";
import { runAgent } from "../agent-loop.ts";
import type { SessionEvent, StreamChunk } from "../events.ts";
import { findLogProblems } from "../invariants.ts";
import { AgentRunError } from "../loop-types.ts";
import { Session } from "../session.ts";
import type { SessionLog } from "../session-types.ts";

const callReply: AssistantMessage = {
  role: "assistant",
  content: "",
  reasoning_content: "用户问 1+2*3，先调用计算器。",
  tool_calls: [{ id: "call_00_a", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
};
const answerReply: AssistantMessage = {
  role: "assistant",
  content: "1 + 2 × 3 = 7。",
  reasoning_content: "计算器返回 7。",
  tool_calls: [],
};
const options = { tools: [calculator], systemPrompt: "You are a calculator.", userPrompt: "1+2*3 等于几？" };

/** The same replies, not streamed: what the streamed run must match. */
async function plainRun(replies: AssistantMessage[]) {
  const requests: ChatRequest[] = [];
  const client: ChatClient = {
    model: "deepseek-flash-scripted",
    chat: async (request) => {
      requests.push(structuredClone(request));
      return replies[requests.length - 1] ?? answerReply;
    },
  };
  const session = await runAgent({ ...options, client });
  return { requests, messages: session.deriveMessages() };
}

const types = (session: SessionLog) => session.events.map((event) => event.type);
const last = (session: SessionLog) => session.events.at(-1);

/** The run's rejection, as an AgentRunError. */
async function failedRun(promise: Promise<SessionLog>): Promise<AgentRunError> {
  const error = await promise.then(
    () => expect.unreachable("the run should fail"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentRunError);
  return error as AgentRunError;
}

/** What DeepSeek requires of a request's messages (deepseek.md): text or calls on every reply, reasoning kept on call turns, every call answered. */
function requestProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, i) => {
    if (message.role !== "assistant") return;
    if (message.tool_calls.length === 0 && typeof message.content !== "string")
      problems.push(`#${i}: an assistant reply with no text and no calls`);
    if (message.tool_calls.length > 0 && typeof message.reasoning_content !== "string")
      problems.push(`#${i}: a call turn without its reasoning`);
    for (const call of message.tool_calls) {
      if (!messages.some((m) => m.role === "tool" && m.tool_call_id === call.id)) problems.push(`#${i}: call ${call.id} unanswered`);
    }
  });
  return problems;
}

describe("runAgent({ stream: true })", () => {
  test("a streamed calculator round trip logs each chunk before the message that cites them, and passes findLogProblems", async () => {
    const client = new ScriptedStreamClient([simpleStream(callReply), simpleStream(answerReply)]);
    const session = await runAgent({ ...options, client, stream: true });
    expect(types(session)).toEqual([
      ...["turn/start", "user/message", "request/header", "step/start"],
      ...["assistant/chunk", "assistant/chunk", "assistant/chunk", "assistant/chunk", "assistant/message"],
      ...["tool/call", "tool/result", "step/end", "step/start"],
      ...["assistant/chunk", "assistant/chunk", "assistant/chunk", "assistant/message", "step/end", "turn/end"],
    ]);
    expect(session.events[8]?.data).toMatchObject({ chunk_ids: [4, 5, 6, 7], tool_calls: callReply.tool_calls });
    expect(session.events[4]?.data).toEqual({
      turn: 1,
      step: 1,
      attempt: 1,
      chunk: { kind: "reasoning", text: callReply.reasoning_content },
    });
    expect(findLogProblems(session.events)).toEqual([]);
  });

  test("for any split of the replies, the model is sent exactly what the non-streamed run sends, and derives the same messages", async () => {
    const plain = await plainRun([callReply, answerReply]);
    await fc.assert(
      fc.asyncProperty(streamArb(callReply), streamArb(answerReply), async (first, second) => {
        const client = new ScriptedStreamClient([{ chunks: first }, { chunks: second }]);
        const session = await runAgent({ ...options, client, stream: true });
        expect(client.requests).toEqual(plain.requests);
        expect(session.deriveMessages()).toEqual(plain.messages);
        expect(findLogProblems(session.events)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  test("stream: true with a client that cannot stream is a TypeError before anything is logged", async () => {
    const session = new Session();
    const client: ChatClient = { model: "m", chat: async () => answerReply };
    await expect(runAgent({ ...options, client, session, stream: true })).rejects.toThrow(/stream: true needs a client that can stream/);
    expect(session.events).toEqual([]);
  });
});

describe("a stream that ends early", () => {
  test("aborted at any chunk: the chunks stay, the message holds exactly the text seen, the turn ends interrupted, and the next turn goes on", async () => {
    const arb = fc
      .tuple(contentChunksArb(callReply), contentChunksArb(answerReply))
      .chain(([first, second]) =>
        fc.tuple(
          fc.constant([...first, { kind: "finish", reason: "tool_calls" } as StreamChunk]),
          fc.constant(second),
          fc.nat(first.length + second.length),
        ),
      );
    await fc.assert(
      fc.asyncProperty(arb, async ([first, second, stopAt]) => {
        const controller = new AbortController();
        const session = new Session();
        let seen = 0;
        session.subscribe((event) => {
          if (event.type === "assistant/chunk" && ++seen === stopAt + 1) controller.abort(new Error("Ctrl-C"));
        });
        const client = new ScriptedStreamClient([{ chunks: first }, { chunks: second }]);
        const error = await failedRun(runAgent({ ...options, client, session, stream: true, signal: controller.signal }));
        expect(error.message).toMatch(/^turn 1 was interrupted in step \d: Ctrl-C$/);
        expect(last(session)?.data).toEqual({ turn: 1, reason: "interrupted", message: "Ctrl-C" });
        expect(findLogProblems(session.events)).toEqual([]);
        const messages = session.events.filter((e): e is SessionEvent<"assistant/message"> => e.type === "assistant/message");
        const stopped = messages.find((m) => m.data.interrupted === true);
        const lastStep = session.events.filter((e) => e.type === "assistant/chunk").at(-1) as SessionEvent<"assistant/chunk"> | undefined;
        const chunks = session.events.filter(
          (e): e is SessionEvent<"assistant/chunk"> => e.type === "assistant/chunk" && e.data.step === lastStep?.data.step,
        );
        const seenText = chunks.flatMap((e) => (e.data.chunk.kind === "text" ? [e.data.chunk.text] : [])).join("");
        if (/\S/.test(seenText)) expect(stopped?.data.content).toBe(seenText);
        const next = new ScriptedStreamClient([simpleStream(answerReply)]);
        await runAgent({ ...options, client: next, session, stream: true, userPrompt: "继续" });
        expect(requestProblems(next.requests[0]?.messages ?? [])).toEqual([]);
        expect(findLogProblems(session.events)).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });

  test("a dropped connection: chunks and the interrupted message stay, the turn ends with error and the message", async () => {
    const client = new ScriptedStreamClient([
      {
        chunks: [
          { kind: "reasoning", text: "先算" },
          { kind: "text", text: "答案是" },
        ],
        fail: new Error("socket hang up"),
      },
    ]);
    const error = await failedRun(runAgent({ ...options, client, stream: true }));
    expect(types(error.session).slice(3)).toEqual([
      "step/start",
      "assistant/chunk",
      "assistant/chunk",
      "assistant/message",
      "step/end",
      "turn/end",
    ]);
    expect(error.session.events[6]?.data).toEqual({
      content: "答案是",
      reasoning_content: "先算",
      tool_calls: [],
      chunk_ids: [4, 5],
      interrupted: true,
    });
    expect(last(error.session)?.data).toEqual({ turn: 1, reason: "error", message: "socket hang up" });
    expect(findLogProblems(error.session.events)).toEqual([]);
  });

  test("an error chunk is logged; with only tool-call fragments before it there is no message", async () => {
    const fragment: StreamChunk = { kind: "tool_call", index: 0, id: "call_00_a", name: "calculator", arguments: '{"expr' };
    const client = new ScriptedStreamClient([
      { chunks: [fragment, { kind: "error", message: "overloaded" }], fail: new Error("DeepSeek sent an error mid-stream: overloaded") },
    ]);
    const error = await failedRun(runAgent({ ...options, client, stream: true }));
    expect(types(error.session).slice(3)).toEqual(["step/start", "assistant/chunk", "assistant/chunk", "step/end", "turn/end"]);
    expect(last(error.session)?.data).toMatchObject({ reason: "error", message: "DeepSeek sent an error mid-stream: overloaded" });
    expect(error.session.deriveMessages()).toEqual([{ role: "user", content: options.userPrompt }]);
  });

  test("a retried stream never mixes attempts: the failed attempt's chunks stay, the message cites only its own", async () => {
    const broken: ScriptedStream = { chunks: [{ kind: "text", text: "1 + 2" }], fail: new Error("socket hang up") };
    const client = new ScriptedStreamClient([broken, simpleStream(answerReply)]);
    const session = await runAgent({ ...options, client, stream: true, streamAttempts: 2 });
    const chunks = session.events.filter((e): e is SessionEvent<"assistant/chunk"> => e.type === "assistant/chunk");
    expect(chunks.map((e) => e.data.attempt)).toEqual([1, 2, 2, 2]);
    const message = session.events.find((e) => e.type === "assistant/message");
    expect(message?.data).toEqual({ ...answerReply, role: undefined, chunk_ids: chunks.slice(1).map((e) => e.id) });
    expect(client.requests[1]).toEqual(client.requests[0]);
    expect(findLogProblems(session.events)).toEqual([]);
  });
});
