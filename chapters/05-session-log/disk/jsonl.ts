// One event per line: how the log on disk (log-file.ts) turns an event into a line of bytes and a
// line of bytes back into a value, checking the UTF-8 strictly on the way in.
import type { SessionEvent } from "../events.ts";

/** Line n (from 1) is `JSON.stringify(event #n-1)` and "\n": stringify escapes every newline inside a string. */
export function lineOf(event: SessionEvent): Buffer {
  return Buffer.from(`${JSON.stringify(event)}\n`);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text, or undefined when they are not valid UTF-8 (a file cut inside a character). */
export function decode(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly why: string };

export function parseLine(bytes: Uint8Array): Parsed {
  const text = decode(bytes);
  if (text === undefined) return { ok: false, why: "the line is not valid UTF-8" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, why: `the line is not JSON (${(error as Error).message})` };
  }
}

/** Whether the first byte that is not white space is "[": a JSON array, not JSONL. */
export function startsWithBracket(bytes: Uint8Array): boolean {
  const first = bytes.findIndex((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d);
  return bytes[first] === 0x5b; // "[" (when every byte is white space, first is -1 and bytes[-1] is undefined)
}

/** The bytes some editors put before UTF-8 text (U+FEFF); not part of the log. */
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function startsWithBom(bytes: Uint8Array): boolean {
  return UTF8_BOM.equals(bytes.subarray(0, UTF8_BOM.length));
}

/** "UTF-16LE" or "UTF-16BE" when the bytes open with that byte order mark (what Windows tools often save). */
export function utf16Bom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "UTF-16LE";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "UTF-16BE";
  return undefined;
}
