// Text fit to print: clip's boundary, visible's classes of characters, and scrubKey's rules for what counts as (part of) the key.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { clip, holdsKey, KEY_PREFIX_FROM, scrubKey, SHORTEST_KEY, visible } from "./text.ts";

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

describe("holdsKey", () => {
  const key = "sk-0123456789abcdef0123";
  test("finds the whole key or a long key's first 8 characters, and not a mask that any key's echo would leave", () => {
    expect(holdsKey(`x ${key} y`, key)).toBe(true);
    expect(holdsKey("starts sk-01234…", key)).toBe(true);
    expect(holdsKey("Your api key: ****0000 is invalid", key)).toBe(false);
    expect(holdsKey("sk-other-key and 0123 alone", key)).toBe(false);
  });
});

describe("visible", () => {
  // The classes a terminal obeys or hides, each named by its own ranges (not by visible's regex).
  const classes: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
    "C0 control": [[0x00, 0x1f]],
    DEL: [[0x7f, 0x7f]],
    "C1 control": [[0x80, 0x9f]],
    "bidi override or isolate": [
      [0x202a, 0x202e],
      [0x2066, 0x2069],
    ],
    "invisible format character": [
      [0x00ad, 0x00ad],
      [0x061c, 0x061c],
      [0x200b, 0x200f],
      [0x2060, 0x2064],
      [0xfeff, 0xfeff],
      [0xfff9, 0xfffb],
      [0xe0000, 0xe007f],
    ],
    "line or paragraph separator": [[0x2028, 0x2029]],
  };
  const hidden = Object.values(classes).flat();
  const isHidden = (code: number) => hidden.some(([from, to]) => code >= from && code <= to);
  const printable = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }), // ASCII, the backslash included
    fc.integer({ min: 0x4e00, max: 0x9fff }), // CJK ideographs
    fc.integer({ min: 0x3000, max: 0x303f }), // CJK punctuation
    fc.integer({ min: 0xff01, max: 0xff5e }), // full-width forms
    fc.integer({ min: 0x1f300, max: 0x1faff }), // emoji
    fc.integer({ min: 0xa0, max: 0xff }).filter((code) => code !== 0xad),
  );
  const fromRanges = (ranges: readonly (readonly [number, number])[]) => fc.oneof(...ranges.map(([min, max]) => fc.integer({ min, max })));
  /** How an escape is written: a name for \\n \\r \\t, else the code in hex, as JavaScript writes it. */
  const escapeOf = (code: number) => {
    const named = new Map([
      [0x09, "\\t"],
      [0x0a, "\\n"],
      [0x0d, "\\r"],
    ]);
    const hex = code.toString(16);
    return named.get(code) ?? (code <= 0xff ? `\\x${hex.padStart(2, "0")}` : code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`);
  };
  const text = (codes: fc.Arbitrary<number>) => fc.array(codes, { maxLength: 40 }).map((list) => String.fromCodePoint(...list));

  for (const [name, ranges] of Object.entries(classes)) {
    test(`every ${name} is written out as an escape, and the text around it is kept`, () => {
      fc.assert(
        fc.property(text(printable), fromRanges(ranges), text(printable), (before, code, after) => {
          const shown = visible(`${before}${String.fromCodePoint(code)}${after}`);
          expect(shown.startsWith(before) && shown.endsWith(after), "the printable text around it stays as it was").toBe(true);
          expect(shown.slice(before.length, shown.length - after.length)).toBe(escapeOf(code));
        }),
        { numRuns: 100 },
      );
    });
  }

  test("no character a terminal obeys or hides survives, whatever mix of classes and printable text comes in", () => {
    fc.assert(
      fc.property(text(fc.oneof(printable, fromRanges(hidden))), (input) => {
        const codes = [...visible(input)].map((char) => char.codePointAt(0) ?? 0);
        expect(codes.filter(isHidden).map((code) => code.toString(16))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  test("printable text, Chinese, emoji and backslashes included, comes out exactly as it went in", () => {
    fc.assert(
      fc.property(text(printable), (input) => {
        expect(visible(input)).toBe(input);
      }),
      { numRuns: 150 },
    );
  });

  test("visible twice is visible once, so a line made visible by two print sites reads the same", () => {
    fc.assert(
      fc.property(text(fc.oneof(printable, fromRanges(hidden))), fc.boolean(), (input, lines) => {
        const once = visible(input, { lines });
        expect(visible(once, { lines })).toBe(once);
      }),
      { numRuns: 100 },
    );
  });

  test("a surrogate without its pair is shown as its code, a pair (an emoji) is kept", () => {
    expect(visible("a\ud800b\udc00c")).toBe("a\\ud800b\\udc00c");
    expect(visible("\ud83d\ude00")).toBe("😀");
  });

  test("the escape sequences seen in hostile logs print as text: title change, line erase, OSC 52 clipboard, 8-bit CSI", () => {
    expect(visible("\x1b]0;pwned\x07")).toBe("\\x1b]0;pwned\\x07");
    expect(visible("\r\x1b[2K结构检查: ok")).toBe("\\r\\x1b[2K结构检查: ok");
    expect(visible("\x1b]52;c;cm0gLXJmIH4=\x1b\\")).toBe("\\x1b]52;c;cm0gLXJmIH4=\\x1b\\");
    expect(visible("\x9b2J")).toBe("\\x9b2J");
    expect(visible("abc\u202edcba")).toBe("abc\\u202edcba");
  });

  test("with lines: true a line break and a tab are kept, but a carriage return is still shown", () => {
    expect(visible("one\ntwo\tthree", { lines: true })).toBe("one\ntwo\tthree");
    expect(visible("one\ntwo\tthree")).toBe("one\\ntwo\\tthree");
    expect(visible("fake\r\nline", { lines: true })).toBe("fake\\r\nline");
  });
});
