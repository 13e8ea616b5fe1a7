// A throwaway copy of the workbook, as a learner's clone would be with every learner file its shipped
// stub: `npm run bench:watch` times the watch in one, and tests that need the real tools on a real
// learner file (the watch in tmux, `npm run reset`, progress) run them there, so the learner's own files
// in exercises/ are never touched. Every tool finds its files from its own place (chapters/common/root.ts),
// so a tool started from the copy works on the copy. node_modules is linked, not copied.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chapterDir, root, shippedStubsDir, steps, type Step } from "./steps.ts";

const copied = [
  "chapters",
  "exercises",
  "fixtures",
  "scripts",
  "solutions",
  "steps.toml",
  "package.json",
  "tsconfig.json",
  "vitest.config.ts",
];

export interface WorkbookCopy {
  /** The copy's root. */
  readonly root: string;
  /** Its learner folder, exercises/05-session-log. */
  readonly exercises: string;
  remove(): void;
}

/** Copies the workbook into a new temporary folder; each learner file is its shipped stub. */
export function copyWorkbook(prefix = "workbook-copy-"): WorkbookCopy {
  const copy = mkdtempSync(path.join(tmpdir(), prefix));
  for (const entry of copied) {
    cpSync(path.join(root, entry), path.join(copy, entry), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}.backup`),
    });
  }
  const exercises = path.join(copy, "exercises/05-session-log");
  cpSync(shippedStubsDir, exercises, { recursive: true, filter: (source) => !source.endsWith("README.md") });
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
  return { root: copy, exercises, remove: () => rmSync(copy, { recursive: true, force: true }) };
}

/**
 * The chapter's answer to `step`, importing as a learner file would: siblings the learner has written by
 * this step stay theirs; the rest (a later step's file, like 05.6's message-cache.ts in session.ts) points
 * into chapters/. Written into a copy's learner folder, it is the learner's file done right.
 */
export function answerAsLearnerFile(step: Step): string {
  const learnerNames = new Set(steps.slice(0, steps.indexOf(step) + 1).map((s) => s.file));
  return readFileSync(path.join(chapterDir, step.file), "utf8")
    .replace(/from "\.\/([^"]+)"/g, (whole, name: string) =>
      learnerNames.has(name) ? whole : `from "../../chapters/05-session-log/${name}"`,
    )
    .replace(/from "\.\.\/common\//g, 'from "../../chapters/common/');
}
