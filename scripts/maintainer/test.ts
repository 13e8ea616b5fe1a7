// `npm test`: the whole workbook in one command.
//   1. the answers run (--mode workbook): the chapter's own tests, and every exercise test run against
//      the answers (the chapter for the book's steps and the challenges, 05.1–05.8; solutions/ for the 练习);
//   2. the workbook checks (scripts/maintainer/check-exercises.ts): every exercise test fails on its shipped stub,
//      every decoy is caught, and (with `--fresh-clone`, as .ci/run passes it) every learner file is
//      still its shipped stub.
// Neither run reads the learner's own files, so a learner can run it mid-exercise and it stays green.
// Each run gets a fresh TMPDIR, and anything a test leaves behind fails the run (scripts/maintainer/leftovers.ts).
// Both always run, and the last line is always the run's `N passed, N failed` (CI reads that line),
// even when the answers run has failures: a red run should still say how red.
import pc from "picocolors";
import { startVitest, type TestModule } from "vitest/node";
import { checkExercises, runCheckProjects } from "./check-exercises.ts";
import { leftovers } from "./leftovers.ts";
import { guardTemporaryFiles } from "./test-tmpdir.ts";
import { CHROMIUM_HINT, findChromium } from "../../chapters/05-session-log/timeline/chromium.ts";

// Both runs at once: alone, each leaves a core idle while its last slow files finish. The check run
// is silent, so the terminal shows the answers run as before, then the checks' verdicts.
const guard = guardTemporaryFiles();
const checkRun = runCheckProjects();
const answers = await runAnswers();
console.log(`\n${pc.bold("Workbook checks: every exercise test fails on its stub, every decoy is caught")}\n`);
const checks = await checkExercises(process.argv.includes("--fresh-clone"), checkRun);

// The browser tests skip without Chromium; say so where it cannot be missed, never silently.
if (findChromium() === undefined) console.log(pc.yellow(`\nBrowser tests skipped: no Chromium found. To run them, ${CHROMIUM_HINT}.`));
const left = leftovers(guard);
if (left.length > 0) {
  console.log(
    pc.red(
      "\n测试留下了下面这些东西（已删除），每一样都要让留下它的测试或代码自己清理 / The tests left these behind (removed now): make the test or code that left each one clean up",
    ),
  );
  for (const line of left) console.log(pc.red(`✗ ${line}`));
}
console.log(
  `\nanswers run: ${answers.passed} passed, ${answers.failed} failed; workbook checks: ${checks.passed} passed, ${checks.failed} failed; left behind: ${left.length}`,
);
const failed = answers.failed + checks.failed + left.length;
console.log(`${answers.passed + checks.passed} passed, ${failed} failed`);
// startVitest sets process.exitCode itself (the check run's stubs fail on purpose), so set it last.
process.exitCode = failed === 0 ? 0 : 1;

async function runAnswers(): Promise<{ passed: number; failed: number }> {
  const vitest = await startVitest("test", [], { mode: "workbook", watch: false });
  await vitest.close();
  const modules = [...vitest.state.getTestModules()];
  const tests = modules.flatMap((module: TestModule) => [...module.children.allTests()]);
  // A file that cannot load has no test to fail, an error outside every test fails none, and a run that
  // found no files fails nothing at all: count each of them as a failure.
  const brokenFiles = modules.filter((module) => module.errors().length > 0).length;
  const strayErrors = vitest.state.getUnhandledErrors().length;
  const noFiles = modules.length === 0 ? 1 : 0;
  return {
    passed: tests.filter((test) => test.result().state === "passed").length,
    failed: tests.filter((test) => test.result().state === "failed").length + brokenFiles + strayErrors + noFiles,
  };
}
