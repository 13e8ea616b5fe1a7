// The workbook's promise, checked by every `npm test` (scripts/maintainer/test.ts) after the answers run:
//   1. every exercise test FAILS against the shipped stubs (scripts/maintainer/stubs/) — a test that passes on a
//      stub checks nothing;
//   2. every decoy (a plausible wrong answer, scripts/maintainer/decoys/) fails at least one test of its step;
//   3. each learner file in exercises/ is its shipped stub — required on a fresh clone (`--fresh-clone`,
//      as .ci/run runs it); in a learner's checkout a file they changed is only noted: it is their work.
import { readFileSync } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { startVitest, type TestModule } from "vitest/node";
import { decoyRunFile } from "./decoy-runs.ts";
import { todoCounts } from "./ship-stubs.ts";
import { decoys, root, shippedStubs } from "../steps.ts";

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * Runs the stubs and every decoy (--mode check), prints one ✓/✗ line per check, and counts them.
 * `run` is a check run already started (scripts/maintainer/test.ts starts it beside the answers run).
 */
export async function checkExercises(
  freshClone = false,
  run: Promise<TestModule[]> = runCheckProjects(),
): Promise<{ passed: number; failed: number }> {
  const modules = await run;
  const { checks: shipped, notes } = checkShipped(freshClone);
  const checks = [...checkStubs(modules), ...checkDecoys(modules), ...shipped];
  for (const check of checks) {
    console.log(`${check.ok ? pc.green("✓") : pc.red("✗")} ${check.name} — ${check.detail}`);
  }
  for (const note of notes) console.log(pc.yellow(`· ${note}`));
  const failed = checks.filter((check) => !check.ok).length;
  return { passed: checks.length - failed, failed };
}

export async function runCheckProjects(): Promise<TestModule[]> {
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
    const tests = all.filter((module) => module.moduleId === decoyRunFile(decoy)).flatMap(testsOf);
    const caught = tests.filter((test) => test.result().state === "failed");
    const name = `decoy ${decoy.name} (${decoy.mistake})`;
    if (tests.length === 0) return { name, ok: false, detail: "its step's tests did not run" };
    if (caught.length === 0) return { name, ok: false, detail: `not caught: all ${tests.length} tests pass` };
    // scripts/maintainer/decoy-setup.ts skips a decoy's tests after the first one that catches it.
    const skipped = tests.filter((test) => test.result().state === "skipped").length;
    return { name, ok: true, detail: `caught by "${caught[0]?.name}" (${skipped} of its ${tests.length} tests skipped after it)` };
  });
}

/**
 * Each learner file against its shipped copy: equal on a fresh clone, the learner's own work after that.
 * In a learner's checkout the files they changed are not checked, and one note says which and why.
 */
export function checkShipped(
  freshClone: boolean,
  stubs: ReadonlyMap<string, string> = shippedStubs(),
): { checks: Check[]; notes: string[] } {
  const checks: Check[] = [];
  const yours: string[] = [];
  for (const [learnerFile, shipped] of stubs) {
    const name = `shipped: ${path.relative(root, learnerFile)}`;
    const mine = readOrUndefined(learnerFile);
    const stub = readOrUndefined(shipped);
    if (stub === undefined) {
      checks.push({
        name,
        ok: false,
        detail: `no shipped copy ${path.relative(root, shipped)}: run \`npm run ship-stubs\``,
      });
    } else if (mine?.equals(stub)) {
      checks.push({
        name,
        ok: true,
        detail: `is the shipped stub ${path.relative(root, shipped)} (what reset restores)`,
      });
    } else if (freshClone || (mine !== undefined && hasNewTodos(mine.toString("utf8"), stub.toString("utf8")))) {
      // A learner replaces todo() calls and never writes new ones: a file with more of them than its
      // shipped copy is a stub a maintainer changed, whoever runs the check.
      checks.push({
        name,
        ok: false,
        detail: `differs from ${path.relative(root, shipped)}: a stub edited without \`npm run ship-stubs\`?`,
      });
    } else {
      yours.push(path.basename(learnerFile));
    }
  }
  return { checks, notes: yours.length === 0 ? [] : [skippedNote(yours)] };
}

/** Said once: the learner's own files were not checked against their stubs, and why that is fine. */
function skippedNote(yours: readonly string[]): string {
  const n = yours.length;
  return (
    `跳过了 ${n} 项检查：${yours.join("、")} 已经是你自己的版本，所以没有检查这些文件是否还是随附的原始桩（只有全新克隆才要求这样：\`npm test -- --fresh-clone\`）；` +
    "上面的练习测试照样对着随附的原始桩和诱饵运行，你的文件不影响结果。维护者：改了桩之后运行 `npm run ship-stubs`" +
    ` / ${n} check${n === 1 ? "" : "s"} skipped: ${yours.join(", ")} ${n === 1 ? "is" : "are"} your own work now, so whether ` +
    `${n === 1 ? "it is its" : "each is its"} shipped stub was not checked (only a fresh clone requires that: \`npm test -- --fresh-clone\`); ` +
    "the exercise tests above still ran against the shipped stubs and the decoys, whatever your files hold. " +
    "(Maintainers: after editing a stub, `npm run ship-stubs`.)"
  );
}

/** Whether `mine` calls todo() for some step more often than `shipped` does. */
export function hasNewTodos(mine: string, shipped: string): boolean {
  const shippedCounts = todoCounts(shipped);
  return [...todoCounts(mine)].some(([step, calls]) => calls > (shippedCounts.get(step) ?? 0));
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
