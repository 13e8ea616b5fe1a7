// The tests Stryker runs against each mutant (scripts/maintainer/mutation.ts; CONTRIBUTING.md says how to run it).
// They are the workbook run's two projects, `chapter` and `answers` (the exercise tests resolved against
// the answers by the swapFiles plugin, so 05.7 and 05.8 count), less the test files that only start
// programs or drive a browser: a mutant lives in the test process, and a child process or a page loads
// the file as written, so those tests cannot kill it and would only add minutes to every run. The
// program-starting tests of files that also test in process are skipped by name (scripts/maintainer/mutation-setup.ts).
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import workbook from "./vitest.config.ts";

/** Files whose tests start a program, tmux or Chromium for every check they make. */
export const startsPrograms = [
  "**/*.browser.test.ts",
  "chapters/05-session-log/disk/disk-faults.test.ts",
  "chapters/05-session-log/disk/lock-users.test.ts",
  "chapters/05-session-log/disk/log-memory.test.ts",
  "chapters/05-session-log/demo/hostile-text.test.ts",
  "chapters/05-session-log/demo/output-file.test.ts",
  "scripts/learner/mine.test.ts",
  "scripts/learner/watch-terminal.test.ts",
];

/** The chapter's own tests and the fixtures'; of the scripts', only the one about system errors. */
const mutationTests = ["chapters/**/*.test.ts", "fixtures/**/*.test.ts", "scripts/maintainer/system-errors.test.ts"];

const base = workbook({ mode: "workbook", command: "serve" });

function forMutants(project: TestProjectInlineConfiguration): TestProjectInlineConfiguration {
  const test = project.test ?? {};
  const include = test.name === "chapter" ? mutationTests : test.include;
  // Instrumented code counts every branch it takes: a property test runs several times slower.
  const testTimeout = 120_000;
  return { ...project, test: { ...test, include, testTimeout, exclude: [...configDefaults.exclude, ...startsPrograms] } };
}

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    setupFiles: ["scripts/maintainer/mutation-setup.ts"],
    // One test thread per Stryker runner (Stryker starts several runners for concurrency). Its runner
    // forces worker threads, which share one process: the workbook's two would share its file size
    // limit too, and a test that lowers it (real-faults.ts's withFileSizeLimit) would fail the other's writes.
    maxWorkers: 1,
    projects: (base.test?.projects ?? []).map((project) => forMutants(project as TestProjectInlineConfiguration)),
  },
});
