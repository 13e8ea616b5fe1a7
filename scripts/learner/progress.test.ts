import { readFileSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { NotImplementedError } from "../../exercises/05-session-log/todo.ts";
import { progressBar, renderProgress, runningNote, runSteps } from "./progress.ts";
import { classify, nextStep, type StepReport } from "./status.ts";
import type { FileOutcome, TestOutcome } from "./step-runner.ts";
import { guideLink, steps, type Step } from "../steps.ts";

// The message a stub's todo() throws, as a test report keeps it.
const stubError = (step: string) => new NotImplementedError(step, "freezeJson", "freezeJson").message;

const passed = (name: string): TestOutcome => ({ name, state: "passed", errors: [] });
const failed = (name: string, ...errors: string[]): TestOutcome => ({ name, state: "failed", errors });
const file = (...tests: TestOutcome[]): FileOutcome => ({ exists: true, loadErrors: [], tests });

describe("npm run progress: classifying a step's results", () => {
  test("every test passed → passed", () => {
    expect(classify(file(passed("a"), passed("b")))).toEqual({ kind: "passed", total: 2 });
  });

  test("skipped tests are not counted", () => {
    expect(classify(file(passed("a"), { name: "b", state: "skipped", errors: [] }))).toEqual({
      kind: "passed",
      total: 1,
    });
  });

  test("every test stopped at a stub → not started", () => {
    const a = failed("a", stubError("05.1"));
    expect(classify(file(a, failed("b", stubError("05.1"))))).toEqual({
      kind: "not-started",
      total: 2,
      waitsOn: ["05.1"],
      first: a,
    });
  });

  test("a property test's stub error is found in its cause", () => {
    const wrapped = failed("prop", 'Property failed after 1 tests\n{ seed: 42, path: "0" }', stubError("05.2"));
    expect(classify(file(wrapped, failed("b", stubError("05.4"))))).toMatchObject({
      kind: "not-started",
      waitsOn: ["05.2", "05.4"],
    });
  });

  test("nothing passes and some tests still stop at a stub → not started (a stub's empty value fails assertions)", () => {
    const assertion = failed("append rejects a bad path", "expected function to throw an error, but it didn't");
    expect(classify(file(assertion, failed("c", stubError("p2"))))).toEqual({
      kind: "not-started",
      total: 2,
      waitsOn: ["p2"],
      first: assertion,
    });
  });

  test("some tests pass, or no failure is a stub error → n of m failing", () => {
    const assertion = failed("ids count from 0", "expected 1 to be +0 // Object.is equality");
    expect(classify(file(passed("a"), failed("c", stubError("05.2")), assertion))).toEqual({
      kind: "failing",
      failing: 2,
      total: 3,
      first: assertion,
      waiting: 1,
      waitsOn: ["05.2"],
    });
    expect(classify(file(assertion, failed("b", "boom")))).toMatchObject({ kind: "failing", failing: 2, total: 2 });
  });

  test("some tests pass and every failure stops at another step's stub → waiting for that step", () => {
    const tests = file(passed("a"), failed("b", stubError("05.3")), failed("c", stubError("05.3")));
    expect(classify(tests, "05.4")).toEqual({ kind: "waiting", failing: 2, total: 3, waitsOn: ["05.3"] });
    expect(classify(tests, "05.3"), "a failure at the step's own stub is its own").toMatchObject({ kind: "failing" });
  });

  test("a file that does not load → broken; a file that does not exist → missing", () => {
    const broken: FileOutcome = { exists: true, loadErrors: ["Cannot find module './json.ts'"], tests: [] };
    expect(classify(broken)).toEqual({ kind: "broken", message: "Cannot find module './json.ts'" });
    expect(classify({ exists: true, loadErrors: [], tests: [] })).toEqual({ kind: "broken", message: "no test ran" });
    expect(classify({ exists: false, loadErrors: [], tests: [] })).toEqual({ kind: "missing" });
  });
});

describe("npm run progress: the report", () => {
  const [s1, s2, s3] = steps;
  const reports: StepReport[] = [
    { step: s1!, status: { kind: "passed", total: 20 } },
    {
      step: s2!,
      status: {
        kind: "failing",
        failing: 3,
        total: 12,
        first: failed("05.2 > ids count from 0", "expected 1 to be 0"),
      },
    },
    { step: s3!, status: { kind: "not-started", total: 9, waitsOn: [s3!.id], first: failed("x", stubError(s3!.id)) } },
  ];

  test("two lines per step, Chinese with the English beside, then the first step not passed as next", () => {
    const text = plain(renderProgress(reports));
    expect(text).toContain(`✓ ${s1!.id}  ${s1!.titleZh} — 通过 / passed (20 个测试 / tests)`);
    expect(text).toContain(`${s1!.title} · 对应书中 ${s1!.bookSection}`);
    expect(text, "no brackets nested in brackets").not.toMatch(/\([^()]*\(/);
    expect(text).toContain(`✗ ${s2!.id}  ${s2!.titleZh} — 3/12 个测试失败 / 3 of 12 failing`);
    expect(text).toContain(`· ${s3!.id}  ${s3!.titleZh} — 未开始 / not started`);
    expect(text).toContain("05.2 第一个失败的测试 / first failing test: 05.2 > ids count from 0\n  expected 1 to be 0");
    expect(text).toContain(`下一步 / next: 练习步骤 ${s2!.id} — ${s2!.titleZh} / ${s2!.title}`);
    expect(text.split("\n"), "commands stand on their own, nothing after them").toEqual(
      expect.arrayContaining([
        expect.stringMatching(/npm run watch$/),
        expect.stringMatching(new RegExp(`${guideLink(s2!)}$`)),
        expect.stringMatching(new RegExp(`npm run hint -- ${s2!.id}$`)),
      ]),
    );
    expect(nextStep(reports)?.step.id).toBe(s2!.id);
  });

  test("a progress bar with one cell per step, filled when it passes", () => {
    expect(plain(progressBar(reports))).toBe("▰▱▱ 1/3");
  });

  test("a not-started step whose tests stop at another step's stub says which", () => {
    const status = {
      kind: "not-started",
      total: 2,
      waitsOn: ["05.2", s3!.id],
      first: failed("x", stubError("05.2")),
    } as const;
    const text = plain(renderProgress([{ step: s3!, status }]));
    expect(text).toContain("未开始 / not started · 测试还会用到还没完成的练习步骤 05.2 / its tests also need steps not done yet: 05.2");
  });

  test("a challenge step is labelled as one", () => {
    const challenge = { ...s1!, id: "05.9", kind: "challenge" } as const;
    const text = plain(renderProgress([{ step: challenge, status: { kind: "passed", total: 1 } }]));
    expect(text).toContain(`05.9  挑战 / challenge ${s1!.titleZh}`);
  });

  test("a failing step whose earlier steps are not done yet names them", () => {
    const s5 = steps.find((step) => step.id === "05.5")!;
    const failing = { kind: "failing", failing: 35, total: 40, first: failed("x", "boom") } as const;
    const text = plain(
      renderProgress([
        { step: s1!, status: { kind: "passed", total: 1 } },
        { step: s5, status: failing },
      ]),
    );
    expect(text).toContain(
      "35 of 40 failing · 测试还会用到还没完成的练习步骤 05.2、05.3 / its tests also need steps not done yet: 05.2, 05.3",
    );
  });

  test("the cause is derived from what fails: after npm run reset -- 05.6, 05.2–05.5 wait for 05.6, none of them is blamed, and 05.6 is next", () => {
    const byId = (id: string) => steps.find((step) => step.id === id)!;
    const waits = (failing: number, total: number) => ({ kind: "waiting", failing, total, waitsOn: ["05.6"] }) as const;
    const reports: StepReport[] = [
      { step: byId("05.1"), status: { kind: "passed", total: 86 } },
      { step: byId("05.2"), status: waits(48, 63) },
      { step: byId("05.3"), status: waits(2, 32) },
      { step: byId("05.4"), status: waits(66, 76) },
      {
        step: byId("05.5"),
        status: { kind: "failing", failing: 36, total: 41, first: failed("x", "boom"), waiting: 35, waitsOn: ["05.6"] },
      },
      { step: byId("05.6"), status: { kind: "not-started", total: 9, waitsOn: ["05.6"], first: failed("y", stubError("05.6")) } },
    ];
    const text = plain(renderProgress(reports));
    expect(text).toContain(
      "05.3  投影：哪些事件变成消息 — 你这一步自己的部分都通过了；另有 2/32 个测试在等 05.6 / your own part passes; 2 of 32 tests wait for 05.6",
    );
    expect(text).toContain(
      "36/41 个测试失败，其中 35 个在等 05.6 / 36 of 41 failing (35 of them wait for 05.6) · 测试还会用到还没完成的练习步骤 05.6 / its tests also need steps not done yet: 05.6",
    );
    expect(text, "05.2 and 05.3 are not the cause: they wait for 05.6 too").not.toMatch(/not done yet: 05\.2|also need: 05\.2/);
    expect(text).toMatch(/05\.6 {2}挑战 \/ challenge \S+ — 未开始 \/ not started\n/);
    expect(text).toContain(
      "练习步骤 05.2：你自己的部分都通过了，其余测试在等 05.6 / 05.2: your own part passes, its other tests wait for 05.6",
    );
    expect(text).toContain("下一步 / next: 练习步骤 05.6 —");
  });

  test("all passed: no Next line, a well done", () => {
    const text = plain(renderProgress([{ step: s1!, status: { kind: "passed", total: 1 } }]));
    expect(text).toContain("全部通过，做得好！/ Every step passes. Well done!");
    expect(text).not.toContain("下一步 / next:");
  });
});

describe("npm run progress: a real run", () => {
  // One step, to stay fast: whatever state the learner's file is in, its test file must be found and
  // run. This is what breaks if vitest's module ids and the step list stop matching.
  test("runs a step's test file through vitest's learner project; run again with its files unchanged, it runs nothing and says so", async ({
    dir,
  }) => {
    const step = steps.find((s) => s.id === "05.3") ?? steps[0]!;
    const resultsFile = path.join(dir, "results.json");
    const told: string[] = [];
    const onRun = (toRun: readonly Step[], held: number) => told.push(runningNote(toRun, held));
    const [report] = await runSteps([step], { resultsFile, onRun });
    expect(report?.step).toBe(step);
    expect(report?.status.kind, `${step.test} exists`).not.toBe("missing");
    expect(report?.status, `vitest ran ${step.test}`).not.toEqual({
      kind: "broken",
      message: "vitest did not run this file",
    });
    expect(told).toEqual(["正在运行练习步骤 05.3 的测试 / running the tests of 05.3 …"]);
    const [again] = await runSteps([step], { resultsFile, onRun });
    expect(told[1]).toBe(
      "所有练习步骤的文件自上次运行后都没有改过：沿用那次的结果 / every step's files are unchanged since their last run: those results stand …",
    );
    expect(again?.status).toEqual(report?.status);
    const kept = JSON.parse(readFileSync(resultsFile, "utf8")) as Record<string, { types?: unknown }>;
    expect(kept["05.3"]?.types, "its file's type errors are kept too (none here, or some): TypeScript need not start again").toBeInstanceOf(
      Array,
    );
  }, 120_000);

  test("what progress says before it runs: the steps it runs, how long that can take, and how many results still hold", () => {
    const some = steps.slice(0, 5);
    expect(runningNote(some, 8)).toBe(
      `正在运行练习步骤 ${some.map((s) => s.id).join("、")} 的测试（这要跑很多测试，机器忙时可能要半分钟）；其余 8 个练习步骤的文件自上次运行后没有改过，沿用那次的结果 / ` +
        `running the tests of ${some.map((s) => s.id).join(", ")} (many tests: up to half a minute on a busy machine); the other 8 steps' files are unchanged since their last run, so those results stand …`,
    );
  });
});

describe("failure text quotes the learner's code and the tests' data: shown, never obeyed", () => {
  test("a failing test's name and reason with escape sequences print them written out", () => {
    const first = failed("rule \x1b]0;pwned\x07", "expected '\x1b[2K\r结构检查: ok' to be 'x'");
    const step = steps[0]!;
    const text = renderProgress([{ step, status: { kind: "failing", failing: 1, total: 2, first } }]);
    expect(text).not.toContain("\x1b]0;");
    expect(text).not.toContain("\x1b[2K");
    expect(plain(text)).toContain("rule \\x1b]0;pwned\\x07");
    expect(plain(text)).toContain("expected '\\x1b[2K\\r结构检查: ok' to be 'x'");
  });

  test("a file that does not parse is named by its line and column in words, with no colour codes written out", () => {
    // The shape vitest 4.1 gives a parse error (see watch.test.ts for the whole of it): colours, then a box around file:line:column.
    const message =
      "Transform failed with 1 error:\n\n\x1b[31m[PARSE_ERROR] \x1b[0mUnexpected token\n" +
      "    \x1b[38;5;246m╭─[\x1b[0m exercises/05-session-log/json.ts:30:24 \x1b[38;5;246m]\x1b[0m\n" +
      " 30 │ export const broken = (;\n";
    const text = plain(renderProgress([{ step: steps[0]!, status: { kind: "broken", message } }]));
    expect(text, "progress shows the parse error as watch does (loadError in step-runner.ts)").toContain(
      "语法错误：exercises/05-session-log/json.ts 第 30 行第 24 列解析不了 / Syntax error: exercises/05-session-log/json.ts line 30, column 24 does not parse",
    );
    expect(text).not.toContain("\\x1b");
    expect(text).not.toContain("Transform failed");
  });
});
