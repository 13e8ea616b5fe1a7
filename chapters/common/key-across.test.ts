// scrubKeyAcross: the strings of a stream, whatever field each came in, read in order as one text, so that
// a key cut across them is found; and keyMayContinue, which says when a stream must wait for its next
// string before it can tell. The stream's own tests (deepseek-stream-key.test.ts) run both through the SDK.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { KeyScrubber, keyMayContinue, scrubKey, scrubKeyAcross } from "./text.ts";

const key = "sk-0123456789abcdef0123";

describe("scrubKeyAcross: texts read one after another as one text", () => {
  test("a key cut across texts: [redacted] in the text where it begins, the rest cut out of each text it reaches, the texts around it kept", () => {
    expect(scrubKeyAcross(["id sk-01", "23456789ab", "cdef0123 name", "args"], key)).toEqual(["id [redacted]", "", " name", "args"]);
  });

  test("a text that ends just before the key, or begins just after it, keeps every character", () => {
    expect(scrubKeyAcross(["before ", key, " after"], key)).toEqual(["before ", "[redacted]", " after"]);
    expect(scrubKeyAcross(["a", `${key}`, "b"], key)).toEqual(["a", "[redacted]", "b"]);
  });

  test("an empty text inside a cut key stays empty: no [redacted] is put where nothing was taken", () => {
    expect(scrubKeyAcross(["x sk-0123", "", "456789abcdef0123 y"], key)).toEqual(["x [redacted]", "", " y"]);
  });

  test("two keys, each cut across texts, are each found where they begin", () => {
    const [head, tail] = [key.slice(0, 4), key.slice(4)];
    expect(scrubKeyAcross([`1 ${head}`, `${tail} 2 ${head}`, `${tail} 3`], key)).toEqual(["1 [redacted]", " 2 [redacted]", " 3"]);
  });

  test("a long key's first 8 characters cut across texts are found with the word they begin (an echo with a character changed)", () => {
    expect(scrubKeyAcross(["see sk-01", "234X6789abcdef", " ok"], key)).toEqual(["see [redacted]", "", " ok"]);
    expect(
      scrubKeyAcross(["see sk-01", "234X6789abcdef", " ok"], "sk-0123456789ab"),
      "a 15-character key's start alone is no secret",
    ).toEqual(["see sk-01", "234X6789abcdef", " ok"]);
  });

  test("a key shorter than 8 characters is no real key: texts that join into it are left alone", () => {
    expect(scrubKeyAcross(["abc", "defg"], "abcdefg")).toEqual(["abc", "defg"]);
    expect(scrubKeyAcross(["abcd", "efgh"], "abcdefgh")).toEqual(["[redacted]", ""]);
  });

  test("a masked echo is looked for within each text only: stars ending one field never take the next field's word", () => {
    expect(scrubKeyAcross(["Your key: ****0123 is invalid"], key)).toEqual(["Your key: **** is invalid"]);
    expect(scrubKeyAcross(["答案是 7***", "stop"], key)).toEqual(["答案是 ****", "stop"]);
  });

  test("however a text is cut into pieces, without stars the pieces join into exactly scrubKey of the whole, and a text without the key comes back as it was", () => {
    const pieces = fc.array(
      fc.oneof(
        fc.constant(key),
        fc.integer({ min: 1, max: key.length }).map((end) => key.slice(0, end)),
        fc.constantFrom(" ", "x", "sk-", "-", "计算", ""),
      ),
      { maxLength: 10 },
    );
    fc.assert(
      fc.property(pieces, fc.array(fc.nat(), { maxLength: 6 }), (parts, places) => {
        const text = parts.join("");
        const at = [...new Set(places.map((place) => place % (text.length + 1)))].sort((a, b) => a - b);
        const cut = [0, ...at].map((start, index) => text.slice(start, at[index] ?? text.length));
        const scrubbed = scrubKeyAcross(cut, key);
        expect(scrubbed).toHaveLength(cut.length);
        expect(scrubbed.join("")).toBe(scrubKey(text, key));
        if (scrubKey(text, key) === text) expect(scrubbed).toEqual(cut);
      }),
      { numRuns: 300 },
    );
  });
});

describe("keyMayContinue: whether the next string could still make the end of these part of the key", () => {
  test("an end that begins the key may continue, one character of it too", () => {
    expect(keyMayContinue("id s", key)).toBe(true);
    expect(keyMayContinue("id sk-0123456789", key)).toBe(true);
  });

  test("a last word holding a long key's first 8 characters may continue, even where it no longer begins the key", () => {
    expect(keyMayContinue("see sk-01234X", key)).toBe(true);
    expect(keyMayContinue("see sk-01234X", "sk-0123456789ab"), "a 15-character key's start alone is no secret").toBe(false);
    expect(keyMayContinue("sk-01234X then", key), "only the last word can still grow").toBe(false);
  });

  test(`a key of exactly 16 characters is long: a last word holding its first 8 characters may continue, in a stream and in one text alike`, () => {
    const sixteen = "sk-abcde-0123456";
    expect(keyMayContinue("see sk-abcde-X", sixteen)).toBe(true);
    const scrubber = new KeyScrubber(sixteen);
    expect(scrubber.push("see sk-abcde-X"), "held back: the word may still grow").toBe("see ");
    expect(scrubber.push("YZ ok")).toBe("[redacted] ok");
  });

  test("an ordinary end, a whole key at the end, stars, and a key shorter than 8 characters cannot continue into the key", () => {
    expect(keyMayContinue("答案是 7。", key)).toBe(false);
    expect(keyMayContinue(`echo ${key} `, key)).toBe(false);
    expect(keyMayContinue("key: ****", key), "a mask is looked for within one string only").toBe(false);
    expect(keyMayContinue("xxab", "abcdefg")).toBe(false);
    expect(keyMayContinue("", key)).toBe(false);
  });
});
