// `npm run reset -- 05.3`: put the step's stub back, keeping your version as a backup in
// exercises/05-session-log/.backup/ (ignored by git).
//
// Where the pristine stub comes from: the workbook's git history, not a second copy of every stub
// kept in the repo. HEAD will not do, because a learner may have committed their own work. Instead:
// among every committed version of the file (`git log -- <file>`), take the newest one with the most
// `todo(` calls. A learner's commit replaces `todo(...)` calls with code, so it always has fewer and
// never qualifies; a maintainer's later fix to a stub (a comment, a signature) keeps every call, so
// the newest fixed stub wins over the original. Outside a git checkout (a downloaded zip) there is
// no history to read, and the command says so instead of guessing.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { isMain, learnerFile, parseArgs, requireStep, runMain, shown, stepsSharingFile, UsageError } from "./learner.ts";
import { exercisesDir, steps, type Step } from "./steps.ts";

export interface PristineStub {
  readonly commit: string;
  readonly content: string;
}

/** Runs git in `cwd`; a missing git or a folder outside any checkout becomes a clear UsageError. */
function git(args: readonly string[], cwd: string): string {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "");
    const why = /not a git repository/i.test(stderr)
      ? `${shown(cwd)} is not inside a git checkout`
      : `git ${args[0]} failed: ${stderr.trim() || (error as Error).message}`;
    throw new UsageError(
      `reset reads the original stub from the workbook's git history, but ${why}. ` +
        "Clone the workbook with git, or copy the stub from its repository by hand.",
    );
  }
}

export function countTodos(source: string): number {
  return source.match(/\btodo\(/g)?.length ?? 0;
}

/** The stub as the workbook shipped it (see the comment at the top for how it is chosen). */
export function pristineStub(file: string): PristineStub {
  const dir = path.dirname(file);
  const name = path.basename(file);
  const commits = git(["log", "--format=%H", "--", name], dir).split("\n").filter(Boolean);
  if (commits.length === 0) {
    throw new UsageError(`${shown(file)} has never been committed here, so there is no original stub to restore.`);
  }
  let best: PristineStub | undefined;
  let bestCount = -1;
  for (const commit of commits) {
    // A commit that deleted the file is in the log too; it has no version to offer.
    const content = readAt(commit, name, dir);
    if (content === undefined) continue;
    const count = countTodos(content);
    if (count > bestCount) {
      best = { commit, content }; // newest first, so only a strictly larger count replaces it
      bestCount = count;
    }
  }
  if (best === undefined) throw new UsageError(`no committed version of ${shown(file)} was found.`);
  return best;
}

function readAt(commit: string, name: string, dir: string): string | undefined {
  try {
    return execFileSync("git", ["show", `${commit}:./${name}`], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return undefined;
  }
}

export interface ResetOutcome {
  /** Where the learner's version went; undefined when there was nothing to keep. */
  readonly backup: string | undefined;
  readonly commit: string;
  readonly alreadyPristine: boolean;
}

/** Moves `file` into `backupDir` (unless it already is the stub) and writes the stub in its place. */
export function resetFile(file: string, backupDir: string, now: Date = new Date()): ResetOutcome {
  const stub = pristineStub(file);
  const current = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  if (current === stub.content) return { backup: undefined, commit: stub.commit, alreadyPristine: true };
  let backup: string | undefined;
  if (current !== undefined) {
    mkdirSync(backupDir, { recursive: true });
    // The stamp goes after ".ts" so neither tsc nor vitest ever picks a backup up as code.
    backup = path.join(backupDir, `${path.basename(file)}.${now.toISOString().replace(/[:.]/g, "-")}`);
    renameSync(file, backup);
  }
  writeFileSync(file, stub.content);
  return { backup, commit: stub.commit, alreadyPristine: false };
}

export interface ResetDeps {
  readonly steps?: readonly Step[];
  readonly exercisesDir?: string;
  readonly now?: Date;
}

export function resetCommand(argv: readonly string[], deps: ResetDeps = {}): string {
  const { id, flags } = parseArgs(argv);
  if (flags.size > 0) throw new UsageError(`unknown option ${[...flags].join(" ")}`);
  const list = deps.steps ?? steps;
  const dir = deps.exercisesDir ?? exercisesDir;
  const step = requireStep(id, "reset", list);
  const file = learnerFile(step, dir);
  const outcome = resetFile(file, path.join(dir, ".backup"), deps.now);
  if (outcome.alreadyPristine) return `${shown(file)} is already the untouched stub; nothing to reset.`;
  const lines = [pc.green(`Step ${step.id}: ${shown(file)} is the stub again (as of commit ${outcome.commit.slice(0, 7)}).`)];
  if (outcome.backup !== undefined) lines.push(`Your version is kept in ${pc.bold(shown(outcome.backup))}`);
  const sharing = stepsSharingFile(step, list).map((other) => other.id);
  if (sharing.length > 0) {
    lines.push(
      pc.yellow(
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
