// The workbook's promise, checked by every `npm test` (scripts/test.ts) after the answers run:
//   1. every exercise test FAILS against the untouched stubs — a test that passes on a stub checks nothing;
//   2. every decoy (a plausible wrong answer, scripts/decoys/) fails at least one test of its step.
import path from "node:path";
import pc from "picocolors";
import { startVitest, type TestModule } from "vitest/node";
import { decoys, root } from "./steps.ts";

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Runs the stubs and every decoy (--mode check), prints one ✓/✗ line per check, and counts them. */
export async function checkExercises(): Promise<{ passed: number; failed: number }> {
  const modules = await runCheckProjects();
  const checks = [...checkStubs(modules), ...checkDecoys(modules)];
  for (const check of checks) {
    console.log(`${check.ok ? pc.green("✓") : pc.red("✗")} ${check.name} — ${check.detail}`);
  }
  const failed = checks.filter((check) => !check.ok).length;
  return { passed: checks.length - failed, failed };
}

async function runCheckProjects(): Promise<TestModule[]> {
  // A silent reporter: failures are expected here, and the verdicts below are what matters.
  const vitest = await startVitest("test", [], { mode: "check", watch: false, reporters: [{}] });
  await vitest.close();
  return [...vitest.state.getTestModules()];
}

function testsOf(module: TestModule) {
  return [...module.children.allTests()];
}

function checkStubs(all: readonly TestModule[]): Check[] {
  const stubModules = all.filter((module) => module.project.name === "stubs");
  if (stubModules.length === 0) return [{ name: "stubs", ok: false, detail: "no exercise test files were run" }];
  return stubModules.map((module) => {
    const tests = testsOf(module);
    const passing = tests.filter((test) => test.result().state !== "failed");
    const name = `stubs: ${path.relative(root, module.moduleId)}`;
    if (tests.length === 0) return { name, ok: false, detail: "collected no tests" };
    if (passing.length === 0) return { name, ok: true, detail: `all ${tests.length} tests fail on the stub` };
    const names = passing.map((test) => `"${test.fullName}"`).join(", ");
    return { name, ok: false, detail: `${passing.length} test(s) pass on the untouched stub: ${names}` };
  });
}

function checkDecoys(all: readonly TestModule[]): Check[] {
  return decoys.map((decoy) => {
    const tests = all
      .filter((module) => module.project.name === `decoy:${decoy.name}`)
      .flatMap(testsOf);
    const caught = tests.filter((test) => test.result().state === "failed");
    const name = `decoy ${decoy.name} (${decoy.mistake})`;
    if (tests.length === 0) return { name, ok: false, detail: "its step's tests did not run" };
    if (caught.length === 0) return { name, ok: false, detail: `not caught: all ${tests.length} tests pass` };
    return { name, ok: true, detail: `caught by ${caught.length} of ${tests.length}, e.g. "${caught[0]?.name}"` };
  });
}
