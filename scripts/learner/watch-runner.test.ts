// What `npm run watch`'s runner reports for a learner's file, run for real: real learner files in a
// throwaway copy of the workbook (your own exercises/ are never touched), run by that copy's WatchRunner
// (vitest in a child process, the threads pool, hang.ts watching its workers, a warm TypeScript
// language service). One runner for every case below, on purpose: each start of vitest costs seconds of
// CPU, and a hang costs one more (the stuck process is killed and started afresh).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startsPrograms } from "../../chapters/05-session-log/testing/demo-testing.ts";
import { findStep, type Step } from "../steps.ts";
import { answerAsLearnerFile, copyWorkbook, type WorkbookCopy } from "../workbook-copy.ts";
import type { StepStatus } from "./status.ts";
import type { WatchRunner } from "./watch-runner.ts";

let copy: WorkbookCopy;
let runner: WatchRunner;
/** The copy's own classify: its files, its steps. */
let classify: (outcome: Awaited<ReturnType<WatchRunner["run"]>>[number], id: string) => StepStatus;

const step = (id: string): Step => findStep(id) ?? expect.fail(`no step ${id}`);
/** Saves a learner file, and tells the runner, as watch does on a save. */
function write(file: string, text: string): void {
  writeFileSync(path.join(copy.exercises, file), text);
  runner.changed(path.join(copy.exercises, file));
}
const shipped = (file: string) => readFileSync(path.join(copy.root, "scripts/maintainer/stubs/05-session-log", file), "utf8");
/** The line number (1-based) of the first line of the copy's learner `file` that contains `text`. */
const lineOf = (file: string, text: string) =>
  readFileSync(path.join(copy.exercises, file), "utf8")
    .split("\n")
    .findIndex((line) => line.includes(text)) + 1;
/** Changes the copy's `file` where `pattern` matches, and fails if it no longer does. */
function patch(file: string, pattern: RegExp, replacement: string): void {
  const source = readFileSync(path.join(copy.root, file), "utf8");
  expect(source, `${file} no longer matches ${pattern}`).toMatch(pattern);
  writeFileSync(path.join(copy.root, file), source.replace(pattern, replacement));
}
const retryLoop = (call: string) => `for (;;) {\n    try {\n      ${call}\n    } catch {\n      // try again\n    }\n  }`;

async function run(id: string): Promise<StepStatus> {
  const [outcome] = await runner.run([step(id)]);
  return classify(outcome ?? expect.fail("no outcome"), id);
}

beforeAll(async () => {
  copy = copyWorkbook("workbook-hang-");
  // The test's own time limit, short, so that the case it decides takes seconds, not 20 of them.
  patch("vitest.config.ts", /: 20_000,/, ": 3_000,");
  // A spinning test burns a core until the hang watch suspects it: from 1.5 s on, not 5 (the bound on
  // its event loop's turn, which decides, stays as shipped).
  patch("scripts/learner/hang.ts", /SUSPECT_AFTER_MS = 5000;/, "SUSPECT_AFTER_MS = 1500;");
  const { WatchRunner } = (await import(
    pathToFileURL(path.join(copy.root, "scripts/learner/watch-runner.ts")).href
  )) as typeof import("./watch-runner.ts");
  ({ classify } = (await import(pathToFileURL(path.join(copy.root, "scripts/learner/status.ts")).href)) as typeof import("./status.ts"));
  runner = await WatchRunner.start();
}, startsPrograms.timeout);
afterAll(async () => {
  await runner?.close();
  copy?.remove();
});

describe("npm run watch's runner on a real learner file", startsPrograms, () => {
  test("a wrong value with no file of yours on the stack points at the test's line and shows its code (05.1 returning its input)", async () => {
    // The decoy, moved from scripts/maintainer/decoys/ into the learner's folder: its imports one level up.
    const decoy = readFileSync(path.join(copy.root, "scripts/maintainer/decoys/json-freezes-input.ts"), "utf8");
    write("json.ts", decoy.replaceAll('"../../../chapters/', '"../../chapters/'));
    const status = await run("05.1");
    if (status.kind !== "failing") return expect.fail(`05.1 is ${status.kind}: ${JSON.stringify(status)}`);
    expect(status.first.at, "no learner file on the stack").toBeUndefined();
    expect(status.first.testAt?.where).toMatch(/^exercises\/05-session-log\/05\.1-freeze-json\.test\.ts:\d+:\d+$/);
    expect(status.first.testAt?.code).toMatch(/expect|thrownAs|caughtAs/);
  });

  test("a throw in json.ts caused by agent-loop.ts shows your frames from the caller down: agent-loop.ts → session.ts → json.ts", async () => {
    for (const id of ["05.1", "05.2", "05.3"]) write(step(id).file, answerAsLearnerFile(step(id)));
    write("agent-loop.ts", answerAsLearnerFile(step("05.5")).replace("reply.reasoning_content ?? null", "reply.reasoning_content"));
    const status = await run("05.5");
    if (status.kind !== "failing") return expect.fail(`05.5 is ${status.kind}: ${JSON.stringify(status)}`);
    expect(status.first.errors.join("\n")).toContain("reasoning_content");
    expect(status.first.at).toMatch(
      /^exercises\/05-session-log\/agent-loop\.ts:\d+:\d+ → exercises\/05-session-log\/session\.ts:\d+:\d+ → exercises\/05-session-log\/json\.ts:\d+:\d+$/,
    );
  });

  test("types: a file whose tests pass but which does not type-check gets its type errors from the warm language service, Chinese first, with file:line", async () => {
    write("json.ts", `${answerAsLearnerFile(step("05.1"))}\nexport const depth: number = "500";\n`);
    const [problems] = (await runner.types([path.join(copy.exercises, "json.ts")])) ?? [];
    expect(problems).toEqual([
      {
        file: "exercises/05-session-log/json.ts",
        line: lineOf("json.ts", 'depth: number = "500"'),
        column: 14,
        code: 2322,
        zh: ["不能将类型“string”分配给类型“number”。"],
        en: ["Type 'string' is not assignable to type 'number'."],
      },
    ]);
    // npm run progress: the same step, its tests passing, is not done.
    const { runSteps } = (await import(
      pathToFileURL(path.join(copy.root, "scripts/learner/progress.ts")).href
    )) as typeof import("./progress.ts");
    const [report] = await runSteps([step("05.1")]);
    expect(report?.status).toMatchObject({ kind: "mistyped", problems: [{ code: 2322, line: problems?.[0]?.line }] });
  });

  test("a blocking for (;;) is stopped within seconds, naming the test and the line it spins in, though its own time limit cannot fire", async () => {
    write("json.ts", shipped("json.ts").replace(/return todo\(\s*"05\.1"[^;]*;/, "let spins = 0;\n  for (;;) {\n    spins++;\n  }"));
    const status = await run("05.1");
    if (status.kind !== "hung") return expect.fail(`05.1 is ${status.kind}: ${JSON.stringify(status)}`);
    expect(status.first.name).toMatch(/^05\.1 /);
    expect(status.first.errors[0]).toMatch(/^这个测试运行了几秒还没结束，期间事件循环一次也没轮到，已停止/);
    expect(status.first.at).toBe(`exercises/05-session-log/json.ts:${lineOf("json.ts", "for (;;)")}:3`);
  });

  test("an async retry loop whose await never lets a timer run (a call that fails at once) is found the same way, at its line", async () => {
    write("json.ts", answerAsLearnerFile(step("05.1")));
    const call = "return (await options.client.chat({ system: options.systemPrompt, tools: [], messages: [] })) as never;";
    write("agent-loop.ts", shipped("agent-loop.ts").replace(/return todo\(\s*"05\.5"[^;]*;/, retryLoop(call)));
    const status = await run("05.5");
    if (status.kind !== "hung") return expect.fail(`05.5 is ${status.kind}: ${JSON.stringify(status)}`);
    expect(status.first.name).toMatch(/^05\.5 /);
    // Paused somewhere in the loop: at the call, or (under load, between two turns of it) at its head.
    const [loopHead, callLine] = [lineOf("agent-loop.ts", "for (;;)"), lineOf("agent-loop.ts", "options.client.chat")];
    const where = status.first.at ?? "";
    const line = Number(/exercises\/05-session-log\/agent-loop\.ts:(\d+):\d+/.exec(where)?.[1]);
    expect(line, `${where} is in the loop, lines ${loopHead}–${callLine}`).toBeGreaterThanOrEqual(loopHead);
    expect(line, `${where} is in the loop, lines ${loopHead}–${callLine}`).toBeLessThanOrEqual(callLine);
  });

  test("a test waiting on its own time limit is reported when that limit fires, not after the whole run's: the next tests do not each wait theirs", async () => {
    const wait = "await new Promise((retry) => setTimeout(retry, 50));";
    write("agent-loop.ts", shipped("agent-loop.ts").replace(/return todo\(\s*"05\.5"[^;]*;/, retryLoop(wait)));
    const status = await run("05.5");
    if (status.kind !== "hung") return expect.fail(`05.5 is ${status.kind}: ${JSON.stringify(status)}`);
    expect(status.first.name).toMatch(/^05\.5 /);
    expect(status.first.errors[0]).toMatch(/^这个测试超过了自己的时限（3 秒），已停止，其余测试没有运行/);
  });

  test("a run over the runner's own time limit is stopped and reported; the next run works on a fresh runner", async () => {
    for (const id of ["05.1", "05.2", "05.3"]) write(step(id).file, answerAsLearnerFile(step(id)));
    const before = runner.pid;
    const [stopped] = await runner.run([step("05.3")], 1);
    expect(stopped?.loadErrors[0]).toContain("were stopped: an endless loop, or code far too slow? Save to re-run.");
    expect(runner.pid, "the stuck child was killed and a new one started").not.toBe(before);
    expect(await run("05.3")).toMatchObject({ kind: "passed" });
  });
});
