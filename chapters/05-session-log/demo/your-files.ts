// Which of the learner's files a `--mine` run runs, as the chapter hears it: one environment variable the
// preload (scripts/learner/mine-preload.ts) sets before any chapter file loads, checked by a schema. What
// the demo says about those files (mine.ts) and how a throw from them is told (your-throw.ts) build on it.
import { z } from "zod";
import type { Env } from "../../common/settings.ts";

const notDone = z.enum(["stub", "not-started", "failing", "broken"]);
/** Why a step's answer still runs instead of the learner's file. */
export type NotDone = z.output<typeof notDone>;

/** One learner file the demo can run: the learner's own (every step it belongs to done), or the answer. */
const yourFile = z.object({
  /** The file's name in exercises/05-session-log/, e.g. "session.ts". */
  file: z.string(),
  /** The steps whose code lives in it (05.2 and 05.4 share session.ts). */
  steps: z.array(z.string()),
  /** Where the code that runs as yours is (absolute): found in a stack trace, it names the file. */
  path: z.string(),
  /** Undefined when your file runs; otherwise the steps not done yet, and why. */
  notDone: z.array(z.object({ step: z.string(), why: notDone })).optional(),
});
export type YourFile = z.output<typeof yourFile>;

/**
 * How the chapter hears which files are the learner's, the one way it does: scripts/learner/mine-preload.ts
 * decides it before any chapter file loads and puts it in this environment variable of the run (JSON,
 * a YourFile list); the chapter reads it and tells the tools nothing back. Unset: no resolve hook.
 */
export const YOUR_FILES = "WORKBOOK_YOUR_FILES";

/** The learner's files as the preload said them; undefined when the run was started without it. */
export function yourFilesIn(env: Env): readonly YourFile[] | undefined {
  const said = env[YOUR_FILES];
  return said === undefined ? undefined : z.array(yourFile).parse(JSON.parse(said));
}

/** The learner's files that run (their steps done), as the preload said them. */
export const yours = (env: Env): YourFile[] => (yourFilesIn(env) ?? []).filter((file) => file.notDone === undefined);

export const stepsInEnglish = (ids: readonly string[]): string => `${ids.length > 1 ? "steps" : "step"} ${ids.join(", ")}`;
