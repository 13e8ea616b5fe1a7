// DeepSeekClient against DeepSeek's wire format, through MSW at the HTTP layer: the real openai SDK
// builds and parses every body here.
import { delay, http, HttpResponse, type JsonBodyType } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import {
  DeepSeekClient,
  DeepSeekConfigError,
  DeepSeekError,
  MissingApiKeyError,
  publicURL,
  type ChatRequest,
} from "./deepseek.ts";

const KEY = "sk-test-0123456789abcdef0123456789abcdef";
const URL_DEFAULT = "https://api.deepseek.com/chat/completions";

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
// The developer's own DEEPSEEK_* settings must not leak into these tests.
beforeEach(() => {
  for (const name of ["DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "DEEPSEEK_MODEL", "DEEPSEEK_TIMEOUT_MS"]) vi.stubEnv(name, "");
});
afterEach(() => {
  server.resetHandlers();
  vi.unstubAllEnvs();
});
afterAll(() => server.close());

/** A DeepSeek reply carrying `message`, in the documented non-streaming shape. */
function completion(message: Record<string, unknown>, finish_reason = "stop") {
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
function capture(reply: JsonBodyType, url = URL_DEFAULT) {
  const seen: { body: Record<string, unknown>; headers: Headers }[] = [];
  server.use(
    http.post(url, async ({ request }) => {
      seen.push({ body: (await request.json()) as Record<string, unknown>, headers: request.headers });
      return HttpResponse.json(reply);
    }),
  );
  return seen;
}

function failWith(status: number, body: JsonBodyType) {
  server.use(http.post(URL_DEFAULT, () => HttpResponse.json(body, { status })));
}

const calculatorSpec = {
  name: "calculator",
  description: "Evaluate an arithmetic expression",
  parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
};

const roundTrip: ChatRequest = {
  system: "You are a helpful assistant.",
  tools: [calculatorSpec],
  messages: [
    { role: "user", content: "1+2*3 等于几？" },
    {
      role: "assistant",
      content: "",
      reasoning_content: "Use the calculator.",
      tool_calls: [{ id: "call_00_abc", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
    },
    { role: "tool", content: "7", tool_call_id: "call_00_abc" },
  ],
};

const ask = (client: DeepSeekClient) => client.chat({ system: "s", tools: [], messages: [] });

/** The message of the DeepSeekError that `promise` rejects with (and a failed test if it is not one). */
async function deepSeekError(promise: Promise<unknown>): Promise<DeepSeekError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(DeepSeekError);
  return error as DeepSeekError;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected the call to fail"),
    (error: unknown) => error,
  );
}

describe("request wire format", () => {
  test("the system prompt goes first, then each message in DeepSeek's wire format", async () => {
    const seen = capture(completion({ content: "7", reasoning_content: "done" }));
    await new DeepSeekClient({ apiKey: KEY }).chat(roundTrip);
    expect(seen[0]?.body).toEqual({
      model: "deepseek-flash",
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "1+2*3 等于几？" },
        {
          role: "assistant",
          content: "",
          reasoning_content: "Use the calculator.",
          tool_calls: [
            { id: "call_00_abc", type: "function", function: { name: "calculator", arguments: '{"expression":"1+2*3"}' } },
          ],
        },
        { role: "tool", content: "7", tool_call_id: "call_00_abc" },
      ],
      tools: [{ type: "function", function: calculatorSpec }],
    });
  });

  test("the key travels only as a Bearer token in the Authorization header", async () => {
    const seen = capture(completion({ content: "hi" }));
    await new DeepSeekClient({ apiKey: KEY }).chat({ system: "s", tools: [], messages: [] });
    expect(seen[0]?.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(seen[0]?.body)).not.toContain(KEY);
  });

  test("tools and an assistant's empty tool_calls are left out rather than sent empty", async () => {
    const seen = capture(completion({ content: "hi" }));
    await new DeepSeekClient({ apiKey: KEY }).chat({
      system: "s",
      tools: [],
      messages: [{ role: "assistant", content: "earlier answer", reasoning_content: "r", tool_calls: [] }],
    });
    expect(seen[0]?.body).not.toHaveProperty("tools");
    expect(seen[0]?.body.messages).toEqual([
      { role: "system", content: "s" },
      { role: "assistant", content: "earlier answer", reasoning_content: "r" },
    ]);
  });

  test('a tool-call turn without reasoning sends reasoning_content "" (thinking mode requires the field)', async () => {
    const seen = capture(completion({ content: "7" }));
    const call = { id: "call_00_x", name: "calculator", arguments: "{}" };
    await new DeepSeekClient({ apiKey: KEY }).chat({
      system: "s",
      tools: [],
      messages: [
        { role: "assistant", content: "", reasoning_content: null, tool_calls: [call] },
        { role: "assistant", content: "", tool_calls: [call] },
        { role: "assistant", content: "no calls, no reasoning", tool_calls: [] },
      ],
    });
    const messages = seen[0]?.body.messages as Record<string, unknown>[];
    expect(messages[1]?.reasoning_content).toBe("");
    expect(messages[2]?.reasoning_content).toBe("");
    expect(messages[3]).not.toHaveProperty("reasoning_content");
  });
});

describe("reply", () => {
  test("becomes an AssistantMessage with content, reasoning_content and tool_calls", async () => {
    capture(
      completion(
        {
          content: "",
          reasoning_content: "用户问 1+2*3，用计算器。",
          tool_calls: [
            { index: 0, id: "call_00_abc", type: "function", function: { name: "calculator", arguments: '{"expression":"1+2*3"}' } },
          ],
        },
        "tool_calls",
      ),
    );
    const reply = await new DeepSeekClient({ apiKey: KEY }).chat(roundTrip);
    expect(reply).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: "用户问 1+2*3，用计算器。",
      tool_calls: [{ id: "call_00_abc", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
    });
  });

  test("reasoning_content received is sent back unchanged in the next request", async () => {
    const reasoning = "先乘后加：2*3=6，1+6=7。\n用计算器确认。";
    capture(completion({ content: "", reasoning_content: reasoning, tool_calls: [
      { index: 0, id: "call_00_r", type: "function", function: { name: "calculator", arguments: "{}" } },
    ] }, "tool_calls"));
    const client = new DeepSeekClient({ apiKey: KEY });
    const first = await client.chat({ system: "s", tools: [], messages: [{ role: "user", content: "q" }] });
    server.resetHandlers();
    const seen = capture(completion({ content: "7" }));
    await client.chat({ system: "s", tools: [], messages: [first, { role: "tool", content: "7", tool_call_id: "call_00_r" }] });
    const messages = seen[0]?.body.messages as Record<string, unknown>[];
    expect(messages[1]?.reasoning_content).toBe(reasoning);
  });

  test("a reply without reasoning_content has reasoning_content null", async () => {
    capture(completion({ content: "hello" }));
    const reply = await new DeepSeekClient({ apiKey: KEY }).chat({ system: "s", tools: [], messages: [] });
    expect(reply).toEqual({ role: "assistant", content: "hello", reasoning_content: null, tool_calls: [] });
  });

  test("a reply with no choices is a DeepSeekError of kind empty_reply", async () => {
    capture({ ...completion({ content: "x" }), choices: [] });
    const error = await rejection(new DeepSeekClient({ apiKey: KEY }).chat({ system: "s", tools: [], messages: [] }));
    expect(error).toBeInstanceOf(DeepSeekError);
    expect(error).toMatchObject({ kind: "empty_reply", message: expect.stringContaining("no choices") });
  });

  test.each([
    ["content null", { content: null }],
    ['content null and reasoning_content "" (the projection would drop it)', { content: null, reasoning_content: "" }],
  ])("a message with no content, reasoning or tool call is a DeepSeekError of kind empty_reply: %s", async (_, message) => {
    capture(completion(message));
    const error = await rejection(new DeepSeekClient({ apiKey: KEY }).chat({ system: "s", tools: [], messages: [] }));
    expect(error).toMatchObject({ name: "DeepSeekError", kind: "empty_reply" });
  });
});

describe("a malformed 200 reply is a DeepSeekError of kind bad_reply naming the field", () => {
  const call = { index: 0, id: "call_00_abc", type: "function", function: { name: "calculator", arguments: "{}" } };
  const withCall = (broken: Record<string, unknown>) => completion({ content: "", tool_calls: [broken] }, "tool_calls");
  const { function: _function, ...noFunction } = call;
  const { id: _id, ...noId } = call;
  const { type: _type, ...noType } = call;

  test.each([
    ["message is null", { ...completion({}), choices: [{ index: 0, message: null, finish_reason: "stop" }] }, "choices[0].message should be an object, but is null"],
    ["a tool call without function", withCall(noFunction), "choices[0].message.tool_calls[0].function should be an object with name and arguments, but is missing"],
    ["a tool call without id", withCall(noId), "choices[0].message.tool_calls[0].id should be a string, but is missing"],
    ["a tool call without type", withCall(noType), 'choices[0].message.tool_calls[0].type should be "function", but is missing'],
    ["reasoning_content that is not text", completion({ content: "7", reasoning_content: 42 }), "choices[0].message.reasoning_content should be a string or null, but is a number"],
    ["a tool call whose arguments are an object", withCall({ ...call, function: { name: "calculator", arguments: {} } }), "choices[0].message.tool_calls[0].function.arguments should be a string (JSON text), but is an object"],
  ])("%s", async (_, reply, said) => {
    capture(reply);
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY })));
    expect(error.kind).toBe("bad_reply");
    expect(error.message).toBe(`DeepSeek's reply is malformed: ${said}`);
  });

  test("a 200 that is not a completion at all (a proxy's login page) is bad_reply, not empty_reply", async () => {
    const page = "<html><body>Please log in to the Wi-Fi</body></html>";
    server.use(http.post(URL_DEFAULT, () => new HttpResponse(page, { status: 200, headers: { "content-type": "text/html" } })));
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY })));
    expect(error.kind).toBe("bad_reply");
    expect(error.message).toContain("the response should be a JSON object, but is \"<html><body>Please log in");
  });

  test("choices that are not an array is bad_reply naming choices", async () => {
    capture({ ...completion({ content: "x" }), choices: { 0: {} } });
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY })));
    expect(error).toMatchObject({ kind: "bad_reply", message: expect.stringContaining("choices should be an array, but is an object") });
  });

  test("a bad_reply that quotes the key is scrubbed like every other error", async () => {
    capture(completion({ content: "", tool_calls: KEY }, "tool_calls"));
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY })));
    expect(error.kind).toBe("bad_reply");
    expect(error.message).not.toContain(KEY.slice(0, 8));
  });

  test("a tool call of another type is an error, not dropped (the model would wait for its result forever)", async () => {
    capture(withCall({ ...call, type: "code_interpreter" }));
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY })));
    expect(error).toMatchObject({ kind: "bad_reply", message: expect.stringContaining('tool_calls[0].type should be "function", but is "code_interpreter"') });
  });
});

describe("configuration", () => {
  test("without a key, construction fails with MissingApiKeyError naming the variable and the offline command", () => {
    expect(() => new DeepSeekClient()).toThrow(MissingApiKeyError);
    expect(() => new DeepSeekClient()).toThrow(/DEEPSEEK_API_KEY.*npm run demo -- --offline/s);
  });

  test("key, base URL and model come from DEEPSEEK_API_KEY, DEEPSEEK_BASE_URL and DEEPSEEK_MODEL", async () => {
    vi.stubEnv("DEEPSEEK_API_KEY", KEY);
    vi.stubEnv("DEEPSEEK_BASE_URL", "https://proxy.example.test/v1");
    vi.stubEnv("DEEPSEEK_MODEL", "deepseek-v4-pro");
    const seen = capture(completion({ content: "ok" }), "https://proxy.example.test/v1/chat/completions");
    const client = new DeepSeekClient();
    await client.chat({ system: "s", tools: [], messages: [] });
    expect(client.model).toBe("deepseek-v4-pro");
    expect(seen[0]?.body.model).toBe("deepseek-v4-pro");
    expect(seen[0]?.headers.get("authorization")).toBe(`Bearer ${KEY}`);
  });

  test("without env overrides the base URL is https://api.deepseek.com and the model deepseek-flash", () => {
    const client = new DeepSeekClient({ apiKey: KEY });
    expect(client.baseURL).toBe("https://api.deepseek.com");
    expect(client.model).toBe("deepseek-flash");
  });

  test("a blank key (spaces, a line break) is MissingApiKeyError, from the option or DEEPSEEK_API_KEY", () => {
    expect(() => new DeepSeekClient({ apiKey: "   " })).toThrow(MissingApiKeyError);
    vi.stubEnv("DEEPSEEK_API_KEY", " \r\n");
    expect(() => new DeepSeekClient()).toThrow(MissingApiKeyError);
  });

  test("a key with a space inside is DeepSeekConfigError naming DEEPSEEK_API_KEY, and the key is not shown", () => {
    const build = () => new DeepSeekClient({ apiKey: "sk-pasted 0123456789abcdef" });
    expect(build).toThrow(DeepSeekConfigError);
    expect(build).toThrow(/^DEEPSEEK_API_KEY has a space, line break or other character no API key contains \(at position 10\)/);
    expect(build).not.toThrow(/pasted|0123/);
  });

  test("DEEPSEEK_BASE_URL and DEEPSEEK_MODEL are trimmed (a value read from a file often ends in \\r\\n)", async () => {
    vi.stubEnv("DEEPSEEK_API_KEY", KEY);
    vi.stubEnv("DEEPSEEK_BASE_URL", " https://proxy.example.test/v1\r\n");
    vi.stubEnv("DEEPSEEK_MODEL", " deepseek-v4-pro\n");
    const seen = capture(completion({ content: "ok" }), "https://proxy.example.test/v1/chat/completions");
    const client = new DeepSeekClient();
    await ask(client);
    expect(client.baseURL).toBe("https://proxy.example.test/v1");
    expect(seen[0]?.body.model).toBe("deepseek-v4-pro");
  });

  test.each([
    ["user:password@", "https://learner:pa55word@proxy.example.test/v1", "has user:password@ in it; fetch refuses"],
    ["a user name alone", "https://learner@proxy.example.test/v1", "has user:password@ in it; fetch refuses"],
    ["a query string", "https://proxy.example.test/v1?api_key=sk-in-the-query", "has a query string or #fragment; the SDK appends /chat/completions"],
    ["a bare ?", "https://proxy.example.test/v1?", "has a query string or #fragment"],
    ["a #fragment", "https://proxy.example.test/v1#sk-in-the-hash", "has a query string or #fragment"],
  ])("a base URL with %s is DeepSeekConfigError naming DEEPSEEK_BASE_URL, shown without its secrets", (_, baseURL, why) => {
    const build = () => new DeepSeekClient({ apiKey: KEY, baseURL });
    expect(build).toThrow(DeepSeekConfigError);
    expect(build).toThrow(`DEEPSEEK_BASE_URL (https://proxy.example.test/v1) ${why}`);
    expect(build).not.toThrow(/learner|pa55word|sk-in-the/);
  });

  test.each([
    ["not a URL", "sk-pasted-here-by-mistake", "DEEPSEEK_BASE_URL is not a valid URL; it should look like https://api.deepseek.com"],
    ["another protocol", "ftp://proxy.example.test/v1", "DEEPSEEK_BASE_URL (ftp://proxy.example.test/v1) must start with http:// or https://"],
  ])("a base URL that is %s is DeepSeekConfigError", (_, baseURL, said) => {
    expect(() => new DeepSeekClient({ apiKey: KEY, baseURL })).toThrow(new DeepSeekConfigError(said));
  });

  test("a timeout that is not a whole number of milliseconds above 0 is DeepSeekConfigError", () => {
    for (const timeout of [0, -1, 1.5, Number.NaN]) {
      expect(() => new DeepSeekClient({ apiKey: KEY, timeout }), String(timeout)).toThrow(DeepSeekConfigError);
    }
  });

  test("a client built before the mock server listens is still intercepted (fetch looked up per call)", async () => {
    server.close();
    const client = new DeepSeekClient({ apiKey: KEY });
    server.listen({ onUnhandledRequest: "error" });
    capture(completion({ content: "intercepted" }));
    expect((await client.chat({ system: "s", tools: [], messages: [] })).content).toBe("intercepted");
  });
});

describe("timeout", () => {
  test("a server that accepts and never answers is kind timeout (not network), naming the limit", async () => {
    server.use(http.post(URL_DEFAULT, async () => {
      await delay("infinite");
      return HttpResponse.json({});
    }));
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY, timeout: 50, maxRetries: 0 })));
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe("no answer from DeepSeek at https://api.deepseek.com within 50 ms (1 try)");
  });
});

describe("errors never reveal the key", () => {
  test("401 is kind authentication; DeepSeek's masked echo (****cdef) and a full key echoed back are both scrubbed", async () => {
    failWith(401, {
      error: {
        message: `Authentication Fails, Your api key: ****cdef is invalid (sent ${KEY})`,
        type: "authentication_error",
        param: null,
        code: "invalid_request_error",
      },
    });
    const error = await rejection(new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }).chat({ system: "s", tools: [], messages: [] }));
    expect(error).toBeInstanceOf(DeepSeekError);
    expect(error).toMatchObject({ kind: "authentication", status: 401 });
    const { message, stack } = error as DeepSeekError;
    expect(message).toBe("DeepSeek API error 401 (authentication_error): Authentication Fails, Your api key: **** is invalid (sent [redacted])");
    expect(`${message}${stack}`).not.toContain(KEY);
    expect(`${message}${stack}`, "not even the last four characters").not.toContain(KEY.slice(-4));
    expect(error).not.toHaveProperty("cause");
  });

  test.each([
    ["DeepSeek's form", "Your api key: ****wxyz is invalid", "Your api key: **** is invalid"],
    ["a prefix and a suffix kept", "Incorrect API key provided: sk-ab*************wxyz.", "Incorrect API key provided: ****."],
    ["in quotes", 'key "****wxyz" refused', 'key "****" refused'],
  ])("a masked key in any error body is replaced by **** (%s)", async (_, said, shown) => {
    failWith(401, { error: { message: said, type: "authentication_error", param: null, code: null } });
    const error = await rejection(new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }).chat({ system: "s", tools: [], messages: [] }));
    expect((error as Error).message).toBe(`DeepSeek API error 401 (authentication_error): ${shown}`);
  });

  test("402 is kind insufficient_balance", async () => {
    failWith(402, { error: { message: "Insufficient Balance", type: "unknown_error", param: null, code: "invalid_request_error" } });
    const error = await rejection(new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }).chat({ system: "s", tools: [], messages: [] }));
    expect(error).toMatchObject({ kind: "insufficient_balance", status: 402, message: "DeepSeek API error 402 (unknown_error): Insufficient Balance" });
  });

  test.each([
    ["a trailing \\r", `${KEY}\r`],
    ["spaces around it", ` ${KEY} `],
  ])("a key read with %s is trimmed, so a 401 echoing the key the server got is scrubbed", async (_, raw) => {
    vi.stubEnv("DEEPSEEK_API_KEY", raw);
    // fetch trims header values: this server sees, and echoes, the trimmed key.
    server.use(http.post(URL_DEFAULT, ({ request }) => {
      const sent = request.headers.get("authorization")?.replace(/^Bearer /, "");
      const error = { message: `Authentication Fails, your api key ${sent} is invalid`, type: "authentication_error", param: null, code: null };
      return HttpResponse.json({ error }, { status: 401 });
    }));
    const error = await deepSeekError(ask(new DeepSeekClient({ maxRetries: 0 })));
    expect(error.message).toBe("DeepSeek API error 401 (authentication_error): Authentication Fails, your api key [redacted] is invalid");
    expect(`${error.message}${error.stack}`).not.toContain(KEY);
  });

  test("the key's first 8 characters and what follows them are scrubbed wherever they appear (keys of 16+ characters)", async () => {
    failWith(401, { error: { message: `key ${KEY.slice(0, 14)}… is invalid`, type: "authentication_error", param: null, code: null } });
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY, maxRetries: 0 })));
    expect(error.message).toBe("DeepSeek API error 401 (authentication_error): key [redacted]… is invalid");
    expect(error.message).not.toContain(KEY.slice(0, 8));
  });

  test("a non-JSON error body (a proxy's HTML page) is flattened and cut to about 160 characters", async () => {
    const page = `<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n${"<p>upstream unavailable</p>\n".repeat(30)}</body>\n</html>\n`;
    expect(page.length).toBeGreaterThan(800);
    server.use(http.post(URL_DEFAULT, () => new HttpResponse(page, { status: 502, headers: { "content-type": "text/html" } })));
    const error = await deepSeekError(ask(new DeepSeekClient({ apiKey: KEY, maxRetries: 0 })));
    expect(error).toMatchObject({ kind: "server", status: 502 });
    const said = error.message.replace("DeepSeek API error 502: ", "");
    expect(said).toMatch(/^non-JSON body: <html> <head><title>502 Bad Gateway<\/title><\/head> <body> <p>upstream/);
    expect(said, "cut, and marked as cut").toMatch(/…$/);
    expect(said.length - "non-JSON body: ".length).toBe(160);
    expect(said).not.toContain("\n");
  });

  test("a connection failure is kind network and names the base URL, not the key", async () => {
    server.use(http.post(URL_DEFAULT, () => HttpResponse.error()));
    const error = await rejection(new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }).chat({ system: "s", tools: [], messages: [] }));
    expect(error).toMatchObject({ kind: "network", message: expect.stringContaining("could not reach DeepSeek at https://api.deepseek.com") });
    expect((error as Error).message).not.toContain(KEY);
  });
});

describe("publicURL: a base URL fit to print or save", () => {
  test.each([
    ["https://api.deepseek.com", "https://api.deepseek.com"],
    ["https://api.deepseek.com/", "https://api.deepseek.com/"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["https://proxy.example.test/v1", "https://proxy.example.test/v1"],
    ["https://user:secret@proxy.example.test/v1", "https://proxy.example.test/v1"],
    ["https://token@proxy.example.test", "https://proxy.example.test"],
    ["https://proxy.example.test/v1?api_key=sk-secret&x=1", "https://proxy.example.test/v1"],
    ["https://user:secret@proxy.example.test/?api_key=sk-secret#frag", "https://proxy.example.test"],
  ])("%s → %s", (url, shown) => {
    expect(publicURL(url)).toBe(shown);
  });

  test("a string that is not a URL is not echoed (it might be a mistyped secret)", () => {
    expect(publicURL("sk-pasted-here-by-mistake")).toBe("(not a valid URL)");
  });
});
