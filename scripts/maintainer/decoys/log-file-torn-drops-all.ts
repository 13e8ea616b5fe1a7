// Decoy for step 05.7: a torn last line makes the reader give up on the whole file. The crash cost
// one half-written event; this reader throws away every good event before it too.
import { readFileSync } from "node:fs";
import type { LoadedLog, ReadOptions } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";
import { Session } from "../../../chapters/05-session-log/session.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  const loaded = answer.parseLogText(input, options);
  // DECOY: "the file is damaged" — so nothing in it is kept.
  return loaded.torn === undefined ? loaded : { ...loaded, session: new Session() };
}

export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return parseLogText(readFileSync(file), { source: file, ...options });
}
