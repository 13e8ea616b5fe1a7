// What the learner commands (progress, hint, compare, reset, watch, test:chapter) share: their
// arguments read through the one flag table (chapters/common/flags.ts, so each takes --help and
// answers a wrong flag in both languages), and finding a step by the id the learner typed, with a
// usage error that lists the valid ids.
import path from "node:path";
import { readFlags, type Command, type Flags, type FlagValues } from "../chapters/common/flags.ts";
import { FlagsAnswer, UsageError } from "../chapters/common/program.ts";
import { exercisesDir, steps, type Step } from "./steps.ts";

// Shared with the chapter's programs (demo, view): chapters/common/program.ts.
export { FlagsAnswer, isMain, runMain, shown, UsageError } from "../chapters/common/program.ts";

export function validIds(list: readonly Step[] = steps): string {
  return list.map((step) => step.id).join(", ");
}

/** The step a learner named, or a UsageError that lists what they could have typed. */
export function requireStep(id: string | undefined, command: string, list: readonly Step[] = steps): Step {
  const example = list[0]?.id ?? "05.1";
  if (id === undefined || id === "") {
    throw new UsageError(
      `要做哪一个练习步骤？ / which step?\n用法 / usage: npm run ${command} -- ${example}\n可选 / valid steps: ${validIds(list)}`,
    );
  }
  const step = list.find((candidate) => candidate.id === id);
  if (step === undefined) {
    throw new UsageError(`没有练习步骤 "${id}" / unknown step "${id}". 可选 / valid steps: ${validIds(list)}`);
  }
  return step;
}

/** The other steps whose code lives in the same learner file (05.2 and 05.4 share session.ts). */
export function stepsSharingFile(step: Step, list: readonly Step[] = steps): Step[] {
  return list.filter((other) => other.file === step.file && other.id !== step.id);
}

export function learnerFile(step: Step, dir: string = exercisesDir): string {
  return path.join(dir, step.file);
}

export function answerFile(step: Step): string {
  return path.join(step.answerDir, step.file);
}

/** `npm run x -- 05.3 --reset` → the step id (at most one) and the flags, read through the command's flag table. */
export function readArgs<F extends Flags>(
  argv: readonly string[],
  command: Command<F>,
): { readonly id: string | undefined; readonly values: FlagValues<F> } {
  const out: string[] = [];
  const err: string[] = [];
  const read = readFlags(argv, command, { out: (line) => out.push(line), err: (line) => err.push(line) });
  if (typeof read === "number") throw new FlagsAnswer(read, read === 0 ? out : err);
  const { positionals, values } = read;
  if (positionals.length > 1) throw new UsageError(`只能给一个练习步骤 / expected one step id, got: ${positionals.join(" ")}`);
  return { id: positionals[0], values };
}
