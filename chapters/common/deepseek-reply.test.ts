// A 200 is not yet a message: each field the loop relies on is checked, and a reply that does not
// fit is a DeepSeekError naming the field (bad_reply), or saying there was nothing in it (empty_reply).
import { http, HttpResponse } from "msw";
import { describe, expect, test } from "vitest";
import { DeepSeekClient, DeepSeekError } from "./deepseek.ts";
import { rejectedAs } from "../../exercises/05-session-log/thrown.ts";
import { ask, capture, completion, KEY, mockDeepSeek, URL_DEFAULT } from "./deepseek-mock.ts";

const server = mockDeepSeek();
const client = () => new DeepSeekClient({ apiKey: KEY });

describe("a reply with nothing in it is a DeepSeekError of kind empty_reply", () => {
  test("no choices", async () => {
    capture(server, { ...completion({ content: "x" }), choices: [] });
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({ kind: "empty_reply", message: expect.stringContaining("no choices") });
  });

  test.each([
    ["content null", { content: null }],
    ["content missing", {}],
    ['content null and reasoning_content "" (the projection would drop it)', { content: null, reasoning_content: "" }],
  ])("a message with no content, reasoning or tool call: %s", async (_, message) => {
    capture(server, completion(message));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({ kind: "empty_reply", message: expect.stringContaining("empty message") });
  });
});

describe("a malformed 200 reply is a DeepSeekError of kind bad_reply naming the field", () => {
  const call = { index: 0, id: "call_00_abc", type: "function", function: { name: "calculator", arguments: "{}" } };
  const withCall = (broken: unknown) => completion({ content: "", tool_calls: [broken] }, "tool_calls");
  const withChoice = (choice: unknown) => ({ ...completion({}), choices: [choice] });
  const { function: _function, ...noFunction } = call;
  const { id: _id, ...noId } = call;
  const { type: _type, ...noType } = call;

  test.each([
    ["choices that are not an array", { ...completion({}), choices: { 0: {} } }, "choices should be an array, but is an object"],
    ["a choice that is not an object", withChoice("stop"), 'choices[0] should be an object, but is "stop"'],
    ["a message that is null", withChoice({ index: 0, message: null }), "choices[0].message should be an object, but is null"],
    ["content that is not text", completion({ content: 42 }), "choices[0].message.content should be a string or null, but is a number"],
    [
      "content that is an array of parts",
      completion({ content: [{ type: "text", text: "7" }] }),
      "choices[0].message.content should be a string or null, but is an array",
    ],
    [
      "reasoning_content that is not text",
      completion({ content: "7", reasoning_content: 42 }),
      "choices[0].message.reasoning_content should be a string or null, but is a number",
    ],
    [
      "tool_calls that are not an array",
      completion({ content: "", tool_calls: { 0: call } }),
      "choices[0].message.tool_calls should be an array, but is an object",
    ],
    [
      "a tool call that is not an object",
      withCall("calculator"),
      'choices[0].message.tool_calls[0] should be an object, but is "calculator"',
    ],
    ["a tool call without id", withCall(noId), "choices[0].message.tool_calls[0].id should be a string, but is missing"],
    ["a tool call without type", withCall(noType), 'choices[0].message.tool_calls[0].type should be "function", but is missing'],
    [
      "a tool call without function",
      withCall(noFunction),
      "choices[0].message.tool_calls[0].function should be an object with name and arguments, but is missing",
    ],
    [
      "a function name that is not text",
      withCall({ ...call, function: { name: 7, arguments: "{}" } }),
      "choices[0].message.tool_calls[0].function.name should be a string, but is a number",
    ],
    [
      "arguments that are an object, not JSON text",
      withCall({ ...call, function: { name: "calculator", arguments: {} } }),
      "choices[0].message.tool_calls[0].function.arguments should be a string (JSON text), but is an object",
    ],
  ])("%s", async (_, reply, said) => {
    capture(server, reply);
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.kind).toBe("bad_reply");
    expect(error.message).toBe(`DeepSeek's reply is malformed: ${said}`);
  });

  test("the second tool call is checked as well as the first, and named by its index", async () => {
    capture(server, completion({ content: "", tool_calls: [call, { ...call, id: 3 }] }, "tool_calls"));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.message).toContain("choices[0].message.tool_calls[1].id should be a string, but is a number");
  });

  test("a tool call of another type is an error, not dropped (the model would wait for its result forever)", async () => {
    capture(server, withCall({ ...call, type: "code_interpreter" }));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({
      kind: "bad_reply",
      message: expect.stringContaining('tool_calls[0].type should be "function", but is "code_interpreter"'),
    });
  });

  test("a text found in place of a field is quoted cut to 40 characters, so the message stays one short line", async () => {
    capture(server, withChoice("x".repeat(100)));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.message).toBe(`DeepSeek's reply is malformed: choices[0] should be an object, but is "${"x".repeat(39)}…"`);
  });

  test("a 200 that is not a completion at all (a proxy's login page) is bad_reply, not empty_reply", async () => {
    const page = "<html><body>Please log in to the Wi-Fi</body></html>";
    server.use(http.post(URL_DEFAULT, () => new HttpResponse(page, { status: 200, headers: { "content-type": "text/html" } })));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.kind).toBe("bad_reply");
    expect(error.message).toContain('the response should be a JSON object, but is "<html><body>Please log in');
  });

  test("a 200 whose JSON body is cut off is bad_reply saying the response is not valid JSON", async () => {
    const cut = JSON.stringify(completion({ content: "7" })).slice(0, 60);
    server.use(http.post(URL_DEFAULT, () => new HttpResponse(cut, { status: 200, headers: { "content-type": "application/json" } })));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({
      kind: "bad_reply",
      message: expect.stringContaining("the response is not valid JSON"),
    });
  });

  test("a bad_reply that quotes the key is scrubbed like every other error", async () => {
    capture(server, completion({ content: "", tool_calls: KEY }, "tool_calls"));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.kind).toBe("bad_reply");
    expect(error.message).toContain('tool_calls should be an array, but is "[redacted]');
    expect(error.message).not.toContain(KEY.slice(0, 8));
  });
});

describe("a reply that echoes the key", () => {
  test("every string of the message, whatever its field, comes back without it", async () => {
    const echo = `Bearer ${KEY}`;
    const call = { id: `call_${KEY}`, type: "function", function: { name: `calc ${echo}`, arguments: `{"sent":"${echo}"}` } };
    capture(server, completion({ content: echo, reasoning_content: echo, tool_calls: [call] }, "tool_calls"));
    const reply = await ask(client());
    expect(JSON.stringify(reply)).not.toContain(KEY.slice(0, 8));
    expect(reply).toEqual({
      role: "assistant",
      content: "Bearer [redacted]",
      reasoning_content: "Bearer [redacted]",
      tool_calls: [{ id: "call_[redacted]", name: "calc Bearer [redacted]", arguments: '{"sent":"Bearer [redacted]"}' }],
    });
  });
});
