// Each step's last test results, kept with a fingerprint of every learner file its tests load
// (.workbook/results.json, ignored by git): while those bytes are unchanged the results still hold, and
// no tool runs those tests again. `npm run watch` keeps them as it runs steps anyway; `npm run progress`
// runs only the steps whose files changed since; `--mine` reads its verdicts from them; the watch's first
// screen opens on the right step at once. Progress keeps each step file's type errors beside them (they
// depend on the same files): run again with nothing changed, it starts neither vitest nor TypeScript.
import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { filesReached } from "./imports.ts";
import { readStateFile, stateFile, writeStateFile } from "./state-file.ts";
import { classify, ranStatus, typeProblem, type StepStatus } from "./status.ts";
import type { TypeProblem } from "./type-problems.ts";
import type { FileOutcome } from "./step-runner.ts";
import { exercisesDir, type Step } from "../steps.ts";

export const resultsFile = (env: NodeJS.ProcessEnv = process.env) => stateFile("results.json", env);

const kept = z.object({ fingerprint: z.string(), status: ranStatus, types: z.array(typeProblem).readonly().optional() });

/** A hash of the step's test file and every file in the learner's folder it imports, however deep. */
export function fingerprint(step: Step, dir = exercisesDir): string {
  const hash = createHash("sha256");
  for (const [file, text] of filesReached(path.join(dir, step.test), dir)) hash.update(`${path.relative(dir, file)}\0${text}\0`);
  return hash.digest("hex");
}

/** Of `list`, the kept entries that still hold (the files the step's tests load are as they were), by id. */
function held(list: readonly Step[], file: string, dir: string): Map<string, z.output<typeof kept>> {
  const saved = readStateFile(file);
  const entries = new Map<string, z.output<typeof kept>>();
  for (const step of list) {
    // An entry of another shape (an older workbook's) is no result: the step runs again.
    const entry = kept.safeParse(saved[step.id]);
    if (entry.success && entry.data.fingerprint === fingerprint(step, dir)) entries.set(step.id, entry.data);
  }
  return entries;
}

/** Of `list`, the steps whose kept results still hold, with them, by id. */
export function heldResults(list: readonly Step[], file = resultsFile(), dir = exercisesDir): Map<string, StepStatus> {
  return new Map([...held(list, file, dir)].map(([id, entry]) => [id, entry.status]));
}

/** Of `list`, the steps whose file's type errors were kept with results that still hold, by id. */
export function heldTypes(list: readonly Step[], file = resultsFile(), dir = exercisesDir): Map<string, readonly TypeProblem[]> {
  return new Map([...held(list, file, dir)].flatMap(([id, entry]) => (entry.types === undefined ? [] : [[id, entry.types]])));
}

/** What is kept of a step: its status (and its file's type errors, when known) under the fingerprint its files had when its tests started. */
export interface KeptResult {
  readonly step: Step;
  readonly fingerprint: string;
  readonly status: StepStatus;
  readonly types?: readonly TypeProblem[] | undefined;
}

export function keepResults(results: readonly KeptResult[], file = resultsFile()): void {
  const saved = { ...readStateFile(file) };
  for (const { step, fingerprint, status, types } of results) {
    if (status.kind !== "unchecked") saved[step.id] = { fingerprint, status, ...(types === undefined ? {} : { types }) };
  }
  try {
    writeStateFile(file, saved);
  } catch {
    // Only a head start for the next run: every tool works without it.
  }
}

/** What runs steps' tests: WatchRunner or StepRunner, or a fake in tests. */
export interface StepTests {
  run(list: readonly Step[]): Promise<FileOutcome[]>;
}

/** `tests`, keeping the results of every run (npm run watch's), fingerprints taken before the run. */
export function keepingResults<T extends StepTests>(tests: T, file = resultsFile()): T {
  const run = tests.run.bind(tests);
  tests.run = async (list) => {
    const before = list.map((step) => fingerprint(step));
    const outcomes = await run(list);
    keepResults(
      list.flatMap((step, index) => {
        const outcome = outcomes[index];
        return outcome === undefined ? [] : [{ step, fingerprint: before[index] ?? "", status: classify(outcome, step.id) }];
      }),
      file,
    );
    return outcomes;
  };
  return tests;
}
