// What KeyScrubber holds back, piece by piece: only what the key (or a mask) could still become. The
// joined text is checked elsewhere (key-scrubber.test.ts); here each push's own output is the rule, since
// a streamed reply shows it at once: held back too much, the learner sees the reply late; too little, the
// key's start is shown.
import { describe, expect, test } from "vitest";
import { KeyScrubber, scrubKey } from "./text.ts";

/** A long key: from 16 characters on, its first 8 ("sk-01234") are a secret of their own. */
const longKey = "sk-0123456789abcdef0123";
/** A short key (8 to 15 characters): only the whole of it is a secret. */
const shortKey = "abcd1234";

describe("KeyScrubber: what each push passes on at once", () => {
  test("a whole key at the end of a piece is settled: passed on as [redacted] at once, not held", () => {
    expect(new KeyScrubber(shortKey).push("hi abcd1234")).toBe("hi [redacted]");
  });

  test("a whole key at the start is passed on scrubbed even when a new start of it follows", () => {
    const scrubber = new KeyScrubber(shortKey);
    expect(scrubber.push("abcd1234abc")).toBe("[redacted]");
    expect(scrubber.end()).toBe("abc");
  });

  test("a key whose end is also its start (abc12abc), cut at the very start of the text, is held whole: no start of it comes out", () => {
    const scrubber = new KeyScrubber("abc12abc");
    expect(scrubber.push("abc12abc12")).toBe("");
    expect(scrubber.end()).toBe("[redacted]12");
  });

  test("a key followed by stars that may yet be a mask is held back whole, then scrubbed", () => {
    const scrubber = new KeyScrubber(longKey);
    expect(scrubber.push(`${longKey}**`)).toBe("");
    expect(scrubber.end()).toBe(scrubKey(`${longKey}**`, longKey));
  });

  test("a word holding a long key's first 8 characters is held, the words before it are passed on", () => {
    const scrubber = new KeyScrubber(longKey);
    expect(scrubber.push("hello sk-01234xyz")).toBe("hello ");
    expect(scrubber.end()).toBe("[redacted]");
  });

  test("only the last word can still grow: a long key's first 8 characters in an earlier word do not hold back the words after it", () => {
    expect(new KeyScrubber(longKey).push("sk-01234xyz hello")).toBe("[redacted] hello");
  });

  test("a short key's first 8 characters are no secret of their own: a word holding them, but not the whole key, is passed on", () => {
    expect(new KeyScrubber("abcdefghij").push("x abcdefghzz")).toBe("x abcdefghzz");
  });

  test("a key shorter than 8 characters is no real key: nothing is held back for it, not even for an empty key", () => {
    expect(new KeyScrubber("abc").push("xxab")).toBe("xxab");
    expect(new KeyScrubber("").push("hello world")).toBe("hello world");
  });
});

describe("scrubKey: the key is found as written, whatever its characters", () => {
  test("a long key whose first 8 characters are special in a regular expression (. + $) is found by them literally", () => {
    const key = "ab.cd+e$0123456789";
    expect(scrubKey("echo: ab.cd+e$99", key)).toBe("echo: [redacted]");
    expect(scrubKey("echo: abXcdde", key)).toBe("echo: abXcdde");
  });
});
