// Three ways to run the same exercise tests (the steps: steps.toml, read by scripts/steps.ts):
//   npx vitest exercises          → the learner's own files (the default: watch mode while you work)
//   --mode workbook               → chapter and fixture tests, plus every exercise test against the answers
//   --mode check                  → every exercise test against the shipped stubs and the decoys
// `npm test` (scripts/maintainer/test.ts) runs the workbook mode and the check mode (scripts/maintainer/check-exercises.ts) side by side.
import { availableParallelism } from "node:os";
import type { Plugin } from "vite";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { decoyRunsDir, swapInDecoys, writeDecoyRuns } from "./scripts/maintainer/decoy-runs.ts";
import { testTmpdir } from "./scripts/maintainer/test-tmpdir.ts";
import { answerFiles, shippedStubs } from "./scripts/steps.ts";

/**
 * Makes every import of a learner's file load another file instead (an answer, a shipped stub or a
 * decoy). With `inLearnerFolder`, a swapped-in file's own relative imports resolve as if it stood where the
 * file it replaces stands: a shipped stub in scripts/maintainer/stubs/ imports the learner folder's `./todo.ts`.
 */
function swapFiles(replacements: ReadonlyMap<string, string>, inLearnerFolder = false): Plugin {
  const standsFor = new Map([...replacements].map(([learnerFile, replacement]) => [replacement, learnerFile]));
  return {
    name: "workbook-swap-files",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (importer === undefined || !source.startsWith(".")) return null;
      const from = (inLearnerFolder && standsFor.get(importer)) || importer;
      const resolved = await this.resolve(source, from, { ...options, skipSelf: true });
      const replacement = resolved && replacements.get(resolved.id);
      if (replacement) return { id: replacement };
      return from === importer ? null : resolved; // a swapped-in file's import, resolved from the learner folder
    },
  };
}

const exerciseTests = "exercises/**/*.test.ts";

/**
 * npm test's projects (workbook and check at once, often on a busy machine) give a test a minute: at
 * load 25 on two cores 05.7's crash properties took 22 s each. Set on each project, not at the root:
 * vitest reads the config again for each project in mode "test", so a root value chosen by mode would
 * be the learner's 20 s there.
 */
const NPM_TEST_TIMEOUT_MS = 60_000;

const learner: TestProjectInlineConfiguration = {
  extends: true,
  test: { name: "exercises", include: [exerciseTests] },
};

const chapter: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: "chapter",
    testTimeout: NPM_TEST_TIMEOUT_MS,
    // Files share one worker and the modules it has loaded (about a third less CPU than a fresh
    // process per file): a test cleans up what it changes (servers, env stubs, spies, temp files).
    isolate: false,
    include: ["chapters/**/*.test.ts", "fixtures/**/*.test.ts", "scripts/**/*.test.ts", "solutions/**/*.test.ts"],
  },
};

const answers: TestProjectInlineConfiguration = {
  extends: true,
  plugins: [swapFiles(answerFiles())],
  test: { name: "answers", include: [exerciseTests], isolate: false, testTimeout: NPM_TEST_TIMEOUT_MS },
};

// The stubs as shipped (scripts/maintainer/stubs/), never the learner's edits: npm test holds mid-exercise too.
const stubs: TestProjectInlineConfiguration = {
  extends: true,
  plugins: [swapFiles(shippedStubs(), true)],
  test: { name: "stubs", include: [exerciseTests], isolate: false, testTimeout: NPM_TEST_TIMEOUT_MS },
};

// Every decoy in one project, files sharing workers like the stubs (a fresh process per decoy cost more
// CPU than its tests): each decoy has a generated run file that imports its step's test file, and the
// plugin gives that run the decoy (scripts/maintainer/decoy-runs.ts).
const decoyProject = (): TestProjectInlineConfiguration => {
  writeDecoyRuns();
  return {
    extends: true,
    plugins: [swapInDecoys()],
    test: {
      name: "decoys",
      testTimeout: NPM_TEST_TIMEOUT_MS,
      dir: decoyRunsDir,
      include: ["*.decoy.test.ts"],
      isolate: false,
      // One failing test catches the decoy: the ones after it are skipped (see the file).
      setupFiles: ["scripts/maintainer/decoy-setup.ts"],
    },
  };
};

export default defineConfig(({ mode }) => ({
  test: {
    projects: mode === "workbook" ? [chapter, answers] : mode === "check" ? [stubs, decoyProject()] : [learner],
    // vitest's default for a run is one worker fewer than the cores: a single worker on a 2-core
    // machine. Many tests wait on a child process or the disk, so use every core.
    maxWorkers: availableParallelism(),
    // Property tests print their seed on failure; a learner can paste it back (see the README).
    // A timeout ends a hang, never judges speed: a learner's own run says so after 20 s (npm test's
    // projects set their own, NPM_TEST_TIMEOUT_MS).
    testTimeout: 20_000,
    // Tests never see the maintainer's own DeepSeek settings: blank means "not set" (chapters/common/settings.ts),
    // so a key or a bad DEEPSEEK_TIMEOUT_MS in the shell cannot change what a test does.
    // Temporary files go to a RAM disk, and under npm test to a folder of the run's own (test-tmpdir.ts).
    env: { DEEPSEEK_API_KEY: "", DEEPSEEK_BASE_URL: "", DEEPSEEK_MODEL: "", DEEPSEEK_TIMEOUT_MS: "", ...testTmpdir() },
    // fast-check's own frames (about ten per failing property) say nothing about the learner's code.
    onStackTrace: (_error, frame) => !frame.file.includes("/node_modules/fast-check/"),
  },
}));
