// The timeline page a run was asked for (`demo --html`, `view --out`): checked before the run, so an
// unwritable name wastes no run, and written after it, refused if the name now leads to a log (a link
// made during the run; output-file.ts) and said in one sentence when the system refuses.
import { cannotWrite, explainSystemError, isSystemError } from "../../common/system-errors.ts";
import type { SessionEvent } from "../events.ts";
import { largePageNote, writeTimelinePage, type PageOptions } from "../timeline/page.ts";
import { refuseOutput } from "./output-file.ts";

const WRITE_PAGE = ["无法写入时间线页面", "Cannot write the timeline page"] as const;

/** Why `file` cannot be written at all (a folder, no permission…), in one sentence; undefined when it can. */
export function cannotWritePage(file: string): string | undefined {
  return cannotWrite(file, WRITE_PAGE);
}

/** Writes the page: the path written, or the one sentence that says why not. `logs`: what the run reads or writes. */
export function writePage(
  events: readonly SessionEvent[],
  file: string,
  flag: "--html" | "--out",
  logs: readonly (string | undefined)[],
  options: PageOptions,
): { readonly written: string } | { readonly refused: string } {
  // Asked again right before writing: what the name leads to may have changed since (output-file.ts).
  const refused = refuseOutput(flag, file, logs);
  if (refused !== undefined) return { refused };
  try {
    return { written: writeTimelinePage(events, file, options) };
  } catch (error) {
    if (!isSystemError(error)) throw error;
    return { refused: explainSystemError(error, WRITE_PAGE, file) };
  }
}

/** The demo's page: written whether or not the run succeeded, and said below the run; false when it was not written. */
export function writeDemoPage(
  events: readonly SessionEvent[],
  file: string,
  logs: readonly (string | undefined)[],
  out: (line: string) => void,
): boolean {
  const page = writePage(events, file, "--html", logs, { source: "npm run demo" });
  if ("refused" in page) {
    out(`\n  ${page.refused}`);
    return false;
  }
  out(`\n  时间线页面 / timeline page: ${page.written}`);
  const large = largePageNote(events.length);
  if (large !== null) out(`  ${large}`);
  return true;
}
