// Text fit to print: cut to one short line, with its control characters shown instead of obeyed,
// and with no part of the API key left in it.

/** Cuts `text` to at most `max` characters, the last one an ellipsis when something was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// ── visible: text from a log, a model or a file can say anything, but it cannot drive the terminal ──

/**
 * What a terminal obeys or hides instead of showing: C0 controls (ESC starts every escape sequence:
 * colours, cursor moves, line erases, title changes, OSC 52 clipboard writes), DEL, C1 controls (U+009B
 * is a one-character CSI), format characters (bidi overrides and isolates U+202A–202E and U+2066–2069,
 * zero-width spaces and joiners, the BOM, tag characters), the line and paragraph separators, and a
 * surrogate left without its pair: Unicode's categories Cc, Cf, Zl, Zp and Cs. The tag block is named
 * whole, as its unassigned code points hide text just as well as its assigned ones.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u{e0000}-\u{e007f}]/gu;
const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export interface VisibleOptions {
  /**
   * Keep line breaks ("\n") and tabs as they are, for text printed over several lines (③'s message
   * bodies, a test's failure). "\r" is shown even then: alone it moves back over the line to write on it.
   */
  readonly lines?: boolean;
}

/**
 * The text with every character of HIDDEN written out as an escape (`\x1b`, `\u202e`, `\u{e0041}`,
 * `\n`), so that it is seen, not obeyed: an escape sequence in a log prints as text and does nothing.
 * Everything else, Chinese and emoji included, is left as it is (an emoji joined with U+200D shows
 * its joiners). A backslash already in the text is
 * not doubled: the point is what the terminal does, and paths would become hard to read.
 */
export function visible(text: string, options: VisibleOptions = {}): string {
  return text.replace(HIDDEN, (char) => {
    if (options.lines === true && (char === "\n" || char === "\t")) return char;
    return NAMED[char] ?? escapeCodePoint(char.codePointAt(0) ?? 0);
  });
}

function escapeCodePoint(code: number): string {
  const hex = code.toString(16);
  // Stryker disable next-line EqualityOperator: U+00FF (ÿ) is never hidden, so < and <= escape the same characters
  if (code <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  // Stryker disable next-line EqualityOperator: U+FFFF (a noncharacter, Cn) is never hidden, so < and <= escape the same characters
  return code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`;
}

// ── scrubKey: no part of the API key in anything printed or written ───────────────────────────────

/** Shorter than this, a "key" is no real API key, and taking it out would blank ordinary words. */
export const SHORTEST_KEY = 8;
/** From this length on, a key's first 8 characters say enough about it to be a secret themselves. */
export const KEY_PREFIX_FROM = 16;

/**
 * A key as an API echoes it back masked: DeepSeek's 401 says `****abcd` (the last four characters),
 * others `sk-ab****wxyz`. Even those few characters are part of the key, so they are scrubbed too.
 */
const MASKED_KEY = /[\w-]*\*{3,}[\w-]*/g;

/**
 * Takes the key out of a text that may hold it: the whole key, an echo masked with `*`, and (for a
 * key long enough that its start says something about it) its first 8 characters and what follows.
 * Pass the key as it was sent (trimmed), so that an echo of it is found.
 */
export function scrubKey(text: string, key: string): string {
  // Stryker disable next-line StringLiteral: one text, so join never writes its separator
  return scrubKeyAcross([text], key).join("");
}

/**
 * scrubKey for texts read one after another as one text: the strings of a stream in the order they
 * arrived, whatever field each came in (a reply's text, a tool call's id, a name in usage). A key cut
 * across them is found, whole or as a long key's first 8 characters and what follows. Each text keeps
 * its place: what is taken out is replaced in the text where it begins, and a text it reaches into
 * loses its share. A masked echo (a few stars and the key's last characters) is looked for within each
 * text only: stars at the end of one field would otherwise take the next field's first word with them.
 */
export function scrubKeyAcross(texts: readonly string[], key: string): string[] {
  const whole = key.length >= SHORTEST_KEY ? replaceAcross(texts, new RegExp(escapeRegExp(key), "g"), "[redacted]") : texts;
  const unmasked = whole.map((text) => text.replace(MASKED_KEY, "****"));
  if (key.length < KEY_PREFIX_FROM) return unmasked;
  return replaceAcross(unmasked, new RegExp(`${escapeRegExp(key.slice(0, 8))}[\\w-]*`, "g"), "[redacted]");
}

/** `texts` joined, each match of `pattern` replaced by `by` in the text where it begins and cut out of any text after it that it reaches. */
function replaceAcross(texts: readonly string[], pattern: RegExp, by: string): string[] {
  const matches = [...texts.join("").matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
  let offset = 0;
  return texts.map((text) => {
    const here = offset;
    offset += text.length;
    let out = "";
    let kept = 0;
    for (const match of matches) {
      // The part of the match inside this text, in the text's own positions (it may begin before it).
      const from = Math.max(match.start - here, 0);
      const to = Math.min(match.end - here, text.length);
      if (from >= to) continue;
      out += text.slice(kept, from) + (match.start >= here ? by : "");
      kept = to;
    }
    return out + text.slice(kept);
  });
}

/**
 * `value` (JSON: a reply, a chunk) with scrubKey applied to every string in it, at any depth, the names
 * of its fields too. A server decides what it sends back; scrubbing every string, not field by field,
 * means a field nobody thought of (usage, a finish reason, one added next year) cannot carry the key.
 */
export function scrubEveryString<T>(value: T, key: string): T {
  return mapStrings(value, (text) => scrubKey(text, key));
}

/** `value` (JSON) with `change` applied to every string in it, names of fields too, in the order they are written. */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  return mapEach(value, change) as T;
}

function mapEach(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => mapEach(item, change));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [change(name), mapEach(item, change)]));
}

/** Whether `text` holds the key as scrubKey finds it (whole, or a long key's first 8 characters), leaving masks aside. */
export function holdsKey(text: string, key: string): boolean {
  // Stryker disable next-line StringLiteral: "" takes out the masks only; another key gives the same unless it is in the text itself
  return scrubKey(text, key) !== scrubKey(text, "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * scrubKey for a text that arrives in pieces (a streamed reply, shown as it arrives): a key, or a
 * masked echo of it (`****abcd`), cut in two by the pieces is still found. Ordinary text is passed on
 * at once; only what scrubKey could still change as more arrives is held back until a later piece (or
 * `end`) settles it: an end that begins the key, stars that may be a mask (Markdown's closing `**` too,
 * for one piece), a long key's first 8 characters. Joined, what comes out is exactly scrubKey of the
 * whole text, with one exception that adds nothing of the key: a word passed on before the stars glued
 * to it arrived (`word` then `****abcd` gives `word****`; the whole gives `****`). The start of the key
 * is never such a word: it is held back.
 */
export class KeyScrubber {
  #held = "";
  constructor(private readonly key: string) {}

  /** What can be passed on now, scrubbed; possibly "" while what may be the key or a mask is still arriving. */
  push(piece: string): string {
    const text = this.#held + piece;
    const unsettled = Math.min(maskAtEnd(text), prefixWordAtEnd(text, this.key), keyStartAtEnd(text, this.key));
    const cut = outsideTheKey(text, unsettled, this.key);
    this.#held = text.slice(cut);
    return scrubKey(text.slice(0, cut), this.key);
  }

  /** The rest, scrubbed: call it once the text is complete (or has stopped arriving). */
  end(): string {
    const rest = this.#held;
    this.#held = "";
    return scrubKey(rest, this.key);
  }
}

/**
 * Whether what follows `text` could still make its end part of the key as scrubKeyAcross finds it: the
 * end begins the key, or its last word holds a long key's first 8 characters.
 */
export function keyMayContinue(text: string, key: string): boolean {
  return Math.min(prefixWordAtEnd(text, key), keyStartAtEnd(text, key)) < text.length;
}

/**
 * Where stars at the end of `text` start that may yet become a mask (`**` then `**abcd`), or a mask of
 * three or more stars whose last characters may still be arriving (`****ab` then `cd`), each with the
 * word glued in front of it, which the mask takes too (text.length when there are none).
 */
function maskAtEnd(text: string): number {
  const stars = /[\w-]*\*+[\w-]*$/.exec(text);
  return stars !== null && (stars[0].endsWith("*") || stars[0].includes("***")) ? stars.index : text.length;
}

/** Where the last word of `text` starts if it holds a long key's first 8 characters (text.length when not). */
function prefixWordAtEnd(text: string, key: string): number {
  const word = text.search(/[\w-]*$/);
  return key.length >= KEY_PREFIX_FROM && text.slice(word).includes(key.slice(0, 8)) ? word : text.length;
}

/**
 * `cut`, or the start of a whole key in `text` that it would cut through: a key whose end is also its
 * start (`s…s`) can leave a start of itself at the end of a whole one.
 */
function outsideTheKey(text: string, cut: number, key: string): number {
  const found = cut > 0 && key.length >= SHORTEST_KEY ? text.lastIndexOf(key, cut - 1) : -1;
  return found >= 0 && found + key.length > cut ? outsideTheKey(text, found, key) : cut;
}

/** Where the longest end of `text` that begins the key starts (text.length when none does). */
function keyStartAtEnd(text: string, key: string): number {
  if (key.length < SHORTEST_KEY) return text.length;
  // Stryker disable next-line EqualityOperator: start === text.length tests "", a start of every key, and returns text.length as after the loop
  for (let start = Math.max(0, text.length - key.length + 1); start < text.length; start++) {
    if (key.startsWith(text.slice(start))) return start;
  }
  return text.length;
}
