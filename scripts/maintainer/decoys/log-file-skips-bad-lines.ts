// Decoy for step 05.7: the reader skips every line that is not JSON, wherever it is, instead of
// allowing that only for the last line. A damaged file loads "fine", with events silently missing
// (or fails later with an id gap that no longer says which line was bad).
import { readFileSync } from "node:fs";
import type { LoadedLog, ReadOptions } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  const text = typeof input === "string" ? input : Buffer.from(input).toString("utf8");
  const lines = text.split("\n");
  const last = lines.length - 1;
  // DECOY: a bad line before the last is dropped like a torn one.
  const kept = lines.filter((line, index) => index >= last - 1 || parses(line));
  return answer.parseLogText(kept.join("\n"), options);
}

export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return parseLogText(readFileSync(file), { source: file, ...options });
}
