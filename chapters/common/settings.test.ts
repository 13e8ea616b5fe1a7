// The DeepSeek settings: read from the environment handed over, trimmed, checked, and explained in
// Chinese with the English beside it, never showing a secret.
import { describe, expect, test } from "vitest";
import { thrownAs } from "../../exercises/05-session-log/thrown.ts";
import { DeepSeekConfigError, hasApiKey, MissingApiKeyError, publicURL, readSettings, THINKING_TIMEOUT_MS } from "./settings.ts";

const KEY = "sk-test-0123456789abcdef0123456789abcdef";

/** The DeepSeekConfigError that reading `env` throws (and a failed test if it throws none). */
function refusal(env: Record<string, string>): DeepSeekConfigError {
  return thrownAs(
    DeepSeekConfigError,
    () => readSettings(env),
    `${JSON.stringify(env)} 应当被拒绝 / ${JSON.stringify(env)} must be refused`,
  );
}

describe("reading", () => {
  test("with nothing set: no key, https://api.deepseek.com, deepseek-flash, and the thinking-mode timeout", () => {
    expect(readSettings({})).toEqual({
      apiKey: undefined,
      baseURL: "https://api.deepseek.com",
      model: "deepseek-flash",
      timeoutMs: THINKING_TIMEOUT_MS,
    });
  });

  test("every value is trimmed (a value read from a file often ends in \\r\\n)", () => {
    const env = {
      DEEPSEEK_API_KEY: ` ${KEY}\r\n`,
      DEEPSEEK_BASE_URL: " https://proxy.example.test/v1\r\n",
      DEEPSEEK_MODEL: " deepseek-v4-pro\n",
      DEEPSEEK_TIMEOUT_MS: " 5000\r\n",
    };
    expect(readSettings(env)).toEqual({
      apiKey: KEY,
      baseURL: "https://proxy.example.test/v1",
      model: "deepseek-v4-pro",
      timeoutMs: 5000,
    });
  });

  test("a blank value (spaces, a line break) counts as not set", () => {
    const blank = { DEEPSEEK_API_KEY: " \r\n", DEEPSEEK_BASE_URL: " ", DEEPSEEK_MODEL: "\t", DEEPSEEK_TIMEOUT_MS: "" };
    expect(readSettings(blank)).toEqual(readSettings({}));
    expect(hasApiKey(blank)).toBe(false);
    expect(hasApiKey({ DEEPSEEK_API_KEY: KEY })).toBe(true);
  });

  test("a value given in code wins over its variable, and is trimmed and checked the same way", () => {
    const env = { DEEPSEEK_API_KEY: "sk-from-env-0000", DEEPSEEK_MODEL: "from-env", DEEPSEEK_TIMEOUT_MS: "not read" };
    expect(readSettings(env, { apiKey: ` ${KEY} `, model: "deepseek-v4-pro", timeoutMs: 50 })).toMatchObject({
      apiKey: KEY,
      model: "deepseek-v4-pro",
      timeoutMs: 50,
    });
    expect(() => readSettings({}, { baseURL: "ftp://proxy.example.test" })).toThrow(DeepSeekConfigError);
  });
});

describe("the key", () => {
  test("a key with a space inside is refused naming DEEPSEEK_API_KEY and the position, and the key is not shown", () => {
    const error = refusal({ DEEPSEEK_API_KEY: "sk-pasted 0123456789abcdef" });
    expect(error.setting).toBe("DEEPSEEK_API_KEY");
    expect(error.message).toMatch(/^DEEPSEEK_API_KEY has a space, line break or other character no API key contains \(at position 10\)/);
    expect(error.zh).toContain("DEEPSEEK_API_KEY 的第 10 个字符");
    expect(`${error.message}${error.zh}`).not.toMatch(/pasted|0123/);
  });

  test("a missing key is MissingApiKeyError, a DeepSeekConfigError, explained in both languages", () => {
    const error = new MissingApiKeyError();
    expect(error).toBeInstanceOf(DeepSeekConfigError);
    expect(error).toMatchObject({ name: "MissingApiKeyError", setting: "DEEPSEEK_API_KEY" });
    expect(error.zh).toMatch(/^没有设置 DEEPSEEK_API_KEY/);
    expect(error.message).toMatch(/^DEEPSEEK_API_KEY is not set/);
  });
});

describe("the base URL", () => {
  test.each([
    ["user:password@", "https://learner:pa55word@proxy.example.test/v1", "has user:password@ in it; fetch refuses"],
    ["a user name alone", "https://learner@proxy.example.test/v1", "has user:password@ in it; fetch refuses"],
    [
      "a query string",
      "https://proxy.example.test/v1?api_key=sk-in-the-query",
      "has a query string or #fragment; the SDK appends /chat/completions",
    ],
    ["a bare ?", "https://proxy.example.test/v1?", "has a query string or #fragment"],
    ["a #fragment", "https://proxy.example.test/v1#sk-in-the-hash", "has a query string or #fragment"],
  ])("with %s is refused naming DEEPSEEK_BASE_URL, shown without its secrets", (_, url, why) => {
    const error = refusal({ DEEPSEEK_BASE_URL: url });
    expect(error.setting).toBe("DEEPSEEK_BASE_URL");
    expect(error.message).toContain(`DEEPSEEK_BASE_URL (https://proxy.example.test/v1) ${why}`);
    expect(error.zh).toContain("DEEPSEEK_BASE_URL 的值 https://proxy.example.test/v1 ");
    expect(`${error.message}${error.zh}`).not.toMatch(/learner|pa55word|sk-in-the/);
  });

  test.each([
    [
      "not a URL (and not echoed: it may be a secret in the wrong variable)",
      "sk-pasted-here-by-mistake",
      "DEEPSEEK_BASE_URL is not a valid URL; it should look like https://api.deepseek.com",
    ],
    [
      "another protocol",
      "ftp://proxy.example.test/v1",
      "DEEPSEEK_BASE_URL (ftp://proxy.example.test/v1) must start with http:// or https://",
    ],
  ])("that is %s is refused", (_, url, said) => {
    const error = refusal({ DEEPSEEK_BASE_URL: url });
    expect(error.message).toBe(said);
    expect(error.zh).not.toContain("sk-pasted");
  });
});

describe("the timeout", () => {
  test.each(["2m", "0x10", "1e3", "1.5", "-5", "0", "2147483648"])(
    "DEEPSEEK_TIMEOUT_MS=%j is refused: digits only, from 1 to 2147483647 (setTimeout's limit), value not echoed",
    (text) => {
      const error = refusal({ DEEPSEEK_TIMEOUT_MS: text });
      expect(error.setting).toBe("DEEPSEEK_TIMEOUT_MS");
      expect(error.message).toBe(
        "DEEPSEEK_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647 (about 24 days), digits only, such as 120000",
      );
    },
  );

  test("the limits themselves are accepted: 1 and 2147483647", () => {
    expect(readSettings({ DEEPSEEK_TIMEOUT_MS: "1" }).timeoutMs).toBe(1);
    expect(readSettings({ DEEPSEEK_TIMEOUT_MS: "2147483647" }).timeoutMs).toBe(2147483647);
  });

  test("a timeout given in code follows the same rule", () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => readSettings({}, { timeoutMs }), String(timeoutMs)).toThrow(DeepSeekConfigError);
    }
  });
});

describe("explanations", () => {
  const refused = [
    refusal({ DEEPSEEK_API_KEY: "sk a" }),
    refusal({ DEEPSEEK_BASE_URL: "nope" }),
    refusal({ DEEPSEEK_BASE_URL: "ftp://x.test" }),
    refusal({ DEEPSEEK_BASE_URL: "https://u:p@x.test" }),
    refusal({ DEEPSEEK_BASE_URL: "https://x.test?q" }),
    refusal({ DEEPSEEK_TIMEOUT_MS: "soon" }),
    new MissingApiKeyError(),
  ];

  test.each(refused.map((error) => [error.message, error]))("in Chinese, naming the same variable as the English: %s", (_, error) => {
    expect(error.zh).toMatch(/[\u4e00-\u9fff]/);
    expect(error.zh).toContain(error.setting);
  });

  test.each(refused.map((error) => [error.message, error]))("no command or URL is followed by Chinese punctuation: %s", (_, error) => {
    // Copied with the character after it, `--offline。` is not `--offline`.
    expect(error.zh).not.toMatch(/(npm run [\w -]*|https?:\/\/\S*?)[。，；：）」]/);
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
