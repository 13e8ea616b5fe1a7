// `npm run test:chapter -- session.ts`: the tests of one chapter file, run against the chapter.
// Most chapter rules are tested in exercises/ (the learner's spec), against the chapter through the
// answers run's stand-in plugin, so `npx vitest run chapters/05-session-log` alone misses them. This
// maps the file through the manifest: the steps it answers give their exercise tests (answers mode),
// and a test file beside it (`invariants.test.ts`) is added. A file no step answers and no test sits
// beside (events.ts, a contract) gets every test that imports it, directly or not (`vitest related`).
// Extra arguments go to vitest: `npm run test:chapter -- session.ts -t "fromLog"`.
import { existsSync } from "node:fs";
import path from "node:path";
import { startVitest } from "vitest/node";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { isMain, readArgs, runMain, shown, UsageError } from "../command.ts";
import { exercisesDir, root, solutionsDir, steps, type Step } from "../steps.ts";

/** `session.ts`, `chapters/05-session-log/session.ts` or `common/tools.ts` → the file. */
export function resolveChapterFile(name: string): string {
  const candidates = [
    path.resolve(root, name),
    path.join(root, "chapters", name),
    path.join(root, "chapters/05-session-log", name),
    path.join(solutionsDir, name),
  ];
  const found = candidates.find((candidate) => existsSync(candidate) && candidate.endsWith(".ts"));
  if (found === undefined) throw new UsageError(`no chapter file "${name}" (try session.ts, common/tools.ts or a path from the repo root)`);
  return found;
}

export interface ChapterTests {
  /** Test files to run; empty means "every test that imports the file" (vitest related). */
  readonly files: readonly string[];
  /** The steps whose answer this file is. */
  readonly steps: readonly Step[];
}

export function testsOf(file: string, list: readonly Step[] = steps): ChapterTests {
  const answered = list.filter((step) => path.join(step.answerDir, step.file) === file);
  const beside = file.replace(/\.ts$/, ".test.ts");
  const files = [...new Set(answered.map((step) => path.join(exercisesDir, step.test)))];
  if (existsSync(beside) && beside !== file) files.push(beside);
  return { files, steps: answered };
}

/** The command line, read through the one flag table (chapters/common/flags.ts). */
export const COMMAND = {
  usage: ["npm run test:chapter -- <章节文件 file> [-t <测试名 test name>]   例如 / e.g. session.ts -t fromLog"],
  flags: {
    "test-name": { type: "string", short: "t", value: "<name>", help: "只跑名字里有它的测试 / only the tests whose name matches" },
  },
  positionals: true,
} as const satisfies Command<Flags>;

async function main(argv: readonly string[]): Promise<void> {
  const { id: name, values } = readArgs(argv, COMMAND);
  if (name === undefined) throw new UsageError("要测哪个文件？/ which file? Usage: npm run test:chapter -- session.ts");
  const file = resolveChapterFile(name);
  const { files, steps: answered } = testsOf(file);
  if (answered.length > 0)
    console.log(`${shown(file)} answers step ${answered.map((step) => step.id).join(", ")}: its exercise tests run against it.`);
  if (files.length === 0) console.log(`${shown(file)} answers no step and has no test beside it: running every test that imports it.`);
  for (const test of files) console.log(`  ${shown(test)}`);
  const testNamePattern = values["test-name"];
  const vitest = await startVitest("test", files.length > 0 ? [...files] : [], {
    mode: "workbook", // the answers project: exercise tests resolve the learner's imports to the chapter
    run: true,
    watch: false,
    ...(files.length === 0 ? { related: [file] } : {}),
    ...(testNamePattern === undefined ? {} : { testNamePattern }),
  });
  await vitest.close();
}

if (isMain(import.meta.url)) {
  await runMain(() => main(process.argv.slice(2)));
}
