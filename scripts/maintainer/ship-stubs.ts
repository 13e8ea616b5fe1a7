// `npm run ship-stubs` (maintainers): after editing a stub in exercises/, copy it to scripts/maintainer/stubs/,
// the copy `npm run reset` restores and the stubs check runs. `-- 05.3` ships one step's file.
// A file with fewer `todo(` calls than its shipped copy looks like solved work, not a stub: it is
// refused unless `--force` (a maintainer who tried the exercises in this checkout would ship answers).
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { isMain, readArgs, requireStep, runMain, shown, UsageError } from "../command.ts";
import { exercisesDir, shippedStubsDir, steps } from "../steps.ts";

/** How many todo("<step>", …) calls a source makes, per step. */
export function todoCounts(source: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, step] of source.matchAll(/\btodo\(\s*"([^"]+)"/g)) counts.set(step!, (counts.get(step!) ?? 0) + 1);
  return counts;
}

function countTodos(source: string): number {
  return [...todoCounts(source).values()].reduce((sum, calls) => sum + calls, 0);
}

const COMMAND = {
  usage: ["npm run ship-stubs -- [<练习步骤 / step>] [--force]"],
  flags: {
    force: { type: "boolean", help: "桩里的 todo( 比发布的少也照样复制 / copy even a stub with fewer todo( calls than the shipped one" },
  },
  positionals: true,
} as const satisfies Command<Flags>;

export function shipStubs(argv: readonly string[], from = exercisesDir, to = shippedStubsDir): string[] {
  const { id, values } = readArgs(argv, COMMAND);
  const files = id === undefined ? [...new Set(steps.map((step) => step.file))] : [requireStep(id, "ship-stubs").file];
  const lines: string[] = [];
  mkdirSync(to, { recursive: true });
  for (const file of files) {
    const source = path.join(from, file);
    const target = path.join(to, file);
    const stub = readFileSync(source, "utf8");
    const shipped = existsSync(target) ? readFileSync(target, "utf8") : undefined;
    if (shipped === stub) continue;
    if (shipped !== undefined && countTodos(stub) < countTodos(shipped) && values.force !== true) {
      throw new UsageError(
        `${shown(source)} has fewer todo( calls than ${shown(target)}: it looks like solved work, not a stub. ` +
          "Reset it (npm run reset) or ship it anyway with --force.",
      );
    }
    copyFileSync(source, target);
    lines.push(`${shown(source)} → ${shown(target)}`);
  }
  return lines.length > 0 ? lines : ["Every shipped stub is already up to date."];
}

if (isMain(import.meta.url)) {
  await runMain(() => console.log(shipStubs(process.argv.slice(2)).join("\n")));
}
