// `npm run reset -- 05.3`: put the step's stub back exactly as the workbook ships it, keeping your
// version as a backup in exercises/05-session-log/.backup/ (ignored by git).
//
// The stub comes from the workbook's own copy, scripts/maintainer/stubs/05-session-log/<file>: not from git, so
// it works the same whatever you committed, and in a downloaded zip. The stubs check in `npm test`
// runs every exercise test against those same copies.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { isMain, learnerFile, readArgs, requireStep, runMain, shown, stepsSharingFile, UsageError } from "../command.ts";
import { exercisesDir, shippedStubsDir, steps, type Step } from "../steps.ts";

export interface ResetOutcome {
  /** Where the learner's version went; undefined when there was nothing to keep. */
  readonly backup: string | undefined;
  readonly alreadyPristine: boolean;
}

/** Moves `file` into `backupDir` (unless it already is the stub) and writes the shipped stub in its place. */
export function resetFile(file: string, shippedStub: string, backupDir: string, now: Date = new Date()): ResetOutcome {
  if (!existsSync(shippedStub)) {
    throw new UsageError(`the shipped stub ${shown(shippedStub)} is missing: restore it from the workbook's repository.`);
  }
  const stub = readFileSync(shippedStub);
  const current = existsSync(file) ? readFileSync(file) : undefined;
  if (current?.equals(stub)) return { backup: undefined, alreadyPristine: true };
  let backup: string | undefined;
  if (current !== undefined) {
    mkdirSync(backupDir, { recursive: true });
    // The stamp goes after ".ts" so neither tsc nor vitest ever picks a backup up as code.
    backup = path.join(backupDir, `${path.basename(file)}.${now.toISOString().replace(/[:.]/g, "-")}`);
    renameSync(file, backup);
  }
  writeFileSync(file, stub);
  return { backup, alreadyPristine: false };
}

export interface ResetDeps {
  readonly steps?: readonly Step[];
  readonly exercisesDir?: string;
  readonly shippedStubsDir?: string;
  readonly now?: Date;
}

const COMMAND = {
  usage: ["npm run reset -- <练习步骤 / step>"],
  flags: {},
  positionals: true,
} as const satisfies Command<Flags>;

export function resetCommand(argv: readonly string[], deps: ResetDeps = {}): string {
  const { id } = readArgs(argv, COMMAND);
  const list = deps.steps ?? steps;
  const dir = deps.exercisesDir ?? exercisesDir;
  const step = requireStep(id, "reset", list);
  const file = learnerFile(step, dir);
  const shipped = path.join(deps.shippedStubsDir ?? shippedStubsDir, step.file);
  const outcome = resetFile(file, shipped, path.join(dir, ".backup"), deps.now);
  if (outcome.alreadyPristine) {
    return `${shown(file)} 已经是原始的桩，无需重置 / is already the untouched stub; nothing to reset.`;
  }
  const lines = [
    pc.green(`练习步骤 ${step.id}：${shown(file)} 已恢复为原始的桩 / step ${step.id}: ${shown(file)} is the stub again, as shipped.`),
  ];
  if (outcome.backup !== undefined) lines.push(`你的版本保存在 / your version is kept in ${pc.bold(shown(outcome.backup))}`);
  lines.push(...alsoTouched(step, list, dir, deps.shippedStubsDir ?? shippedStubsDir));
  const sharing = stepsSharingFile(step, list).map((other) => other.id);
  if (sharing.length > 0) {
    lines.push(
      pc.yellow(
        `注意：${step.file} 里还有练习步骤 ${sharing.join("、")}，它也一起回到了桩；想保留的部分请从备份里复制回来。\n` +
          `Note: ${step.file} also holds step ${sharing.join(", ")}, so that step was reset too. ` +
          "Copy the parts you want to keep back from the backup.",
      ),
    );
  }
  return lines.join("\n");
}

/**
 * What else the manifest says the step touched (its `alsoEdits`): the files it had the learner change
 * besides its own, left as they are but now calling a stub; and other steps' changes that lived in
 * this step's file, gone with it.
 */
function alsoTouched(step: Step, list: readonly Step[], dir: string, shippedDir: string): string[] {
  const lines: string[] = [];
  for (const edit of step.alsoEdits ?? []) {
    const edited = path.join(dir, edit.file);
    const shipped = path.join(shippedDir, edit.file);
    if (existsSync(edited) && existsSync(shipped) && readFileSync(edited).equals(readFileSync(shipped))) continue; // never changed
    const users = list.filter((other) => other.file === edit.file).map((other) => other.id);
    lines.push(
      pc.yellow(
        `注意：练习步骤 ${step.id} 还让你改了 ${edit.file}（${edit.whatZh}）。reset 没有动 ${edit.file}，` +
          `但它用到的 ${step.file} 已经回到了桩，所以练习步骤 ${users.join("、")} 的测试会停在 ${step.id} 的桩上：` +
          `把这部分改动从 ${edit.file} 里去掉，或者重做 ${step.id}。\n` +
          `Note: step ${step.id} also had you change ${edit.file} (${edit.what}). Reset left ${edit.file} as it is, ` +
          `but ${step.file} is the stub again, so the tests of ${users.join(", ")} stop at ${step.id}'s stub: ` +
          `take that change out of ${edit.file}, or do ${step.id} again.`,
      ),
    );
  }
  for (const other of list) {
    const edit = other.alsoEdits?.find((candidate) => candidate.file === step.file);
    if (other === step || edit === undefined) continue;
    lines.push(
      pc.yellow(
        `注意：如果你做过练习步骤 ${other.id}，它在 ${step.file} 里的改动（${edit.whatZh}）也一起回到了桩；想保留就从备份里复制回来。\n` +
          `Note: if you did step ${other.id}, its change to ${step.file} (${edit.what}) was reset too; copy it back from the backup to keep it.`,
      ),
    );
  }
  return lines;
}

if (isMain(import.meta.url)) {
  await runMain(() => console.log(resetCommand(process.argv.slice(2))));
}
