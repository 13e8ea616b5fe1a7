// Decoys: plausible wrong answers that the exercise tests must reject. Each replaces one learner
// file with a near-miss built on the chapter's code; scripts/check-exercises.ts proves that at least
// one test of the step fails for each. They live here, away from anything a learner would copy.
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Decoy {
  readonly name: string;
  /** What is wrong with it, as the check reports it. */
  readonly mistake: string;
  /** The learner file it stands in for (inside exercises/05-session-log/). */
  readonly replaces: string;
  /** The step test that must catch it. */
  readonly test: string;
  readonly file: string;
}

function decoy(name: string, mistake: string, replaces: string, test: string): Decoy {
  return { name, mistake, replaces, test, file: path.join(here, `${name}.ts`) };
}

export const decoys: readonly Decoy[] = [];
void decoy;
