// What the learner commands (progress, hint, compare, reset, watch, test:chapter) share: their
// arguments read through the one flag table (chapters/common/flags.ts, so each takes --help and
// answers a wrong flag in both languages), finding a step by the id the learner typed, a usage error
// that lists the valid ids, and paths shown relative to the repo.
import path from "node:path";
import { fileURLToPath } from "node:url";
import pc from "picocolors";
import { explainSystemError, isSystemError, SYSTEM_ERROR_EXIT } from "../chapters/common/system-errors.ts";
import { visible } from "../chapters/common/text.ts";
import { readFlags, type Command, type Flags, type FlagValues } from "../chapters/common/flags.ts";
import { exercisesDir, root, steps, type Step } from "./steps.ts";

/** A mistake in how a command was called: printed in red, without a stack trace, exit code 1. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function validIds(list: readonly Step[] = steps): string {
  return list.map((step) => step.id).join(", ");
}

/** The step a learner named, or a UsageError that lists what they could have typed. */
export function requireStep(id: string | undefined, command: string, list: readonly Step[] = steps): Step {
  const example = list[0]?.id ?? "05.1";
  if (id === undefined || id === "") {
    throw new UsageError(
      `要做哪一个练习步骤？/ which step? Usage: npm run ${command} -- ${example}\n可选 / valid steps: ${validIds(list)}`,
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

/** Paths as a learner would type them from the repo root. */
export function shown(file: string, base: string = root): string {
  const relative = path.relative(base, file);
  return relative.startsWith("..") ? file : relative.split(path.sep).join("/");
}

/**
 * What the flag table answered instead of arguments: the usage after `--help` (exit code 0), or a
 * usage error and the usage (exit code 2). runMain prints it.
 */
export class FlagsAnswer extends Error {
  override readonly name = "FlagsAnswer";
  constructor(
    readonly exitCode: number,
    readonly lines: readonly string[],
  ) {
    super(lines.join("\n"));
  }
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

/**
 * Runs a command's main. --help and flag errors print as the flag table wrote them; a UsageError, or a
 * file or port the operating system refused (a folder where a file should be, no permission, a port in
 * use), becomes a short red message and exit code 1.
 */
export async function runMain(main: () => void | Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof FlagsAnswer) {
      for (const line of error.lines) (error.exitCode === 0 ? console.log : console.error)(line);
      process.exitCode = error.exitCode;
      return;
    }
    const message = error instanceof UsageError ? error.message : isSystemError(error) ? explainSystemError(error) : undefined;
    if (message === undefined) throw error;
    // A message may quote a file or a log: its control characters are shown, not obeyed.
    console.error(pc.red(`错误 / error: ${visible(message, { lines: true })}`));
    process.exitCode = SYSTEM_ERROR_EXIT;
  }
}

/** True when this module is the script node/tsx was started with (not imported by a test). */
export function isMain(metaUrl: string): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  return path.resolve(started) === fileURLToPath(metaUrl);
}
