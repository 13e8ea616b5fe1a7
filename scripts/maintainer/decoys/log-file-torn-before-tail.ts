// Decoy for step 05.7: the reader takes an unterminated tail off first (torn by a crash), then reads
// the rest as if it were the whole file, where its own last line may be torn too. So a damaged line
// followed by nothing but such a tail is dropped as torn with it: two lines lost, the damage never
// reported. Only the file's very last line can be torn by a crash.
import type { LoadedLog, ReadOptions } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";
import { startsWithBom, startsWithBracket, UTF8_BOM } from "../../../chapters/05-session-log/disk/jsonl.ts";
import { readRegularFile } from "../../../chapters/05-session-log/disk/regular-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function parseLogText(input: string | Uint8Array, options: ReadOptions = {}): LoadedLog {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input);
  const end = bytes.lastIndexOf(0x0a) + 1; // just after the last newline
  const array = startsWithBracket(startsWithBom(bytes) ? bytes.subarray(UTF8_BOM.length) : bytes);
  if (array || end === 0 || end === bytes.length) return answer.parseLogText(bytes, options);
  const rest = answer.parseLogText(bytes.subarray(0, end), options); // DECOY: read as if the tail were not there
  if (rest.session.events.length === 0) return answer.parseLogText(bytes, options); // nothing read: as the answer says
  const line = bytes.subarray(0, end).filter((byte) => byte === 0x0a).length + 1;
  return { ...rest, torn: { line, reason: "unterminated", bytes: bytes.length - end } };
}

export function readLogFile(file: string, options: ReadOptions = {}): LoadedLog {
  return parseLogText(readRegularFile(file), { source: file, ...options });
}
