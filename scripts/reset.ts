// `npm run reset -- 05.3`: put the step's stub back exactly as the workbook ships it, keeping your
// version as a backup in exercises/05-session-log/.backup/ (ignored by git).
//
// The stub comes from the workbook's own copy, scripts/stubs/05-session-log/<file>: not from git, so
// it works the same whatever you committed, and in a downloaded zip. The stubs check in `npm test`
// runs every exercise test against those same copies.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { isMain, learnerFile, parseArgs, requireStep, runMain, shown, stepsSharingFile, UsageError } from "./learner.ts";
import { exercisesDir, shippedStubsDir, steps, type Step } from "./steps.ts";

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

export function resetCommand(argv: readonly string[], deps: ResetDeps = {}): string {
  const { id, flags } = parseArgs(argv);
  if (flags.size > 0) throw new UsageError(`没有这个选项 / unknown option ${[...flags].join(" ")}`);
  const list = deps.steps ?? steps;
  const dir = deps.exercisesDir ?? exercisesDir;
  const step = requireStep(id, "reset", list);
  const file = learnerFile(step, dir);
  const shipped = path.join(deps.shippedStubsDir ?? shippedStubsDir, step.file);
  const outcome = resetFile(file, shipped, path.join(dir, ".backup"), deps.now);
  if (outcome.alreadyPristine) {
    return `${shown(file)} 已经是原始的桩，无需重置 / is already the untouched stub; nothing to reset.`;
  }
  const lines = [pc.green(`练习步骤 ${step.id}: ${shown(file)} 已恢复为原始的桩 / is the stub again, as shipped.`)];
  if (outcome.backup !== undefined) lines.push(`你的版本保存在 / your version is kept in ${pc.bold(shown(outcome.backup))}`);
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

if (isMain(import.meta.url)) {
  await runMain(() => console.log(resetCommand(process.argv.slice(2))));
}
