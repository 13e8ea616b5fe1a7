// For the client's tests: DeepSeek mocked at the HTTP layer with MSW (unhandled requests are errors,
// so nothing reaches the network), DeepSeek's reply shape, and helpers to catch what a call throws.
import { http, HttpResponse, type JsonBodyType } from "msw";
import { setupServer, type SetupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from "vitest";
import type { StreamChunk } from "./messages.ts";
import { type DeepSeekClient, DeepSeekError } from "./deepseek.ts";

export const KEY = "sk-test-0123456789abcdef0123456789abcdef";
export const URL_DEFAULT = "https://api.deepseek.com/chat/completions";

/**
 * Starts an MSW server for the calling test file. The developer's own DEEPSEEK_* settings are
 * blanked for each test, so they never leak into one.
 */
export function mockDeepSeek(): SetupServer {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(() => {
    for (const name of ["DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "DEEPSEEK_MODEL", "DEEPSEEK_TIMEOUT_MS"]) vi.stubEnv(name, "");
  });
  afterEach(() => {
    server.resetHandlers();
    vi.unstubAllEnvs();
  });
  afterAll(() => server.close());
  return server;
}

/** A DeepSeek reply carrying `message`, in the documented non-streaming shape. */
export function completion(message: Record<string, unknown>, finish_reason = "stop") {
  return {
    id: "8f0d6f3c-5a51-4a8e-9d0b-2f6c1f7d2a10",
    object: "chat.completion",
    created: 1787650000,
    model: "deepseek-flash",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** Answers every chat request with `reply` and keeps each request's body and headers. */
export function capture(server: SetupServer, reply: JsonBodyType, url = URL_DEFAULT) {
  const seen: { body: Record<string, unknown>; headers: Headers }[] = [];
  server.use(
    http.post(url, async ({ request }) => {
      seen.push({ body: (await request.json()) as Record<string, unknown>, headers: request.headers });
      return HttpResponse.json(reply);
    }),
  );
  return seen;
}

/** One chat call with nothing in it: for tests about the reply or the failure, not the request. */
export const ask = (client: DeepSeekClient) => client.chat({ system: "s", tools: [], messages: [] });

/** The DeepSeekError that `promise` rejects with (and a failed test if it is not one). */
export async function deepSeekError(promise: Promise<unknown>): Promise<DeepSeekError> {
  const error = await rejection(promise);
  expect(error, "expected the call to fail with a DeepSeekError").toBeInstanceOf(DeepSeekError);
  return error as DeepSeekError;
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected the call to fail"),
    (error: unknown) => error,
  );
}

// ── streaming ───────────────────────────────────────────────────────────────────────────────────

/** The SSE chunk DeepSeek sends for one StreamChunk (usage rides on a `choices: []` chunk). */
export function wireChunkOf(chunk: StreamChunk): Record<string, unknown> {
  const envelope = {
    id: "8f0d6f3c-5a51-4a8e-9d0b-2f6c1f7d2a10",
    object: "chat.completion.chunk",
    created: 1787650000,
    model: "deepseek-flash",
  };
  const choice = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
    ...envelope,
    choices: [{ index: 0, delta, finish_reason }],
  });
  switch (chunk.kind) {
    case "reasoning":
      return choice({ content: null, reasoning_content: chunk.text });
    case "text":
      return choice({ content: chunk.text, reasoning_content: null });
    case "tool_call": {
      const { index, id, name, arguments: args } = chunk;
      const fn = name === undefined ? { arguments: args } : { name, arguments: args };
      return choice({ tool_calls: [{ index, ...(id === undefined ? {} : { id, type: "function" }), function: fn }] });
    }
    case "finish":
      return choice({}, chunk.reason);
    case "usage":
      return { ...envelope, choices: [], usage: chunk.usage };
    case "error":
      return { error: { message: chunk.message, type: "server_error", param: null, code: null } };
  }
}

/** An SSE body: each object a `data:` event, each string written as is (say, ": keep-alive\n\n"). */
export function sseText(events: readonly (Record<string, unknown> | string)[], done = true): string {
  const lines = events.map((event) => (typeof event === "string" ? event : `data: ${JSON.stringify(event)}\n\n`));
  return lines.join("") + (done ? "data: [DONE]\n\n" : "");
}

export interface SseOptions {
  /** Where to cut the body's bytes into pieces: each piece is one read on the client's side. */
  readonly cuts?: readonly number[];
  /** After the last piece, fail the connection instead of closing it. */
  readonly drop?: boolean;
  /** Before each piece after the first, wait for this (a test holds the stream open with it). */
  readonly before?: (piece: number) => Promise<void>;
}

/** A text/event-stream response sending `text`'s UTF-8 bytes in pieces (stack.md trap 15). */
export function sseResponse(text: string, { cuts = [], drop = false, before }: SseOptions = {}): HttpResponse<ReadableStream> {
  const bytes = new TextEncoder().encode(text);
  const at = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  let piece = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (piece > 0) await before?.(piece);
        const start = at[piece];
        const end = at[piece + 1];
        if (start === undefined || end === undefined) {
          if (drop) controller.error(new Error("socket hang up"));
          else controller.close();
          return;
        }
        controller.enqueue(bytes.slice(start, end));
        piece++;
      },
      // Pulled only when read: an error then never discards a piece the client has not read yet.
    },
    { highWaterMark: 0 },
  );
  return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
}

/** Answers every chat request with `respond`'s SSE response and keeps each request's body. */
export function captureStream(server: SetupServer, respond: () => Response, url = URL_DEFAULT) {
  const seen: Record<string, unknown>[] = [];
  server.use(
    http.post(url, async ({ request }) => {
      seen.push((await request.json()) as Record<string, unknown>);
      return respond();
    }),
  );
  return seen;
}
