// `npm run compare -- 05.3`: your file against the answer, as a coloured unified diff. Lines starting
// with `-` are yours, `+` the answer's. The answer for a core step is the chapter's own file; for the
// book's 练习 it is the file in solutions/. Identical files are reported as such.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import pc from "picocolors";
import { answerFile, isMain, learnerFile, parseArgs, requireStep, runMain, shown, stepsSharingFile, UsageError } from "./learner.ts";
import { answerFiles, steps, type Step } from "./steps.ts";

/** A unified diff of two texts, coloured; `undefined` when they are identical. */
export function colouredDiff(mine: string, answer: string, mineName: string, answerName: string): string | undefined {
  if (mine === answer) return undefined;
  const patch = createTwoFilesPatch(mineName, answerName, mine, answer, "yours", "answer", { context: 3 });
  return patch
    .split("\n")
    .filter((line) => !line.startsWith("====")) // the separator line createTwoFilesPatch puts on top
    .map(colourLine)
    .join("\n")
    .trimEnd();
}

function colourLine(line: string): string {
  if (line.startsWith("---") || line.startsWith("+++")) return pc.bold(line);
  if (line.startsWith("@@")) return pc.cyan(line);
  if (line.startsWith("-")) return pc.red(line);
  if (line.startsWith("+")) return pc.green(line);
  return line;
}

// An import specifier after `from`, `import(`, a bare `import`, or `declare module`.
const relativeImport = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\bdeclare\s+module\s+)(["'])(\.\.?\/[^"']+)\2/g;

/**
 * Rewrites the answer's relative imports as they would read from the learner's folder, so the diff
 * shows what the code does differently, not that `../common/messages.ts` lives at another depth.
 * An import of a sibling that is itself the answer to a learner file (the chapter's session.ts
 * importing ./json.ts) becomes that learner file (./json.ts), as in the stubs.
 */
export function rebaseImports(source: string, answerDir: string, learnerDir: string, learnerFor: ReadonlyMap<string, string>): string {
  return source.replace(relativeImport, (whole, lead: string, quote: string, specifier: string) => {
    const target = path.resolve(answerDir, specifier);
    const sibling = path.dirname(target) === answerDir ? learnerFor.get(target) : undefined;
    let rebased = path.relative(learnerDir, sibling ?? target).split(path.sep).join("/");
    if (!rebased.startsWith(".")) rebased = `./${rebased}`;
    return `${lead}${quote}${rebased}${quote}`;
  });
}

/** Answer file → the learner file it answers (the inverse of steps.ts' answerFiles). */
function learnerFileFor(): Map<string, string> {
  return new Map([...answerFiles()].map(([learner, answer]) => [answer, learner]));
}

/** Compares two files by path; the paths are injectable so tests can use their own. */
export function compareFiles(
  mineFile: string,
  answerPath: string,
  learnerFor: ReadonlyMap<string, string> = learnerFileFor(),
): { identical: boolean; text: string } {
  if (!existsSync(mineFile)) throw new UsageError(`${shown(mineFile)} does not exist (restore it: npm run reset -- <step>)`);
  if (!existsSync(answerPath)) throw new UsageError(`the answer ${shown(answerPath)} does not exist yet`);
  const answer = rebaseImports(readFileSync(answerPath, "utf8"), path.dirname(answerPath), path.dirname(mineFile), learnerFor);
  const diff = colouredDiff(readFileSync(mineFile, "utf8"), answer, shown(mineFile), shown(answerPath));
  if (diff === undefined) {
    return { identical: true, text: pc.green(`${shown(mineFile)} is identical to the answer ${shown(answerPath)}.`) };
  }
  const legend = `${pc.red(`- ${shown(mineFile)} (yours)`)}   ${pc.green(`+ ${shown(answerPath)} (the answer)`)}`;
  return { identical: false, text: `${legend}\n\n${diff}` };
}

export function compareCommand(argv: readonly string[], list: readonly Step[] = steps): string {
  const { id, flags } = parseArgs(argv);
  if (flags.size > 0) throw new UsageError(`unknown option ${[...flags].join(" ")}`);
  const step = requireStep(id, "compare", list);
  const { identical, text } = compareFiles(learnerFile(step), answerFile(step));
  if (identical) return text;
  const sharing = stepsSharingFile(step, list).map((other) => other.id);
  // The diff covers the whole file, so differences in the other step's functions show up too.
  const note = sharing.length === 0 ? "" : pc.dim(`\n\n${step.file} also holds step ${sharing.join(", ")}: its parts are in this diff too.`);
  const reminder = pc.dim(
    "\nThe answer's imports are shown as they would read from your folder. It may differ in ways that don't matter\n" +
      "(comments, helper names, the stub's re-exports); your tests decide.",
  );
  return text + note + reminder;
}

if (isMain(import.meta.url)) {
  await runMain(() => console.log(compareCommand(process.argv.slice(2))));
}
