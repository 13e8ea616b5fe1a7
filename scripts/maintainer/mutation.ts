// Mutation testing of the disk and stream code with Stryker: do the tests notice when a line changes?
//   nice -n 15 npx tsx scripts/maintainer/mutation.ts                        every file in MUTATED_FILES
//   nice -n 15 npx tsx scripts/maintainer/mutation.ts chapters/common/text.ts  only the files named
// MUTATION_CONCURRENCY (default 2) sets how many test processes run mutants side by side.
//
// Stryker is not a dependency of the workbook (every learner would install it), and its 10.x CLI
// refuses Node 20: this script installs the pinned 9.6.1, which runs on Node 20, into a folder of
// its own under the system's temporary folder, once (scripts/maintainer/on-demand.ts), and starts it from
// there. The workbook's node_modules and package-lock.json are never touched. The runner's
// peers (`vitest`, `typescript`) are linked to the workbook's, so the tests and the runner share one vitest.
//
// The tests Stryker runs are vitest.mutation.config.ts's. Reports land in reports/mutation/ (the
// HTML page, mutation.json, and the incremental file that lets the next run retest only what changed).
import { rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "../../chapters/common/root.ts";
import { installOnDemand } from "./on-demand.ts";

const STRYKER_VERSION = "9.6.1";

/** The code whose tests the mutation score judges (issue 20, item 11). */
export const MUTATED_FILES = [
  "chapters/05-session-log/disk/**/*.ts",
  "chapters/05-session-log/stream/**/*.ts",
  "chapters/common/deepseek-stream.ts",
  "chapters/common/text.ts",
  "chapters/common/system-errors.ts",
  // Pages are written whole or not at all (a temporary file renamed over the target): disk code too.
  "chapters/common/atomic-write.ts",
  "!**/*.test.ts",
];

const STRYKER = [`@stryker-mutator/core@${STRYKER_VERSION}`, `@stryker-mutator/vitest-runner@${STRYKER_VERSION}`];

/** Stryker's peers, linked to the workbook's own copies: one vitest, one TypeScript. */
function linkWorkbookPeers(modules: string): void {
  for (const name of ["vitest", "typescript"]) {
    const link = path.join(modules, name);
    rmSync(link, { recursive: true, force: true });
    symlinkSync(path.join(root, "node_modules", name), link, "dir");
  }
}

async function main(): Promise<void> {
  // --legacy-peer-deps: the runner's peer vitest is the workbook's own, linked below, never a second copy.
  const prefix = installOnDemand(`workbook-stryker-${STRYKER_VERSION}`, STRYKER, ["--legacy-peer-deps"]);
  const modules = path.join(prefix, "node_modules");
  linkWorkbookPeers(modules);
  const entry = path.join(modules, "@stryker-mutator/core/dist/src/index.js");
  const { Stryker } = await import(pathToFileURL(entry).href);
  const named = process.argv.slice(2);
  process.chdir(root);
  const stryker = new Stryker({
    mutate: named.length > 0 ? named : MUTATED_FILES,
    testRunner: "vitest",
    plugins: [path.join(modules, "@stryker-mutator/vitest-runner/dist/src/index.js")],
    vitest: { configFile: "vitest.mutation.config.ts" },
    coverageAnalysis: "perTest",
    // A static mutant (module-level code: a table, a schema, a regular expression) runs at import, so
    // every one of the ~940 tests must run for it: 169 of them cost half the run. They are left out of
    // the score (Stryker reports them as ignored); the tables' tests check their entries word for word.
    ignoreStatic: true,
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
    dryRunTimeoutMinutes: 30,
    // A mutant's run also imports its test files, which Stryker's default margin (5 s over 1.5× the
    // tests' own time) does not allow for on a busy machine: every such run would count as a timeout.
    timeoutMS: 30_000,
    incremental: true,
    incrementalFile: "reports/mutation/stryker-incremental.json",
    reporters: ["clear-text", "progress-append-only", "html", "json"],
    htmlReporter: { fileName: "reports/mutation/mutation.html" },
    jsonReporter: { fileName: "reports/mutation/mutation.json" },
    clearTextReporter: { allowColor: false, reportMutants: false, reportTests: false },
    thresholds: { high: 95, low: 90, break: null },
  });
  await stryker.runMutationTest();
}

await main();
