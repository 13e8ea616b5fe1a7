// Text fit to print: clip's boundary, and scrubKey's rules for what counts as (part of) the key.
import { describe, expect, test } from "vitest";
import { clip, KEY_PREFIX_FROM, scrubKey, SHORTEST_KEY } from "./text.ts";

describe("clip", () => {
  test("a text of exactly max characters is kept whole; one more and it is cut to max, ending in …", () => {
    expect(clip("abcde", 5)).toBe("abcde");
    expect(clip("abcdef", 5)).toBe("abcd…");
    expect(clip("abcdef", 5)).toHaveLength(5);
  });
});

describe("scrubKey", () => {
  const key = "sk-0123456789abcdef0123"; // 23 characters

  test("the whole key is replaced by [redacted] wherever it appears", () => {
    expect(scrubKey(`sent ${key}, echoed ${key}`, key)).toBe("sent [redacted], echoed [redacted]");
  });

  test(`a key of ${SHORTEST_KEY} characters is scrubbed; one shorter is no real key, and scrubbing it would blank ordinary words`, () => {
    expect(SHORTEST_KEY).toBe(8);
    expect(scrubKey("the key abcdefgh was sent", "abcdefgh")).toBe("the key [redacted] was sent");
    expect(scrubKey("the key abcdefg was sent", "abcdefg")).toBe("the key abcdefg was sent");
    expect(scrubKey("Offline replay", "e")).toBe("Offline replay");
  });

  test(`from ${KEY_PREFIX_FROM} characters on, the key's first 8 characters and what follows them are scrubbed too`, () => {
    expect(KEY_PREFIX_FROM).toBe(16);
    const sixteen = "sk-abcde12345678";
    const fifteen = "sk-abcde1234567";
    expect(scrubKey("seen sk-abcde-other", sixteen)).toBe("seen [redacted]");
    expect(scrubKey("seen sk-abcde-other", fifteen), "a 15-character key's start is left alone").toBe("seen sk-abcde-other");
  });

  test("an echo masked with three or more * is replaced by ****, whatever key was sent", () => {
    expect(scrubKey("Your api key: ****wxyz is invalid", key)).toBe("Your api key: **** is invalid");
    expect(scrubKey("provided: sk-ab*************wxyz.", key)).toBe("provided: ****.");
    expect(scrubKey("**bold** stays", key), "two stars are markdown, not a mask").toBe("**bold** stays");
  });
});
