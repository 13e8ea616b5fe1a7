// Decoy for step 05.7: the ReplayError's event index is reported as the line number. Events count
// from 0 and lines from 1, so the message points at the line before the broken one.
import { readFileSync } from "node:fs";
import { LogFileError, type LoadedLog, type ReadOptions } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import { ReplayError } from "../../../chapters/05-session-log/session-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  try {
    return answer.parseLogText(input, options);
  } catch (error) {
    if (!(error instanceof LogFileError) || !(error.cause instanceof ReplayError)) throw error;
    // DECOY: index, not index + 1.
    throw new LogFileError("REPLAY", error.source, error.cause.index, error.cause.message, { cause: error.cause });
  }
}

export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return parseLogText(readFileSync(file), { source: file, ...options });
}
