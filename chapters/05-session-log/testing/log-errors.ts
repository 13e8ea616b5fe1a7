// For the tests of explainLogFileError (disk/explain-log-file-*.test.ts): a log line written by hand, a
// file with a text, and what the demo says when an action throws a LogFileError, split into its halves.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { explainLogFileError } from "../disk/explain-log-file.ts";
import { LogFileError } from "../disk/log-file-types.ts";

/** One JSONL line of an event, written by hand. */
export const line = (id: number, type: string, data: object, ts: unknown = 1) => `${JSON.stringify({ id, type, ts, data })}\n`;

/** What the demo says, Chinese half and English half, when `action` throws a LogFileError. */
export function said(action: () => unknown, doing: readonly [string, string] = ["无法读入", "Cannot load"]): { zh: string; en: string } {
  try {
    action();
  } catch (error) {
    if (!(error instanceof LogFileError)) throw error;
    const [zh = "", en = ""] = explainLogFileError(error, doing).split(" / ");
    return { zh, en };
  }
  return expect.unreachable("nothing was thrown");
}

/** `text` written to `name` in `dir`; its path. */
export function file(dir: string, name: string, text: string): string {
  const made = path.join(dir, name);
  writeFileSync(made, text);
  return made;
}
