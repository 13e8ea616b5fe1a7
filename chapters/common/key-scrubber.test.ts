// KeyScrubber: scrubKey for a streamed text, which arrives in pieces cut anywhere. Ordinary text is passed
// on at once; the key, or a ****-masked echo of it, is still found however it is cut.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { KeyScrubber, scrubKey } from "./text.ts";

describe("KeyScrubber: scrubKey for a text that arrives in pieces", () => {
  /**
   * A key like DeepSeek's (letters, digits, "-"), and a text made of it, pieces of it, masked echoes of it,
   * Markdown and words. Each piece with a star begins a word of its own: a word glued in front of a mask is
   * the one case where the pieces may differ from the whole (the test after). The cuts still fall anywhere.
   */
  const keyAndText = fc.stringMatching(/^sk-[A-Za-z0-9]{5,30}$/).chain((key) =>
    fc.tuple(
      fc.constant(key),
      fc
        .array(
          fc.oneof(
            fc.constant(key),
            fc.integer({ min: 1, max: key.length }).map((end) => key.slice(0, end)),
            fc.integer({ min: 0, max: key.length - 1 }).map((start) => key.slice(start)),
            fc.constantFrom(`****${key.slice(-4)}`, `${key.slice(0, 5)}****${key.slice(-4)}`, "***", "**", "**bold**", "2*3"),
            fc.constantFrom("Bearer ", " ", "。", "计算", "word", "-", "_", "\n"),
          ),
          { maxLength: 12 },
        )
        .map((parts) => parts.map((part) => (part.includes("*") ? ` ${part}` : part)).join("")),
    ),
  );
  /** The text cut into pieces at the given places. */
  const cut = (text: string, places: number[]) => {
    const at = [...new Set(places.map((place) => place % (text.length + 1)))].sort((a, b) => a - b);
    return [0, ...at].map((start, index) => text.slice(start, at[index] ?? text.length));
  };
  const scrubPieces = (key: string, pieces: readonly string[]) => {
    const scrubber = new KeyScrubber(key);
    return [...pieces.map((piece) => scrubber.push(piece)), scrubber.end()];
  };
  const key = "sk-0123456789abcdef0123";

  test("however the text is cut, the pieces passed on join into exactly scrubKey of the whole", () => {
    fc.assert(
      fc.property(keyAndText, fc.array(fc.nat(), { maxLength: 8 }), ([key, text], places) => {
        expect(scrubPieces(key, cut(text, places)).join("")).toBe(scrubKey(text, key));
      }),
      { numRuns: 300 },
    );
  });

  test("the one difference from the whole: a word passed on before stars glued to it arrived, which is not the start of the key", () => {
    expect(scrubPieces(key, ["word", "****0123"]).join("")).toBe("word****");
    expect(scrubKey("word****0123", key)).toBe("****");
    // The start of the key is held back, so the mask takes it as the whole would.
    expect(scrubPieces(key, ["see sk-01", "****0123"]).join("")).toBe("see ****");
  });

  test("a masked echo cut anywhere never comes out: not its last characters, not stars that join into a mask later", () => {
    for (const pieces of [
      ["key: **", "**0123 ok"],
      ["key: ****01", "23 ok"],
      ["key: *", "*", "*", "*0", "123", " ok"],
    ]) {
      expect(scrubPieces(key, pieces).join(""), pieces.join(" | ")).toBe("key: **** ok");
    }
  });

  test("a key cut into one-character pieces never comes out, whole or as its first 8 characters", () => {
    const out = scrubPieces(key, [..."key: Bearer ", ...key, ..." ok"]);
    expect(out.join("")).toBe("key: Bearer [redacted] ok");
    expect(out.some((piece) => piece.includes(key.slice(0, 8)))).toBe(false);
  });

  test("a whole key at the end of a piece is never cut, even one that ends with its own start (s…s)", () => {
    const key = "sk-0aaas";
    expect(scrubPieces(key, ["sent sk-0aaas"]).join("")).toBe("sent [redacted]");
    expect(scrubPieces(key, ["sent sk-0aaask-0a", "aas."]).join("")).toBe(scrubKey("sent sk-0aaask-0aaas.", key));
  });

  test("a key with other characters (a dot) is still found whole across pieces", () => {
    const key = "sk.abcdefgh.1234";
    expect(scrubPieces(key, ["sent sk.abcd", "efgh.12", "34 back"]).join("")).toBe("sent [redacted] back");
  });

  test("ordinary text, words included, is passed on at once; only an end that may begin the key is held back", () => {
    const scrubber = new KeyScrubber(key);
    expect(scrubber.push("计算结果是 7。")).toBe("计算结果是 7。");
    expect(scrubber.push("the answer is 7")).toBe("the answer is 7");
    expect(scrubber.push(" as s")).toBe(" as ");
    expect(scrubber.end()).toBe("s");
  });

  test("Markdown comes out whole: bold's closing stars are held back one piece, 2*3 not at all", () => {
    const scrubber = new KeyScrubber(key);
    expect(scrubber.push("1+2*3 结果是 **7")).toBe("1+2*3 结果是 **7");
    expect(scrubber.push("**")).toBe("");
    expect(scrubber.push("。**bold**")).toBe("**。**");
    expect(scrubber.push(" text")).toBe("bold** text");
    expect(scrubber.end()).toBe("");
  });
});
