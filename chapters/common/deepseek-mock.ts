// For the client's tests: DeepSeek mocked at the HTTP layer with MSW (unhandled requests are errors,
// so nothing reaches the network), DeepSeek's reply shape, and helpers to catch what a call throws.
import { http, HttpResponse, type JsonBodyType } from "msw";
import { setupServer, type SetupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from "vitest";
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
