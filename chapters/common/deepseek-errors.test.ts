// Every failed call is a DeepSeekError whose kind says what to do (the demo explains each kind) and
// whose message never holds the key.
import { delay, http, HttpResponse } from "msw";
import { describe, expect, test, vi } from "vitest";
import { DeepSeekClient, DeepSeekError } from "./deepseek.ts";
import { ERROR_BODY_LENGTH } from "./deepseek-errors.ts";
import { rejectedAs } from "../../exercises/05-session-log/thrown.ts";
import { ask, KEY, mockDeepSeek, URL_DEFAULT } from "./deepseek-mock.ts";

const server = mockDeepSeek();
// The SDK cancels the body of a response it will retry, and cancelling a mocked body never settles
// (mswjs/interceptors#799): read every mocked body, so retries can run in these tests.
server.events.on("response:mocked", ({ response }) => void response.text().catch(() => {}));

const client = (maxRetries = 0) => new DeepSeekClient({ apiKey: KEY, maxRetries });

/** Answers every chat request with `status` and DeepSeek's error body; counts the requests. */
function failWith(status: number, message: string, type = "invalid_request_error") {
  const seen = { requests: 0 };
  // retry-after-ms keeps the SDK's retries quick.
  const headers = { "retry-after-ms": "1" };
  server.use(
    http.post(URL_DEFAULT, () => {
      seen.requests++;
      return HttpResponse.json({ error: { message, type, param: null, code: null } }, { status, headers });
    }),
  );
  return seen;
}

describe("an HTTP error status becomes the kind that says what to do", () => {
  test.each([
    [400, "bad_request", "Model Not Exist"],
    [401, "authentication", "Authentication Fails (no such user)"],
    [402, "insufficient_balance", "Insufficient Balance"],
    [404, "other", "Not Found"],
    [422, "bad_request", "Invalid parameters"],
    [500, "server", "Internal Server Error"],
    [503, "server", "Server overloaded"],
  ])("%i is kind %s, and the message keeps the status and what the body said", async (status, kind, said) => {
    failWith(status, said);
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({
      kind,
      status,
      message: `DeepSeek API error ${status} (invalid_request_error): ${said}`,
    });
  });

  test("429 is kind rate_limit only after the SDK's retries are used up (1 + maxRetries requests)", async () => {
    const seen = failWith(429, "Rate Limit Reached");
    const error = await rejectedAs(DeepSeekError, ask(client(1)));
    expect(error).toMatchObject({ kind: "rate_limit", status: 429 });
    expect(seen.requests, "one try and one retry").toBe(2);
  });

  test("a 503 is retried like a 429 before it becomes kind server", async () => {
    const seen = failWith(503, "Server overloaded");
    const error = await rejectedAs(DeepSeekError, ask(client(2)));
    expect(error).toMatchObject({ kind: "server", status: 503 });
    expect(seen.requests).toBe(3);
  });
});

describe("failures without an HTTP status", () => {
  test("a server that accepts and never answers is kind timeout (not network), naming the limit and the tries", async () => {
    server.use(
      http.post(URL_DEFAULT, async () => {
        await delay("infinite");
        return HttpResponse.json({});
      }),
    );
    const error = await rejectedAs(DeepSeekError, ask(new DeepSeekClient({ apiKey: KEY, timeoutMs: 50, maxRetries: 0 })));
    expect(error).toMatchObject({
      kind: "timeout",
      message: "no answer from DeepSeek at https://api.deepseek.com within 50 ms (1 try)",
    });
  });

  test("a connection failure is kind network and names the base URL, not the key", async () => {
    server.use(http.post(URL_DEFAULT, () => HttpResponse.error()));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({
      kind: "network",
      message: expect.stringContaining("could not reach DeepSeek at https://api.deepseek.com"),
    });
    expect(error.message).not.toContain(KEY);
  });

  test("anything else the SDK throws (here: the body breaking off mid-read) is kind other, its message scrubbed", async () => {
    const broken = new ReadableStream({
      start: (controller) => controller.error(new Error(`stream reset while sending ${KEY}`)),
    });
    server.use(http.post(URL_DEFAULT, () => new HttpResponse(broken, { status: 200, headers: { "content-type": "application/json" } })));
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({
      kind: "other",
      message: "DeepSeek call failed: stream reset while sending [redacted]",
    });
    expect(error.status).toBeUndefined();
  });
});

describe("errors never reveal the key", () => {
  test("401: DeepSeek's masked echo (****cdef) and a full key echoed back are both scrubbed; the SDK's error is not kept", async () => {
    failWith(401, `Authentication Fails, Your api key: ****cdef is invalid (sent ${KEY})`, "authentication_error");
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({ kind: "authentication", status: 401 });
    expect(error.message).toBe(
      "DeepSeek API error 401 (authentication_error): Authentication Fails, Your api key: **** is invalid (sent [redacted])",
    );
    expect(`${error.message}${error.stack}`).not.toContain(KEY);
    expect(`${error.message}${error.stack}`, "not even the last four characters").not.toContain(KEY.slice(-4));
    expect(error).not.toHaveProperty("cause");
  });

  test.each([
    ["DeepSeek's form", "Your api key: ****wxyz is invalid", "Your api key: **** is invalid"],
    ["a prefix and a suffix kept", "Incorrect API key provided: sk-ab*************wxyz.", "Incorrect API key provided: ****."],
    ["in quotes", 'key "****wxyz" refused', 'key "****" refused'],
  ])("a masked key in any error body is replaced by **** (%s)", async (_, said, shown) => {
    failWith(401, said, "authentication_error");
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.message).toBe(`DeepSeek API error 401 (authentication_error): ${shown}`);
  });

  test.each([
    ["a trailing \\r", `${KEY}\r`],
    ["spaces around it", ` ${KEY} `],
  ])("a key read with %s is trimmed, so a 401 echoing the key the server got is scrubbed", async (_, raw) => {
    vi.stubEnv("DEEPSEEK_API_KEY", raw);
    // fetch trims header values: this server sees, and echoes, the trimmed key.
    server.use(
      http.post(URL_DEFAULT, ({ request }) => {
        const sent = request.headers.get("authorization")?.replace(/^Bearer /, "");
        const error = {
          message: `Authentication Fails, your api key ${sent} is invalid`,
          type: "authentication_error",
          param: null,
          code: null,
        };
        return HttpResponse.json({ error }, { status: 401 });
      }),
    );
    const error = await rejectedAs(DeepSeekError, ask(new DeepSeekClient({ maxRetries: 0 })));
    expect(error.message).toBe("DeepSeek API error 401 (authentication_error): Authentication Fails, your api key [redacted] is invalid");
    expect(`${error.message}${error.stack}`).not.toContain(KEY);
  });

  test("the key's first 8 characters and what follows them are scrubbed wherever they appear", async () => {
    failWith(401, `key ${KEY.slice(0, 14)}… is invalid`, "authentication_error");
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error.message).toBe("DeepSeek API error 401 (authentication_error): key [redacted]… is invalid");
  });
});

describe("a non-JSON error body (a proxy's HTML page) is flattened onto one line and cut", () => {
  const failWithPage = (page: string) =>
    server.use(http.post(URL_DEFAULT, () => new HttpResponse(page, { status: 502, headers: { "content-type": "text/html" } })));
  const bodyOf = (message: string) => message.replace("DeepSeek API error 502: non-JSON body: ", "");

  test("line breaks and runs of spaces become one space", async () => {
    failWithPage("<html>\n<head><title>502 Bad Gateway</title></head>\n<body>  upstream unavailable</body>\n</html>\n");
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(error).toMatchObject({ kind: "server", status: 502 });
    expect(bodyOf(error.message)).toBe("<html> <head><title>502 Bad Gateway</title></head> <body> upstream unavailable</body> </html>");
  });

  test(`a body of exactly ${ERROR_BODY_LENGTH} characters is kept whole; one more and it is cut to ${ERROR_BODY_LENGTH}, ending in …`, async () => {
    expect(ERROR_BODY_LENGTH, "enough to recognise a proxy's page, short enough for one line").toBe(160);
    failWithPage("x".repeat(ERROR_BODY_LENGTH));
    expect(bodyOf((await rejectedAs(DeepSeekError, ask(client()))).message)).toBe("x".repeat(ERROR_BODY_LENGTH));
    failWithPage("y".repeat(ERROR_BODY_LENGTH + 1));
    expect(bodyOf((await rejectedAs(DeepSeekError, ask(client()))).message)).toBe(`${"y".repeat(ERROR_BODY_LENGTH - 1)}…`);
  });

  test("the body is scrubbed before it is cut, so a key across the cut leaves no part behind", async () => {
    failWithPage(`${"x".repeat(ERROR_BODY_LENGTH - 10)}${KEY}`);
    const error = await rejectedAs(DeepSeekError, ask(client()));
    expect(bodyOf(error.message)).toBe(`${"x".repeat(ERROR_BODY_LENGTH - 10)}[redacted]`);
  });
});
