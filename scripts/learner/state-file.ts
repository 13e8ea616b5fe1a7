// What the learner commands remember between runs (hints seen, watch's last known states, --mine's
// verdicts) lives in small JSON files under .workbook/ (ignored by git; tests set WORKBOOK_STATE_DIR).
// Such a file is only a head start: a missing, unreadable or foreign one reads as nothing remembered,
// never as an error.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root } from "../../chapters/common/root.ts";

/** Where a learner command keeps the state file `name`. */
export function stateFile(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.WORKBOOK_STATE_DIR ?? path.join(root, ".workbook"), name);
}

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

export function writeStateFile(file: string, state: object): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}
