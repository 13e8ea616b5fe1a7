// readStream's edges: what a chunk of the wrong shape is called, tool call fragments that leave fields out,
// and what happens to the SDK's stream and the abort signal when the reader stops, early or not. Some tests
// hand readStream a stream of wire chunks made here, to see what it does to that stream.
import { getEventListeners } from "node:events";
import { describe, expect, test } from "vitest";
import type { StreamChunk } from "../05-session-log/events.ts";
import { DeepSeekClient, type ChatRequest } from "./deepseek.ts";
import { captureStream, KEY, mockDeepSeek, sseResponse, sseText, wireChunkOf } from "./deepseek-mock.ts";
import { readStream } from "./deepseek-stream.ts";

const server = mockDeepSeek();
const request: ChatRequest = { system: "s", tools: [], messages: [{ role: "user", content: "1+2*3 等于几？" }] };
const call = { apiKey: KEY, baseURL: "https://api.deepseek.com", timeoutMs: 1000, tries: 1 };
const text = (t: string): StreamChunk => ({ kind: "text", text: t });
const finish = (reason = "stop"): StreamChunk => ({ kind: "finish", reason });

/** Everything the stream yielded through the SDK, and what it threw at the end (undefined when it finished). */
async function drain(events: readonly (Record<string, unknown> | string | number)[], done = true) {
  const body = events.map((event) => (typeof event === "string" ? event : `data: ${JSON.stringify(event)}\n\n`)).join("");
  captureStream(server, () => sseResponse(sseText([body], done)));
  const chunks: StreamChunk[] = [];
  try {
    for await (const chunk of new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }).stream(request)) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

/** A stream of wire chunks as the SDK hands them over, which counts how often it is closed early. */
function wire(
  chunks: readonly StreamChunk[],
  close: () => Promise<IteratorResult<unknown>> = async () => ({ done: true, value: undefined }),
) {
  const closed = { count: 0 };
  let at = 0;
  const iterator: AsyncIterator<unknown> = {
    next: async () =>
      at < chunks.length ? { done: false, value: wireChunkOf(chunks[at++] as StreamChunk) } : { done: true, value: undefined },
    return: () => {
      closed.count++;
      return close();
    },
  };
  return { stream: { [Symbol.asyncIterator]: () => iterator }, closed };
}

describe("a chunk of the wrong shape is a bad_reply: where, and what zod found", () => {
  test("a field of the wrong type is named by its path", async () => {
    const { error } = await drain([{ choices: "none" }]);
    expect(error).toMatchObject({
      kind: "bad_reply",
      message: "DeepSeek's stream is malformed: choices Invalid input: expected array, received string",
    });
  });

  test("a chunk that is not an object at all is called the chunk", async () => {
    const { error } = await drain([wireChunkOf(text("7")), 5]);
    expect(error).toMatchObject({
      kind: "bad_reply",
      message: "DeepSeek's stream is malformed: the chunk Invalid input: expected object, received number",
    });
  });

  test("an event whose data is not JSON is a malformed reply, after the chunks before it", async () => {
    const { chunks, error } = await drain([wireChunkOf(text("7")), "data: {not json\n\n"]);
    expect(chunks).toEqual([text("7")]);
    expect(error).toMatchObject({
      kind: "bad_reply",
      message: expect.stringMatching(/^DeepSeek's reply is malformed: the response is not valid JSON \(/),
    });
  });
});

describe("tool call fragments and choices that leave fields out", () => {
  const choice = (delta: Record<string, unknown> | null, finish_reason: string | null = null) => ({
    choices: [{ index: 0, delta, finish_reason }],
  });

  test("an id or name that is null or empty is left out of the chunk, and a fragment without a function has arguments ''", async () => {
    const { chunks } = await drain([
      choice({ tool_calls: [{ index: 0, id: "call_0", function: { name: "calculator", arguments: "{" } }] }),
      choice({ tool_calls: [{ index: 0, id: null, function: { name: "", arguments: "}" } }] }),
      choice({ tool_calls: [{ index: 0, id: "" }] }),
      choice(null, "tool_calls"),
    ]);
    expect(chunks).toStrictEqual([
      { kind: "tool_call", index: 0, id: "call_0", name: "calculator", arguments: "{" },
      { kind: "tool_call", index: 0, arguments: "}" },
      { kind: "tool_call", index: 0, arguments: "" },
      finish("tool_calls"),
    ]);
  });
});

describe("held-back text comes out before the failure", () => {
  test("what the answer's scrubber holds is handed on before the server's error chunk", async () => {
    const overloaded = { error: { message: "overloaded", type: "server_error" } };
    const { chunks, error } = await drain([wireChunkOf(text("yes")), overloaded], false);
    expect(chunks).toEqual([text("ye"), text("s"), { kind: "error", message: "overloaded" }]);
    expect(error).toMatchObject({ kind: "server", message: "DeepSeek sent an error mid-stream: overloaded" });
  });

  test("a stream that breaks off says why, with no part of the key in it", async () => {
    const broken: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({ next: async () => Promise.reject(new Error(`connection reset (Bearer ${KEY})`)) }),
    };
    const reading = (async () => {
      for await (const _ of readStream(broken, call));
    })();
    await expect(reading).rejects.toMatchObject({
      kind: "network",
      message: "the stream from DeepSeek at https://api.deepseek.com broke off: connection reset (Bearer [redacted])",
    });
  });
});

describe("the SDK's stream is closed when, and only when, the reader stops early", () => {
  test("a reader that stops after the first chunk closes it once; a stream read to its end is not closed", async () => {
    const early = wire([text("一"), text("二"), finish()]);
    for await (const _ of readStream(early.stream, call)) break;
    expect(early.closed.count, "stopped early: the SDK then cancels the request").toBe(1);
    const whole = wire([text("一"), finish()]);
    for await (const _ of readStream(whole.stream, call));
    expect(whole.closed.count, "read to its end: nothing to cancel").toBe(0);
  });

  test("a close that fails is no unhandled rejection, and a wire stream that cannot be closed is left as it is", async () => {
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", note);
    try {
      const failing = wire([text("一"), finish()], () => Promise.reject(new Error("cannot cancel")));
      for await (const _ of readStream(failing.stream, call)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled, "the close is not awaited, so its failure is caught where it is started").toEqual([]);
    } finally {
      process.off("unhandledRejection", note);
    }
    const chunks = [text("一"), finish()].map(wireChunkOf);
    const noReturn: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => (chunks.length > 0 ? { done: false, value: chunks.shift() } : { done: true, value: undefined }),
      }),
    };
    const read: StreamChunk[] = [];
    for await (const chunk of readStream(noReturn, call)) {
      read.push(chunk);
      break;
    }
    expect(read).toEqual([text("一")]);
  });
});

describe("the abort signal", () => {
  test("each read of the stream removes its abort listener: none is left on the signal after a long stream", async () => {
    const controller = new AbortController();
    const many = wire([...Array.from({ length: 50 }, (_, i) => text(`${i} `)), finish()]);
    for await (const _ of readStream(many.stream, call, controller.signal));
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
  });

  test("an abort while a read of the stream is still waiting (a stalled body) stops it at once with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("Ctrl-C");
    let reading = () => {};
    const waiting = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const stalled: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          reading();
          return new Promise<IteratorResult<unknown>>(() => {});
        },
        return: async () => ({ done: true, value: undefined }),
      }),
    };
    const read = (async () => {
      for await (const _ of readStream(stalled, call, controller.signal));
    })();
    await waiting;
    controller.abort(reason);
    await expect(read).rejects.toBe(reason);
  });

  test("an abort while the last held-back chunks are handed on still stops the stream with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("Ctrl-C");
    // "tool_calls" ends with "s", which may begin the key: the finish chunk waits until the stream ends.
    const ending = wire([text("7"), finish("tool_calls")]);
    const read: StreamChunk[] = [];
    const reading = (async () => {
      for await (const chunk of readStream(ending.stream, call, controller.signal)) {
        read.push(chunk);
        if (chunk.kind === "finish") controller.abort(reason);
      }
    })();
    await expect(reading).rejects.toBe(reason);
    expect(read).toEqual([text("7"), finish("tool_calls")]);
  });
});
