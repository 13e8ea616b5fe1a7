// Test data for streaming (step 05.8 and the chapter's streaming tests): a reply, and any way it can
// arrive as chunks. Text and reasoning are cut at any code unit (so an emoji can arrive in two halves),
// pieces may be empty, a tool call's later fragments carry only its index, and the fragments of parallel
// calls, text and reasoning interleave in any order that keeps each one's own order.
import fc from "fast-check";
import type { StreamChunk } from "../../chapters/05-session-log/events.ts";
import type { CallOptions, ChatRequest, StreamingChatClient } from "../../chapters/common/deepseek.ts";
import type { AssistantMessage, ToolCall } from "../../chapters/common/messages.ts";

/** Any string, astral characters and all: "binary" draws from every code point. */
const anyText = fc.string({ unit: "binary", maxLength: 30 });

const toolCallArb: fc.Arbitrary<ToolCall> = fc.record({
  id: fc.stringMatching(/^call_0\d_[A-Za-z0-9]{1,8}$/),
  name: fc.constantFrom("calculator", "search", "read_file"),
  arguments: anyText,
});

/** A reply as the non-streamed client returns it. */
export const replyArb: fc.Arbitrary<AssistantMessage> = fc.record({
  role: fc.constant("assistant" as const),
  content: fc.option(anyText, { nil: null }),
  reasoning_content: fc.option(anyText, { nil: null }),
  tool_calls: fc.uniqueArray(toolCallArb, { maxLength: 3, selector: (call) => call.id }),
});

/** `text` cut into pieces at any code units, empty pieces included; there is always at least one piece. */
function piecesArb(text: string): fc.Arbitrary<string[]> {
  return fc.array(fc.nat(text.length), { maxLength: 6 }).map((cuts) => {
    const at = [0, ...cuts.sort((a, b) => a - b), text.length];
    return at.slice(1).map((end, i) => text.slice(at[i], end));
  });
}

/** Each list's items in order, the lists interleaved at random. */
function interleaveArb<T>(lists: readonly (readonly T[])[]): fc.Arbitrary<T[]> {
  const keyed = lists.map((list) =>
    fc.array(fc.nat(1000), { minLength: list.length, maxLength: list.length }).map((keys) => keys.sort((a, b) => a - b)),
  );
  return fc.tuple(...keyed).map((keysPerList) =>
    lists
      .flatMap((list, i) => list.map((item, j) => ({ item, key: keysPerList[i]?.[j] ?? 0, list: i })))
      .sort((a, b) => a.key - b.key || a.list - b.list)
      .map(({ item }) => item),
  );
}

function textChunksArb(kind: "text" | "reasoning", text: string | null): fc.Arbitrary<StreamChunk[]> {
  if (text === null) return fc.constant([]);
  return piecesArb(text).map((pieces) => pieces.map((piece) => ({ kind, text: piece })));
}

function toolCallChunksArb(call: ToolCall, index: number): fc.Arbitrary<StreamChunk[]> {
  return piecesArb(call.arguments).map(([first = "", ...rest]) => [
    { kind: "tool_call", index, id: call.id, name: call.name, arguments: first },
    ...rest.map((piece): StreamChunk => ({ kind: "tool_call", index, arguments: piece })),
  ]);
}

/** The content chunks of `reply`: reasoning, text and tool-call fragments, interleaved, no finish. */
export function contentChunksArb(reply: AssistantMessage): fc.Arbitrary<StreamChunk[]> {
  return fc
    .tuple(
      textChunksArb("reasoning", reply.reasoning_content ?? null),
      textChunksArb("text", reply.content),
      ...reply.tool_calls.map(toolCallChunksArb),
    )
    .chain((lists) => interleaveArb(lists));
}

/** A whole stream of `reply`: its content chunks, then a finish chunk with usage before or after it. */
export function streamArb(reply: AssistantMessage): fc.Arbitrary<StreamChunk[]> {
  const reason = reply.tool_calls.length > 0 ? "tool_calls" : "stop";
  const usage: StreamChunk = { kind: "usage", usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
  const finish: StreamChunk = { kind: "finish", reason };
  return fc
    .tuple(contentChunksArb(reply), fc.boolean())
    .map(([chunks, usageFirst]) => [...chunks, ...(usageFirst ? [usage, finish] : [finish, usage])]);
}

/** A reply and one way it streamed. */
export const streamedReplyArb = replyArb.chain((reply) => streamArb(reply).map((chunks) => ({ reply, chunks })));

// ── a scripted streaming model ──────────────────────────────────────────────────────────────────

/** One scripted stream: these chunks, then (when `fail` is given) that error instead of a normal end. */
export interface ScriptedStream {
  readonly chunks: readonly StreamChunk[];
  readonly fail?: Error;
}

/** A StreamingChatClient that streams from a script, honours the signal, and records every request. */
export class ScriptedStreamClient implements StreamingChatClient {
  readonly model = "deepseek-flash-scripted";
  /** Copies taken at call time: what the step sent then. */
  readonly requests: ChatRequest[] = [];
  readonly #script: ScriptedStream[];

  constructor(script: readonly ScriptedStream[]) {
    this.#script = [...script];
  }

  async chat(): Promise<AssistantMessage> {
    throw new Error(
      "脚本化的流式模型：这次运行是流式的，不该调用 chat() / ScriptedStreamClient: this run streams, so chat() should not be called",
    );
  }

  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamChunk> {
    this.requests.push(structuredClone(request));
    const next = this.#script.shift();
    if (next === undefined)
      throw new Error(
        `脚本化的流式模型没有准备第 ${this.requests.length} 个请求的流 / ScriptedStreamClient: no stream scripted for request #${this.requests.length}`,
      );
    for (const chunk of next.chunks) {
      options.signal?.throwIfAborted();
      yield chunk;
    }
    options.signal?.throwIfAborted();
    if (next.fail) throw next.fail;
  }
}

/** A finished stream of `reply`, one chunk per field, for tests that do not need every split. */
export function simpleStream(reply: AssistantMessage): ScriptedStream {
  const chunks: StreamChunk[] = [];
  if (reply.reasoning_content != null) chunks.push({ kind: "reasoning", text: reply.reasoning_content });
  if (reply.content !== null) chunks.push({ kind: "text", text: reply.content });
  reply.tool_calls.forEach((call, index) => {
    chunks.push({ kind: "tool_call", index, id: call.id, name: call.name, arguments: call.arguments });
  });
  chunks.push({ kind: "finish", reason: reply.tool_calls.length > 0 ? "tool_calls" : "stop" });
  return { chunks };
}
