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
import { rejectedAs, thrownAs } from "./thrown.ts";

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
const rejection = (promise: Promise<unknown>) =>
  rejectedAs(Error, promise, "streamReply 应当把流的错误原样抛出 / streamReply should rethrow the stream's error");

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

describe("05.8 assembleReply：正常结束的流带来的消息 / the message a finished stream carries", () => {
  test("一条回复不管怎样切成分片（空分片、半个 emoji、交错的调用），都正好拼回那条回复 / any split of a reply into chunks (empty deltas, half an emoji, interleaved calls) assembles to exactly that reply", () => {
    fc.assert(
      fc.property(streamedReplyArb, ({ reply, chunks }) => {
        expect(
          assembleReply(chunks),
          "把正文和思考内容的每段增量接起来；工具调用按 index 拼 / join every text and reasoning delta; put tool calls together by index",
        ).toEqual(reply);
      }),
      { numRuns: 200 },
    );
  });

  test("每一段思考内容都保留，不是只留最后一段 / every reasoning delta is kept, not only the last one", () => {
    expect(assembleReply([reasoning("先算"), reasoning("乘法"), text("7")]).reasoning_content).toBe("先算乘法");
  });

  test("工具调用的片段按 index 拼接：只有第一个片段带 id / tool-call fragments are joined by index: only the first fragment carries the id", () => {
    const reply = assembleReply([
      fragment(1, '{"a":', "call_01_b"),
      fragment(0, '{"b":', "call_00_a"),
      fragment(1, "2}"),
      fragment(0, "1}"),
    ]);
    expect(reply.tool_calls, "按 chunk.index 归组调用，并按它排序 / key the calls by chunk.index, and sort them by it").toEqual([
      { id: "call_00_a", name: "calculator", arguments: '{"b":1}' },
      { id: "call_01_b", name: "calculator", arguments: '{"a":2}' },
    ]);
  });

  test('没有正文分片时 content 是 null，只来过空分片时是 ""；没有思考内容分片时是 null / no text chunk gives content null, an empty one gives ""; no reasoning chunk gives null', () => {
    expect(assembleReply([reasoning("r")])).toEqual({ role: "assistant", content: null, reasoning_content: "r", tool_calls: [] });
    expect(assembleReply([text(""), { kind: "finish", reason: "stop" }])).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: null,
      tool_calls: [],
    });
  });

  test("始终没说出 id 或名字的工具调用是 StreamAssemblyError，写出它的 index / a tool call that never says its id or name is a StreamAssemblyError naming its index", () => {
    const error = thrownAs(
      StreamAssemblyError,
      () => assembleReply([fragment(2, "{}")]),
      "拼不出完整的工具调用时抛 StreamAssemblyError / a tool call that cannot be put together is a StreamAssemblyError",
    );
    expect(error.message, "说出是哪个工具调用：它的 index / say which tool call: its index").toMatch(/index 2/);
  });
});

describe("05.8 assembleInterrupted：用户已经看到的内容 / what the user already saw", () => {
  test("一字不差地保留已经看到的正文和思考内容，丢掉工具调用的片段 / keeps the text and reasoning seen, exactly, and drops tool-call fragments", () => {
    expect(assembleInterrupted([reasoning("先算"), text(" 答案"), fragment(0, '{"ex', "call_00_a")])).toEqual({
      role: "assistant",
      content: " 答案",
      reasoning_content: "先算",
      tool_calls: [],
    });
  });

  test("只来了空白和工具调用片段时返回 null / null when nothing but whitespace and tool-call fragments arrived", () => {
    expect(assembleInterrupted([])).toBeNull();
    expect(assembleInterrupted([text(" \n"), reasoning("\t"), fragment(0, "{", "call_00_a")])).toBeNull();
  });

  test('思考内容旁边只有空白的正文被丢掉，content 是 ""，下一次请求才合法 / whitespace-only text beside reasoning is dropped, and content is "" so the next request is valid', () => {
    expect(assembleInterrupted([reasoning("想"), text("  ")])).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: "想",
      tool_calls: [],
    });
  });
});

describe("05.8 streamReply：每个分片一到就记进日志，只有消息发给模型 / each chunk is logged as it arrives, and only the message reaches the model", () => {
  test("每个分片在下一个到达之前就追加为 assistant/chunk { turn, step, attempt: 1, chunk } / each chunk is appended as assistant/chunk { turn, step, attempt: 1, chunk } before the next one arrives", async () => {
    const session = openStep();
    const chunks = simpleStream(callReply).chunks;
    const logged: number[] = [];
    const client: StreamingChatClient = {
      model: "m",
      chat: () => Promise.reject(new Error("这次运行是流式的，不要调用 chat() / stream, don't chat")),
      async *stream() {
        for (const chunk of chunks) {
          logged.push(ofType(session, "assistant/chunk").length);
          yield chunk;
        }
        logged.push(ofType(session, "assistant/chunk").length);
      },
    };
    await streamReply({ session, client, turn: 1, step: 1, request });
    expect(logged, "分片一到就追加，不要等流结束 / append each chunk the moment it arrives, not after the stream ends").toEqual([
      0, 1, 2, 3, 4,
    ]);
    expect(ofType(session, "assistant/chunk").map((e) => e.data)).toEqual(chunks.map((chunk) => ({ turn: 1, step: 1, attempt: 1, chunk })));
  });

  test("然后是一条 assistant/message，带着回复和引用这些分片的 chunk_ids；返回这条回复 / then one assistant/message with the reply and chunk_ids citing those chunks; the reply is returned", async () => {
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

  test("两步的运行不管怎样切分，发给模型的都和非流式循环发的一模一样，日志通过 findLogProblems / for any split of a two-step run, the model is sent exactly what the non-streamed loop sends, and the log passes findLogProblems", async () => {
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
        expect(
          client.requests,
          "请求的消息从日志派生：分片永远不发给模型 / derive the request's messages from the log: chunks never reach the model",
        ).toEqual(expected);
        expect(findLogProblems(session.events)).toEqual([]);
        const withoutChunks = session.events.filter((e) => e.type !== "assistant/chunk");
        expect(
          deriveMessages(withoutChunks),
          "消息来自 assistant/message，不来自分片 / the messages come from assistant/message, not the chunks",
        ).toEqual(session.deriveMessages());
      }),
      { numRuns: 60 },
    );
  });
});

describe("05.8 提前结束的流留下用户看到的内容 / a stream that ends early leaves what the user saw", () => {
  test("在任意一个分片之后中止：收到的分片都留下，消息正好是已经看到的文字，日志通过 findLogProblems / aborted after any chunk: the chunks received stay, the message holds exactly the text seen, and the log passes findLogProblems", async () => {
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
        expect(
          client.requests,
          "中止的流绝不重试，不管 `attempts` 允许几次：检查 signal.aborted / an aborted stream is never retried, whatever `attempts` allows: check signal.aborted",
        ).toHaveLength(1);
        expect(error, "记下看到的内容之后，把流的错误原样抛出 / rethrow the stream's error after logging what was seen").toBe(reason);
        const received = chunks.slice(0, stopAfter + 1);
        expect(ofType(session, "assistant/chunk").map((e) => e.data.chunk)).toEqual(received);
        const seen = assembleInterrupted(received);
        const messages = ofType(session, "assistant/message");
        if (seen === null)
          expect(messages, "只有空白或工具调用片段：没有消息 / nothing but whitespace or tool-call fragments: no message").toEqual([]);
        else {
          const { role: _, ...fields } = seen;
          const chunk_ids = ofType(session, "assistant/chunk").map((e) => e.id);
          expect(
            messages.map((e) => e.data),
            "看到了正文或思考内容：记成一条 assistant/message（assembleInterrupted），引用这些分片，带 interrupted: true / text or reasoning was seen: log it as an assistant/message (assembleInterrupted) citing the chunks, with interrupted: true",
          ).toEqual([{ ...fields, chunk_ids, interrupted: true }]);
        }
        closeStep(session, 1, [], "interrupted");
        expect(findLogProblems(session.events)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  test("连接断开：分片留下，interrupted 的消息保留文字，原来的错误原样抛出 / a dropped connection: the chunks stay, an interrupted message keeps the text, the same error is rethrown", async () => {
    const drop = new Error("socket hang up");
    const session = openStep();
    const client = new ScriptedStreamClient([{ chunks: [reasoning("先算"), text("答案是")], fail: drop }]);
    expect(await rejection(streamReply({ session, client, turn: 1, step: 1, request }))).toBe(drop);
    expect(
      session.events.at(-1)?.data,
      "分片之后，是一条带 interrupted: true 的 assistant/message，内容是看到的文字 / after the chunks, the text seen as an assistant/message with interrupted: true",
    ).toEqual({
      content: "答案是",
      reasoning_content: "先算",
      tool_calls: [],
      chunk_ids: [3, 4],
      interrupted: true,
    });
  });

  test("只来了工具调用片段，然后是错误分片：分片留下，没有消息 / an error chunk after tool-call fragments only: the chunks stay, and there is no message", async () => {
    const session = openStep();
    const overloaded: ScriptedStream = {
      chunks: [fragment(0, '{"ex', "call_00_a"), { kind: "error", message: "overloaded" }],
      fail: new Error("overloaded"),
    };
    await rejection(streamReply({ session, client: new ScriptedStreamClient([overloaded]), turn: 1, step: 1, request }));
    expect(
      session.events.map((e) => e.type).slice(3),
      "写了一半的工具调用不能留：丢掉它 / a half-written tool call cannot be kept: drop it",
    ).toEqual(["assistant/chunk", "assistant/chunk"]);
  });

  test("重试的流绝不混用两次尝试：失败那次的分片留下（attempt 1），消息只引用第 2 次的 / a retried stream never mixes attempts: the failed attempt's chunks stay (attempt 1), the message cites only attempt 2's", async () => {
    const session = openStep();
    const broken: ScriptedStream = { chunks: [text("根据")], fail: new Error("socket hang up") };
    const client = new ScriptedStreamClient([broken, simpleStream(answerReply)]);
    const reply = await streamReply({ session, client, turn: 1, step: 1, request, attempts: 2 });
    expect(reply).toEqual(answerReply);
    const chunks = ofType(session, "assistant/chunk");
    expect(chunks.map((e) => e.data.attempt)).toEqual([1, 2, 2, 2]);
    const messages = ofType(session, "assistant/message");
    expect(messages, "重试了的失败尝试不留消息 / a failed attempt that is retried leaves no message").toHaveLength(1);
    expect(
      messages[0]?.data.chunk_ids,
      "只引用拼出这条消息的那次尝试的分片 / cite only the chunks of the attempt the message was built from",
    ).toEqual(chunks.slice(1).map((e) => e.id));
    expect(client.requests[1], "重试发出同样的请求 / the retry sends the same request").toEqual(client.requests[0]);
    closeStep(session, 1, [], "completed");
    expect(findLogProblems(session.events)).toEqual([]);
  });
});
