// DeepSeekClient.stream against DeepSeek's SSE format, through MSW: the real SDK reads every byte. The
// bytes arrive cut anywhere, inside a multi-byte character too, and the reply is always the one the
// non-streamed call returns; an early end fails with the chunks received kept by the caller.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { http, HttpResponse } from "msw";
import { assembleReply } from "../05-session-log/stream/stream-assembler.ts";
import { streamedReplyArb } from "../../exercises/05-session-log/stream-arbitraries.ts";
import { DeepSeekClient, DeepSeekError, type ChatRequest } from "./deepseek.ts";
import { capture, captureStream, completion, KEY, mockDeepSeek, sseResponse, sseText, URL_DEFAULT, wireChunkOf } from "./deepseek-mock.ts";
import type { AssistantMessage, StreamChunk } from "./messages.ts";

const server = mockDeepSeek();
const client = () => new DeepSeekClient({ apiKey: KEY, maxRetries: 0 });
const request: ChatRequest = {
  system: "You are a helpful assistant.",
  tools: [{ name: "calculator", description: "Evaluate", parameters: { type: "object", properties: {} } }],
  messages: [{ role: "user", content: "1+2*3 等于几？" }],
};

/** Everything the stream yielded, and what it threw at the end (undefined when it finished). */
async function drain(stream: AsyncIterable<StreamChunk>): Promise<{ chunks: StreamChunk[]; error: unknown }> {
  const chunks: StreamChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (t: string): StreamChunk => ({ kind: "text", text: t });

/** The text a chunk carries that the stream scrubs for the key. */
function pieceOf(chunk: StreamChunk): string {
  if (chunk.kind === "reasoning" || chunk.kind === "text") return chunk.text;
  return chunk.kind === "tool_call" ? chunk.arguments : "";
}

const endsLikeKeyStart = (piece: string) => [...KEY].some((_, at) => piece.endsWith(KEY.slice(0, at + 1)));
const finish: StreamChunk = { kind: "finish", reason: "stop" };

function wireMessage(reply: AssistantMessage) {
  const calls = reply.tool_calls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  return { content: reply.content, reasoning_content: reply.reasoning_content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

describe("the streamed request", () => {
  test("its body is exactly the non-streamed body plus stream: true and stream_options.include_usage", async () => {
    const plain = capture(server, completion({ content: "7" }));
    await client().chat(request);
    server.resetHandlers();
    const streamed = captureStream(server, () => sseResponse(sseText([wireChunkOf(text("7")), wireChunkOf(finish)])));
    await drain(client().stream(request));
    expect(streamed[0]).toEqual({ ...plain[0]?.body, stream: true, stream_options: { include_usage: true } });
  });
});

describe("reading the stream", () => {
  test("any cut of the SSE bytes (inside a UTF-8 character too), with keep-alives, gives the non-streamed call's message", async () => {
    const arb = streamedReplyArb
      .filter(({ reply }) => reply.content !== null || !!reply.reasoning_content || reply.tool_calls.length > 0)
      // A piece ending like the start of the key, or in a word with a "*" (a mask may be arriving), is held
      // back until the next one (the key-cut tests below): chunk for chunk equality holds for every other reply.
      .filter(({ chunks }) => !chunks.some((chunk) => endsLikeKeyStart(pieceOf(chunk)) || pieceOf(chunk).includes("*")))
      .chain(({ reply, chunks }) => {
        const events = chunks.flatMap((chunk, i) => (i % 3 === 1 ? [": keep-alive\n\n", wireChunkOf(chunk)] : [wireChunkOf(chunk)]));
        const body = sseText([": keep-alive\n\n", ...events]);
        const size = new TextEncoder().encode(body).length;
        return fc.record({
          reply: fc.constant(reply),
          chunks: fc.constant(chunks),
          body: fc.constant(body),
          cuts: fc.array(fc.nat(size), { maxLength: 12 }),
        });
      });
    await fc.assert(
      fc.asyncProperty(arb, async ({ reply, chunks, body, cuts }) => {
        server.resetHandlers();
        capture(server, completion(wireMessage(reply)));
        const plain = await client().chat(request);
        server.resetHandlers();
        captureStream(server, () => sseResponse(body, { cuts }));
        const streamed = await drain(client().stream(request));
        expect(streamed.error).toBeUndefined();
        expect(streamed.chunks).toEqual(chunks);
        expect(assembleReply(streamed.chunks)).toEqual(plain);
      }),
      { numRuns: 50 },
    );
  });

  test("usage is read from a choices: [] chunk and from the finish chunk alike", async () => {
    const onFinish = { ...wireChunkOf({ kind: "finish", reason: "stop" }), usage: { total_tokens: 9 } };
    captureStream(server, () => sseResponse(sseText([wireChunkOf(text("hi")), onFinish, { choices: [], usage: { total_tokens: 10 } }])));
    const { chunks, error } = await drain(client().stream(request));
    expect(error).toBeUndefined();
    expect(chunks).toEqual([
      text("hi"),
      { kind: "usage", usage: { total_tokens: 9 } },
      { kind: "finish", reason: "stop" },
      { kind: "usage", usage: { total_tokens: 10 } },
    ]);
  });

  test('an error chunk (data: {"error": …}) is yielded as { kind: "error" }, scrubbed of the key, then the stream fails', async () => {
    const overloaded = { error: { message: `Server overloaded (key ${KEY})`, type: "server_error" } };
    captureStream(server, () => sseResponse(sseText([wireChunkOf(text("半句")), overloaded], false)));
    const { chunks, error } = await drain(client().stream(request));
    expect(chunks).toEqual([text("半句"), { kind: "error", message: "Server overloaded (key [redacted])" }]);
    expect(error).toBeInstanceOf(DeepSeekError);
    expect(error).toMatchObject({ kind: "server", message: "DeepSeek sent an error mid-stream: Server overloaded (key [redacted])" });
  });

  test("a key cut across two chunks (a server that echoes the request) never reaches a chunk, and no text is lost", async () => {
    const [head, tail] = [KEY.slice(0, 10), KEY.slice(10)];
    const pieces = [
      text("your key is "),
      text(head),
      text(`${tail}, and `),
      { kind: "reasoning", text: `echo ${KEY}` } as StreamChunk,
      text("7"),
      finish,
    ];
    captureStream(server, () => sseResponse(sseText(pieces.map(wireChunkOf))));
    const { chunks, error } = await drain(client().stream(request));
    expect(error).toBeUndefined();
    for (const chunk of chunks) expect(JSON.stringify(chunk)).not.toContain(KEY.slice(0, 8));
    // What was held back while it might have been the key comes out with the next chunk: joined, nothing is missing.
    expect(assembleReply(chunks)).toMatchObject({ content: "your key is [redacted], and 7", reasoning_content: "echo [redacted]" });
    expect(chunks[0]).toEqual(text("your key is ")); // ordinary text is passed on at once, not held back
  });

  test("a connection dropped mid-stream fails as a network error after the chunks that arrived", async () => {
    captureStream(server, () => sseResponse(sseText([wireChunkOf({ kind: "reasoning", text: "先算" })], false), { drop: true }));
    const { chunks, error } = await drain(client().stream(request));
    expect(chunks).toEqual([{ kind: "reasoning", text: "先算" }]);
    expect(error).toBeInstanceOf(DeepSeekError);
    expect((error as DeepSeekError).kind).toBe("network");
    expect((error as DeepSeekError).message).toMatch(/^the stream from DeepSeek at https:\/\/api\.deepseek\.com\/? broke off: /);
  });

  test("a stream that closes without a finish chunk is not a finished reply", async () => {
    captureStream(server, () => sseResponse(sseText([wireChunkOf(text("7"))])));
    const { chunks, error } = await drain(client().stream(request));
    expect(chunks).toEqual([text("7")]);
    expect(error).toMatchObject({ kind: "network", message: expect.stringContaining("ended before the reply was finished") });
  });

  test("an aborted stream stops with the signal's reason after the chunks already yielded", async () => {
    const controller = new AbortController();
    const held = new Promise<void>(() => {});
    const body = sseText([wireChunkOf(text("一")), wireChunkOf(text("二")), wireChunkOf(finish)]);
    const firstEvent = new TextEncoder().encode(sseText([wireChunkOf(text("一"))], false)).length;
    captureStream(server, () => sseResponse(body, { cuts: [firstEvent], before: () => held }));
    const chunks: StreamChunk[] = [];
    const reason = new Error("Ctrl-C");
    const run = (async () => {
      for await (const chunk of client().stream(request, { signal: controller.signal })) {
        chunks.push(chunk);
        controller.abort(reason);
      }
    })();
    await expect(run).rejects.toBe(reason);
    expect(chunks).toEqual([text("一")]);
  });

  test("a chunk of the wrong shape is a bad_reply naming the field", async () => {
    captureStream(server, () => sseResponse(sseText([{ choices: "none" }])));
    const { error } = await drain(client().stream(request));
    expect(error).toMatchObject({ kind: "bad_reply", message: expect.stringMatching(/^DeepSeek's stream is malformed: choices /) });
  });

  test("a failure before the stream starts is reported as chat reports it, scrubbed of the key", async () => {
    server.use(http.post(URL_DEFAULT, () => HttpResponse.json({ error: { message: `bad key ${KEY}` } }, { status: 401 })));
    const { chunks, error } = await drain(client().stream(request));
    expect(chunks).toEqual([]);
    expect(error).toMatchObject({ kind: "authentication", status: 401 });
    expect(String((error as Error).message)).not.toContain(KEY);
  });
});

describe("no part of the key in any chunk, whatever its field", () => {
  test("a server that echoes the key into usage, the finish reason, a tool call's id and name and an error: every string is scrubbed", async () => {
    const usage = { prompt_tokens: 10, note: `Bearer ${KEY}`, [`by ${KEY}`]: 1, details: { seen: [`key ${KEY}`] } };
    const call: StreamChunk = { kind: "tool_call", index: 0, id: `call_${KEY}`, name: `calc ${KEY}`, arguments: "{}" };
    const overloaded = { error: { message: `overloaded, key ${KEY}`, type: "server_error" } };
    const pieces = [wireChunkOf(call), wireChunkOf({ kind: "usage", usage }), wireChunkOf({ kind: "finish", reason: `stop ${KEY}` })];
    captureStream(server, () => sseResponse(sseText([...pieces, overloaded], false)));
    const { chunks } = await drain(client().stream(request));
    expect(chunks.map((chunk) => chunk.kind)).toEqual(["tool_call", "usage", "finish", "error"]);
    const leaked = chunks.filter((chunk) => JSON.stringify(chunk).includes(KEY.slice(0, 8)));
    expect(leaked, "scrub every string of a chunk (keys of objects too), not field by field").toEqual([]);
    expect(chunks[1]).toEqual({
      kind: "usage",
      usage: { prompt_tokens: 10, note: "Bearer [redacted]", "by [redacted]": 1, details: { seen: ["key [redacted]"] } },
    });
  });
});

describe("a ****-masked echo of the key cut across chunks", () => {
  test("never reaches a chunk, whatever the cut, and Markdown bold arrives whole", async () => {
    const tail = KEY.slice(-4);
    for (const cut of [
      ["key: **", `**${tail}, **7**`],
      [`key: ****${tail.slice(0, 2)}`, `${tail.slice(2)}, **7**`],
      ["key: *", "*", `**${tail.slice(0, 1)}`, `${tail.slice(1)}, **7`, "**"],
    ]) {
      server.resetHandlers();
      captureStream(server, () => sseResponse(sseText([...cut.map((piece) => wireChunkOf(text(piece))), wireChunkOf(finish)])));
      const { chunks, error } = await drain(client().stream(request));
      expect(error).toBeUndefined();
      expect(
        chunks.filter((chunk) => JSON.stringify(chunk).includes(tail)),
        cut.join(" | "),
      ).toEqual([]);
      expect(assembleReply(chunks).content, cut.join(" | ")).toBe("key: ****, **7**");
    }
  });
});
