// DeepSeekClient against DeepSeek's wire format, through MSW at the HTTP layer: the real openai SDK
// builds and parses every body here. Malformed replies: deepseek-reply.test.ts; failures and the key:
// deepseek-errors.test.ts; reading the settings: settings.test.ts.
import { describe, expect, test, vi } from "vitest";
import { DeepSeekClient, type ChatRequest } from "./deepseek.ts";
import { ask, capture, completion, KEY, mockDeepSeek } from "./deepseek-mock.ts";
import { DeepSeekConfigError, MissingApiKeyError } from "./settings.ts";

const server = mockDeepSeek();

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

describe("request wire format", () => {
  test("the system prompt goes first, then each message in DeepSeek's wire format", async () => {
    const seen = capture(server, completion({ content: "7", reasoning_content: "done" }));
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
            {
              id: "call_00_abc",
              type: "function",
              function: { name: "calculator", arguments: '{"expression":"1+2*3"}' },
            },
          ],
        },
        { role: "tool", content: "7", tool_call_id: "call_00_abc" },
      ],
      tools: [{ type: "function", function: calculatorSpec }],
    });
  });

  test("the key travels only as a Bearer token in the Authorization header", async () => {
    const seen = capture(server, completion({ content: "hi" }));
    await ask(new DeepSeekClient({ apiKey: KEY }));
    expect(seen[0]?.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(seen[0]?.body)).not.toContain(KEY);
  });

  test("tools and an assistant's empty tool_calls are left out rather than sent empty", async () => {
    const seen = capture(server, completion({ content: "hi" }));
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
    const seen = capture(server, completion({ content: "7" }));
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
    const toolCall = {
      index: 0,
      id: "call_00_abc",
      type: "function",
      function: { name: "calculator", arguments: '{"expression":"1+2*3"}' },
    };
    capture(server, completion({ content: "", reasoning_content: "用户问 1+2*3，用计算器。", tool_calls: [toolCall] }, "tool_calls"));
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
    const toolCall = { index: 0, id: "call_00_r", type: "function", function: { name: "calculator", arguments: "{}" } };
    capture(server, completion({ content: "", reasoning_content: reasoning, tool_calls: [toolCall] }, "tool_calls"));
    const client = new DeepSeekClient({ apiKey: KEY });
    const first = await client.chat({ system: "s", tools: [], messages: [{ role: "user", content: "q" }] });
    server.resetHandlers();
    const seen = capture(server, completion({ content: "7" }));
    await client.chat({
      system: "s",
      tools: [],
      messages: [first, { role: "tool", content: "7", tool_call_id: "call_00_r" }],
    });
    const messages = seen[0]?.body.messages as Record<string, unknown>[];
    expect(messages[1]?.reasoning_content).toBe(reasoning);
  });

  test("a reply without reasoning_content or tool_calls has reasoning_content null and no calls", async () => {
    capture(server, completion({ content: "hello" }));
    const reply = await ask(new DeepSeekClient({ apiKey: KEY }));
    expect(reply).toEqual({ role: "assistant", content: "hello", reasoning_content: null, tool_calls: [] });
  });
});

describe("settings, as the client reads them (the rules themselves: settings.test.ts)", () => {
  test("without a key, construction fails with MissingApiKeyError naming the variable and the offline command", () => {
    expect(() => new DeepSeekClient()).toThrow(MissingApiKeyError);
    expect(() => new DeepSeekClient()).toThrow(/DEEPSEEK_API_KEY.*npm run demo -- --offline/s);
  });

  test("key, base URL and model come from DEEPSEEK_API_KEY, DEEPSEEK_BASE_URL and DEEPSEEK_MODEL in process.env", async () => {
    vi.stubEnv("DEEPSEEK_API_KEY", ` ${KEY}\r\n`);
    vi.stubEnv("DEEPSEEK_BASE_URL", " https://proxy.example.test/v1\r\n");
    vi.stubEnv("DEEPSEEK_MODEL", "deepseek-v4-pro");
    const seen = capture(server, completion({ content: "ok" }), "https://proxy.example.test/v1/chat/completions");
    const client = new DeepSeekClient();
    await ask(client);
    expect(client).toMatchObject({ model: "deepseek-v4-pro", baseURL: "https://proxy.example.test/v1" });
    expect(seen[0]?.body.model).toBe("deepseek-v4-pro");
    expect(seen[0]?.headers.get("authorization"), "the trimmed key").toBe(`Bearer ${KEY}`);
  });

  test("the env option replaces process.env: a setting missing from it is not looked up anywhere else", () => {
    vi.stubEnv("DEEPSEEK_API_KEY", KEY);
    expect(() => new DeepSeekClient({ env: {} })).toThrow(MissingApiKeyError);
    const client = new DeepSeekClient({ env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_TIMEOUT_MS: "5000" } });
    expect(client.timeoutMs).toBe(5000);
  });

  test("a setting the rules refuse stops construction with DeepSeekConfigError, before anything is sent", () => {
    expect(() => new DeepSeekClient({ apiKey: KEY, baseURL: "ftp://proxy.example.test" })).toThrow(DeepSeekConfigError);
    expect(() => new DeepSeekClient({ apiKey: KEY, timeoutMs: 1.5 })).toThrow(DeepSeekConfigError);
  });

  test("a client built before the mock server listens is still intercepted (fetch looked up per call)", async () => {
    server.close();
    const client = new DeepSeekClient({ apiKey: KEY });
    server.listen({ onUnhandledRequest: "error" });
    capture(server, completion({ content: "intercepted" }));
    expect((await ask(client)).content).toBe("intercepted");
  });
});
