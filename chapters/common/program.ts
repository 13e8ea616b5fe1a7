// What the workbook's programs share, the chapter's (demo, view) and the learner commands alike: a
// usage error, the flag table's answer in place of arguments, the one way a program's failure is said
// (a sentence, never a stack trace), whether a module is the program started, and paths shown as a
// learner would type them.
import path from "node:path";
import { fileURLToPath } from "node:url";
import pc from "picocolors";
import { root } from "./root.ts";
import { explainSystemError, isSystemError, SYSTEM_ERROR_EXIT } from "./system-errors.ts";
import { visible } from "./text.ts";

/** A sentence or a label in both languages, [中文, English]: Chinese first, English beside. */
export type Bilingual = readonly [zh: string, en: string];

/** A mistake in how a command was called: printed in red, without a stack trace, exit code 1. */
export class UsageError extends Error {
  override readonly name = "UsageError";
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

/** Paths as a learner would type them from the repo root. */
export function shown(file: string, base: string = root): string {
  const relative = path.relative(base, file);
  return relative.startsWith("..") ? file : relative.split(path.sep).join("/");
}
