// What the learner commands remember between runs (hints seen, watch's last known states, --mine's
// verdicts) lives in small JSON files under .workbook/. Such a file is only a head start: a missing,
// unreadable or foreign one reads as nothing remembered, never as an error.
import { readFileSync } from "node:fs";

/** The JSON object in `file`, or {} when there is none to read. */
export function readStateFile(file: string): Readonly<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
