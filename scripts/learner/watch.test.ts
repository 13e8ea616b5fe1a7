// The focused loop, driven with a fake runner: which step it runs, what it shows, how it moves on.
import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, cpSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { NotImplementedError } from "../../exercises/05-session-log/todo.ts";
import type { FileOutcome, TestOutcome } from "./step-runner.ts";
import type { TypeProblem } from "./type-problems.ts";
import { FlagsAnswer } from "../command.ts";
import { exercisesDir, findStep, shippedStubs, steps, type Step } from "../steps.ts";
import { onKeys, readWatchArgs, readWatchState, watchExercises, WatchLoop, type LoopOptions, type Runner } from "./watch.ts";
import { loadError } from "./step-runner.ts";
import { renderScreen, wrapAtSpaces } from "./watch-screen.ts";
import { resetFile } from "./reset.ts";
import { stepsImporting } from "./imports.ts";

const stubbed = (id: string): TestOutcome => ({
  name: `${id} > a rule`,
  state: "failed",
  errors: [new NotImplementedError(id, "x", "x").message],
  at: "exercises/05-session-log/json.ts:27:10",
});
const passing = (name: string): TestOutcome => ({ name, state: "passed", errors: [] });
const file = (...tests: TestOutcome[]): FileOutcome => ({ exists: true, loadErrors: [], tests });

/** A runner whose results are set per step id, recording which steps each run covered. */
class FakeRunner implements Runner {
  readonly results = new Map<string, FileOutcome>();
  readonly runs: string[][] = [];
  readonly changes: string[] = [];
  /** Set to check types (each file's type errors), as the real runner does. */
  types: Runner["types"];
  /** While set, runs wait for it: a run "in progress". */
  gate: Promise<void> | undefined;
  async run(list: readonly Step[]): Promise<FileOutcome[]> {
    this.runs.push(list.map((step) => step.id));
    await this.gate;
    return list.map((step) => this.results.get(step.id) ?? file(stubbed(step.id)));
  }
  changed(file: string): void {
    this.changes.push(file);
  }
  async close(): Promise<void> {}
}

/** What the flag table answered instead of arguments: the exit code and the text runMain prints. */
function answerTo(read: () => unknown): { exitCode: number; text: string } | undefined {
  try {
    read();
  } catch (error) {
    if (error instanceof FlagsAnswer) return { exitCode: error.exitCode, text: error.lines.join("\n") };
    throw error;
  }
  return undefined;
}

const three = ["05.1", "05.2", "05.3"].map((id) => findStep(id)!);

function loop(
  runner: FakeRunner,
  list: readonly Step[] = three,
  hint = (step: Step) => `hint for ${step.id}`,
  more: Partial<LoopOptions> = {},
) {
  const screens: string[] = [];
  const watch = new WatchLoop({ runner, list, hint, draw: (screen) => screens.push(plain(screen)), now: () => 0, ...more });
  return { watch, screens, last: () => screens[screens.length - 1] ?? "" };
}

describe("npm run watch", () => {
  test("starts by checking steps up to the first not passing, shows it with a progress bar, then checks the rest", async () => {
    const runner = new FakeRunner();
    runner.results.set("05.1", file(passing("a")));
    runner.results.set("05.3", file(passing("a")));
    const { watch, screens, last } = loop(runner);
    let release = () => {};
    runner.gate = new Promise((resolve) => (release = resolve));
    const started = watch.start();
    release();
    await started;
    const shown = screens.find((screen) => screen.includes("练习步骤 05.2 —"));
    expect(shown).toContain("05.2 ▰▱▱ 1/3");
    expect(shown).toContain(`练习步骤 05.2 — ${findStep("05.2")!.titleZh}`);
    expect(shown).toContain("正在检查练习步骤 / checking the steps …");
    await watch.settled();
    expect(runner.runs).toEqual([["05.1"], ["05.2"], ["05.3"]]);
    expect(last()).toContain("05.2 ▰▱▰ 2/3");
    expect(last()).toContain(
      "保存文件即重跑 / save a file to re-run · h 提示 / hint · l 列表 / list · d 用你的代码跑演示 / demo · q 退出 / quit",
    );
  });

  test("a save re-runs only the current step's tests, and shows the first failure's message and where", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    const wrong: TestOutcome = {
      name: "freezeJson > -0 is rejected",
      state: "failed",
      errors: ["expected [Function] to throw JsonValueError"],
      diff: "- Expected\n+ Received",
      at: "exercises/05-session-log/json.ts:20:3",
    };
    runner.results.set("05.1", file(passing("a"), wrong));
    await watch.saved("/repo/exercises/05-session-log/json.ts");
    expect(runner.runs.at(-1)).toEqual(["05.1"]);
    expect(runner.changes).toEqual(["/repo/exercises/05-session-log/json.ts"]);
    expect(last()).toContain("✗ 1/2 个测试失败 / 1 of 2 failing");
    expect(last()).toContain("第一个失败 / first failure: freezeJson > -0 is rejected");
    expect(last()).toContain("expected [Function] to throw JsonValueError");
    expect(last()).toContain("- Expected\n  + Received");
    expect(last()).toContain("在 / at exercises/05-session-log/json.ts:20:3");
    expect(last()).toContain("用时\u00a0/\u00a0took\u00a00.00\u00a0s");
  });

  test("when the step turns green it says so and moves on to the next, running it at once", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    runner.results.set("05.1", file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/json.ts");
    expect(runner.runs.slice(3)).toEqual([["05.1"], ["05.2"]]);
    expect(last()).toContain("✓ 练习步骤 05.1 通过！/ step 05.1 passes!");
    expect(last()).toContain("05.2 ▰▱▱ 1/3");
    expect(last()).toContain("练习步骤 05.2 —");
    expect(last()).toContain("not implemented yet — step 05.2");
  });

  test("types count: a step whose tests pass but whose file does not type-check is not done, and its type errors show Chinese first with file:line", async () => {
    const runner = new FakeRunner();
    const problem: TypeProblem = {
      file: "exercises/05-session-log/json.ts",
      line: 12,
      column: 7,
      code: 2322,
      zh: ["不能将类型“readonly ToolCall[]”分配给类型“JsonObject”。"],
      en: ["Type 'readonly ToolCall[]' is not assignable to type 'JsonObject'."],
    };
    const typed: string[][] = [];
    let problems: TypeProblem[] = [problem];
    runner.types = async (files) => {
      typed.push([...files]);
      return files.map((file) => (file.endsWith("/json.ts") ? problems : []));
    };
    const onTypes: number[] = [];
    const { watch, last } = loop(runner, three, undefined, { onTypes: (_reports, tookMs) => onTypes.push(tookMs) });
    await watch.start();
    await watch.settled();
    runner.results.set("05.1", file(passing("a"), passing("b")));
    await watch.saved(path.join(exercisesDir, "json.ts"));
    expect(typed.at(-1)?.[0]).toBe(path.join(exercisesDir, "json.ts"));
    expect(last(), "it stays on 05.1").toContain("练习步骤 05.1 —");
    expect(last()).not.toContain("✓ 练习步骤 05.1 通过！");
    expect(last()).toContain(
      "✗ 2 个测试都通过了，但文件有 1 个类型错误（CI 也检查类型）/ all 2 tests pass, but the file has 1 type error (CI checks types too)",
    );
    expect(last()).toContain("  exercises/05-session-log/json.ts:12:7  TS2322");
    expect(last()).toContain(
      "    不能将类型“readonly ToolCall[]”分配给类型“JsonObject”。 / Type 'readonly ToolCall[]' is not assignable to type 'JsonObject'.",
    );
    expect(last()).toContain("05.1 ▱▱▱ 0/3");
    expect(onTypes, "a save's type errors are timed (npm run bench:watch)").toHaveLength(1);
    problems = [];
    await watch.saved(path.join(exercisesDir, "json.ts"));
    expect(last()).toContain("✓ 练习步骤 05.1 通过！/ step 05.1 passes!");
    expect(last()).toContain("练习步骤 05.2 —");
  });

  test("a failing step's type errors show under its first failure, right after its result", async () => {
    const runner = new FakeRunner();
    let saved = false;
    const problem = {
      file: "exercises/05-session-log/json.ts",
      line: 3,
      column: 1,
      code: 2304,
      zh: ["找不到名称“x”。"],
      en: ["Cannot find name 'x'."],
    };
    runner.types = async (files) => files.map(() => (saved ? [problem] : []));
    const { watch, screens, last } = loop(runner);
    await watch.start();
    await watch.settled();
    saved = true;
    runner.results.set("05.1", file(passing("a"), { name: "05.1 > a rule", state: "failed", errors: ["wrong"] }));
    const before = screens.length;
    await watch.saved(path.join(exercisesDir, "json.ts"));
    const [result, withTypes] = screens.slice(before + 1);
    expect(result, "the test result first").toContain("✗ 1/2 个测试失败");
    expect(result).not.toContain("类型错误");
    expect(withTypes).toContain(
      "类型错误（1 个）/ type errors (1):\n  exercises/05-session-log/json.ts:3:1  TS2304\n    找不到名称“x”。 / Cannot find name 'x'.",
    );
    expect(last()).toContain("✗ 1/2 个测试失败");
  });

  test("a step already green is passed over too; all green says well done", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    for (const id of ["05.1", "05.2", "05.3"]) runner.results.set(id, file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/session.ts");
    expect(runner.runs.slice(3)).toEqual([["05.1"], ["05.2"], ["05.3"]]);
    expect(last()).toContain("✓ 练习步骤 05.3 通过！");
    expect(last()).toContain("全部练习步骤都通过了，做得好！/ Every step passes. Well done!");
    await watch.saved("/repo/exercises/05-session-log/session.ts");
    expect(runner.runs.at(-1), "once all pass, a save re-checks them all").toEqual(["05.1", "05.2", "05.3"]);
  });

  test("saves during a run are gathered into one more run", async () => {
    const runner = new FakeRunner();
    const { watch } = loop(runner);
    await watch.start();
    await watch.settled();
    let release = () => {};
    runner.gate = new Promise((resolve) => (release = resolve));
    const first = watch.saved("/repo/a.ts");
    await new Promise((resolve) => setImmediate(resolve)); // the first save's run is under way
    const second = watch.saved("/repo/b.ts");
    const third = watch.saved("/repo/c.ts");
    release();
    await Promise.all([first, second, third]);
    expect(runner.runs.slice(3), "the first save's run, then one for the two saves made meanwhile").toEqual([["05.1"], ["05.1"]]);
  });

  test("keys: h shows the next hint of the current step, l the list of every step, q quits", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    expect(watch.key("h")).toBe(true);
    expect(last()).toContain("hint for 05.1");
    expect(watch.key("l")).toBe(true);
    expect(last()).toContain("全部练习步骤 / every step");
    expect(last()).toContain(`· 05.3  ${findStep("05.3")!.titleZh}`);
    watch.key("l");
    expect(last()).not.toContain("全部练习步骤 / every step");
    expect(watch.key("q")).toBe(false);
    expect(watch.key("ctrl-c"), "Ctrl-C in raw mode").toBe(false);
  });

  test("a challenge step is labelled as one, after the book's steps", async () => {
    const runner = new FakeRunner();
    const challenge: Step = { ...findStep("05.3")!, id: "05.9", kind: "challenge" };
    for (const step of steps) runner.results.set(step.id, file(passing("a")));
    const { watch, last } = loop(runner, [...steps, challenge]);
    await watch.start();
    await watch.settled();
    expect(last()).toContain("练习步骤 05.9 — 挑战 / challenge · ");
    expect(last()).toContain(`05.9 ${"▰".repeat(steps.length)}▱ ${steps.length}/${steps.length + 1}`);
  });
});

describe("npm run watch: any step, at once", () => {
  test("npm run watch -- 05.3 shows 05.3 first, though 05.1 does not pass; it stays when it passes, and n goes on in order", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner, three, undefined, { focus: findStep("05.3")! });
    await watch.start();
    await watch.settled();
    expect(runner.runs, "the named step first, the others after, one a run, in the background").toEqual([["05.3"], ["05.1"], ["05.2"]]);
    expect(last()).toContain(`练习步骤 05.3 — ${findStep("05.3")!.titleZh}`);
    expect(last()).toContain("05.3 ▱▱▱ 0/3");
    watch.key("h");
    expect(last(), "h gives a hint for the step on screen").toContain("hint for 05.3");
    runner.results.set("05.3", file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/projection.ts");
    expect(runner.runs.slice(3), "a save re-runs the named step, and nothing else here").toEqual([["05.3"]]);
    expect(last()).toContain("✓ 练习步骤 05.3 通过！");
    expect(last(), "the step asked for by name stays on screen").toContain("练习步骤 05.3 —");
    expect(last()).toContain("✓ 通过 / passed (1)");
    expect(last()).toContain("这个练习步骤留在屏幕上，直到你换一个 / this step stays on screen until you move on");
    expect(last()).toContain("按顺序的下一个没通过的练习步骤是 05.1，按 n 过去 / the next step not passing is 05.1: press n");
    watch.key("n");
    expect(last(), "n: the first step not passing, in order").toContain("练习步骤 05.1 —");
    expect(last()).not.toContain("按 n 过去");
  });

  test("npm run watch -- 05.2 shows 05.2 even when its last known state is passed, not the first step not passing", () => {
    const runner = new FakeRunner();
    runner.gate = new Promise(() => {}); // the tests never answer: this is the first screen
    const lastKnown = { "05.2": { kind: "passed", total: 4 } } as const;
    const { watch, last } = loop(runner, three, undefined, { focus: findStep("05.2")!, lastKnown });
    void watch.start();
    expect(last()).toContain("练习步骤 05.2 —");
    expect(last()).toContain("✓ 通过 / passed (4)");
  });

  test("l lists every step with a cursor on the one on screen: ↓/↑ (or j/k) move it, Enter shows that step, which stays", async () => {
    const runner = new FakeRunner();
    runner.results.set("05.1", file(passing("a")));
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    expect(last()).toContain("练习步骤 05.2 —");
    watch.key("l");
    expect(last()).toContain("↑/↓ 选择，回车打开这个练习步骤，l 关上列表 / ↑/↓ choose, Enter open that step, l close the list");
    expect(last()).toMatch(/^▶ · 05\.2 /mu);
    for (const key of ["up", "up", "k"]) watch.key(key);
    expect(last(), "up, up and k stop at the first step").toMatch(/^▶ ✓ 05\.1 /mu);
    for (const key of ["down", "j", "j"]) watch.key(key);
    expect(last(), "down, j and j stop at the last").toMatch(/^▶ · 05\.3 /mu);
    watch.key("return");
    expect(last()).not.toContain("全部练习步骤 / every step");
    expect(last()).toContain("练习步骤 05.3 —");
    runner.results.set("05.3", file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/projection.ts");
    expect(last(), "a picked step is one asked for by name: it stays").toContain("练习步骤 05.3 —");
    expect(last()).toContain("the next step not passing is 05.2: press n · l 选一个练习步骤 / l pick a step");
    watch.key("l");
    watch.key("j");
    watch.key("l");
    expect(last(), "l again closes the list and changes nothing").toContain("练习步骤 05.3 —");
  });

  test("a save re-runs the current step, then every step whose tests import the saved file; a step it broke is said, the list shows what it found", async () => {
    const runner = new FakeRunner();
    for (const id of ["05.1", "05.2"]) runner.results.set(id, file(passing("a")));
    const asked: string[][] = [];
    // 05.2 and 05.3's tests import session.ts (05.3's through another file); 05.1's do not.
    const dependents = (files: readonly string[], list: readonly Step[]) => {
      asked.push([...files]);
      return files.some((saved) => saved.endsWith("session.ts")) ? list.filter((step) => step.id !== "05.1") : [];
    };
    const { watch, last } = loop(runner, three, undefined, { focus: findStep("05.1")!, dependents });
    await watch.start();
    await watch.settled();
    const broken: TestOutcome = { name: "05.2 > ids count from 0", state: "failed", errors: ["expected 1 to be 0"] };
    runner.results.set("05.2", file(passing("a"), broken));
    await watch.saved("/repo/exercises/05-session-log/session.ts");
    expect(asked).toEqual([["/repo/exercises/05-session-log/session.ts"]]);
    expect(runner.runs.at(-1), "the step on screen first: its result does not wait for the others").toEqual(["05.1"]);
    await watch.settled();
    expect(runner.runs.slice(-2), "then, one step a run, the steps whose tests import session.ts").toEqual([["05.2"], ["05.3"]]);
    expect(last(), "05.1 stays on screen").toContain("练习步骤 05.1 —");
    expect(last()).toContain(
      "✗ 练习步骤 05.2 原来通过，这次保存后不通过了 / step 05.2 passed before this save and fails now " +
        `${findStep("05.2")!.titleZh} — 按 l 打开列表，选中它，看它第一个失败的测试 / pick it in the list (l) to see its first failure`,
    );
    watch.key("l");
    expect(last()).toContain(`✗ 05.2  ${findStep("05.2")!.titleZh} — 1/2 个测试失败 / 1 of 2 failing`);
    expect(last()).not.toContain("上次");
    watch.key("j");
    watch.key("return");
    expect(last()).toContain("第一个失败 / first failure: 05.2 > ids count from 0");
  });

  test("results that still hold (files unchanged since their tests ran) open the watch on the right step at once, and are not run again", async () => {
    const runner = new FakeRunner();
    let release = () => {};
    runner.gate = new Promise((resolve) => (release = resolve));
    const held = new Map([["05.1", { kind: "passed", total: 86 } as const]]);
    const { watch, screens } = loop(runner, three, undefined, { held });
    const started = watch.start();
    expect(screens[0], "05.1 passes, as its kept results say: 05.2 is on the first screen").toContain("练习步骤 05.2 —");
    expect(screens[0]).toContain("05.2 ▰▱▱ 1/3");
    release();
    await started;
    await watch.settled();
    expect(runner.runs.flat(), "05.1 is not run again").not.toContain("05.1");
    expect(
      screens.every((screen) => screen.includes("练习步骤 05.2 —")),
      "it never shows 05.1 first",
    ).toBe(true);
  });

  test("a held step after the one on screen is type-checked at the start, not run again: tests that pass with a file that does not type-check are not done", async () => {
    const runner = new FakeRunner();
    const problem: TypeProblem = {
      file: "exercises/05-session-log/projection.ts",
      line: 4,
      column: 2,
      code: 2304,
      zh: ["找不到名称“x”。"],
      en: ["Cannot find name 'x'."],
    };
    const typed: string[] = [];
    runner.types = async (files) => {
      typed.push(...files);
      return files.map((file) => (file === path.join(exercisesDir, findStep("05.3")!.file) ? [problem] : []));
    };
    const held = new Map([["05.3", { kind: "passed", total: 32 } as const]]);
    const { watch, last } = loop(runner, three, undefined, { held });
    await watch.start();
    await watch.settled();
    expect(runner.runs.flat(), "05.3's results hold: its tests are not run again").not.toContain("05.3");
    expect(typed, "its file is type-checked").toContain(path.join(exercisesDir, findStep("05.3")!.file));
    expect(watch.reports.find((report) => report.step.id === "05.3")?.status.kind, "passing tests with a type error are not done").toBe(
      "mistyped",
    );
    expect(last(), "the progress bar does not count it").toContain("▱▱▱ 0/3");
  });

  test("the first screen shows the current step's last known state before any test has run, then the new one", async () => {
    const runner = new FakeRunner();
    let release = () => {};
    runner.gate = new Promise((resolve) => (release = resolve));
    const remembered: Record<string, unknown>[] = [];
    const wrong: TestOutcome = { name: "05.2 > ids count from 0", state: "failed", errors: ["expected 1 to be 0"] };
    const lastKnown = { "05.1": { kind: "passed", total: 3 }, "05.2": { kind: "failing", failing: 1, total: 2, first: wrong } } as const;
    const { watch, screens, last } = loop(runner, three, undefined, { lastKnown, remember: (states) => remembered.push(states) });
    const started = watch.start();
    expect(screens, "drawn before the runner answered").toHaveLength(1);
    expect(screens[0]).toContain("练习步骤 05.2 —");
    expect(screens[0]).toContain("✗ 1/2 个测试失败 / 1 of 2 failing  （上次的结果，正在重新检查 / last known, checking again …）");
    expect(screens[0]).toContain("expected 1 to be 0");
    expect(screens[0]).toContain("05.2 ▰▱▱ 1/3");
    runner.results.set("05.1", file(passing("a")));
    release();
    await started;
    await watch.settled();
    expect(last()).toContain("not implemented yet — step 05.2");
    expect(last()).not.toContain("上次的结果");
    expect(Object.keys(remembered.at(-1) ?? {}), "every step's new state is kept for the next start").toEqual(["05.1", "05.2", "05.3"]);
  });

  test("a saved state that is not JSON, or an entry not in the shape the screen draws, is no state", ({ dir }) => {
    const file = path.join(dir, "watch-state.json");
    writeFileSync(file, "{ torn");
    expect(readWatchState(file)).toEqual({});
    const first = { name: "a rule", state: "failed", errors: ["no"] };
    const failing = { kind: "failing", failing: 1, total: 2, first };
    writeFileSync(
      file,
      JSON.stringify({
        "05.1": { kind: "passed", total: 3 },
        "05.2": failing,
        "05.3": { kind: "failing" },
        p2: { kind: "new" },
        // Each one field short of what the screen and the list (l) draw: "undefined/2", or a crash.
        p3: { kind: "not-started", total: 2, first },
        p4: { kind: "waiting", total: 2, waitsOn: ["05.2"] },
        "05.6": { kind: "failing", failing: 1, total: 2, first: { name: "a rule", errors: ["no"] } },
      }),
    );
    expect(readWatchState(file)).toEqual({ "05.1": { kind: "passed", total: 3 }, "05.2": failing });
  });

  test("the command line: one step id; --help and anything else answer like the other commands", () => {
    expect(readWatchArgs([])).toEqual({ focus: undefined });
    expect(readWatchArgs(["05.6"])).toEqual({ focus: findStep("05.6") });
    expect(answerTo(() => readWatchArgs(["--help"]))).toMatchObject({
      exitCode: 0,
      text: expect.stringContaining("npm run watch -- <练习步骤 / step>"),
    });
    expect(answerTo(() => readWatchArgs(["--bogus"]))).toMatchObject({
      exitCode: 2,
      text: expect.stringContaining("用法错误：没有 --bogus 这个选项，可用的选项见下 / Usage error:"),
    });
    expect(() => readWatchArgs(["5.6"])).toThrow(`没有练习步骤 "5.6" / unknown step "5.6"`);
    expect(() => readWatchArgs(["05.1", "05.2"])).toThrow("expected one step id");
  });
});

describe("npm run watch: noticing saves", () => {
  test("a saved .ts file is reported once; backups, hidden folders and other files are not", async ({ dir }) => {
    mkdirSync(path.join(dir, ".backup"));
    const seen: string[] = [];
    const saved = new Promise<void>((resolve) => {
      const watcher = watchExercises((file) => {
        seen.push(file);
        watcher.close();
        resolve();
      }, dir);
      writeFileSync(path.join(dir, ".backup", "json.ts"), "x");
      writeFileSync(path.join(dir, "notes.md"), "x");
      writeFileSync(path.join(dir, "json.ts"), "a");
      writeFileSync(path.join(dir, "json.ts"), "ab");
    });
    await saved;
    expect(seen).toEqual([path.join(dir, "json.ts")]);
  });

  test("a file replaced by a rename (a safe save, sed -i, npm run reset) is still seen, and so is every save after it", async ({ dir }) => {
    mkdirSync(path.join(dir, "given"));
    const file = path.join(dir, "json.ts");
    writeFileSync(file, "export const a = 1;\n");
    const saves: string[] = [];
    let heard: (() => void) | undefined;
    const watcher = watchExercises((saved) => {
      saves.push(saved);
      heard?.();
    }, dir);
    /** Does `save`, then waits until the watch reports `expected` (vitest's timeout ends a save never seen). */
    const seen = async (how: string, save: () => void, expected = file) => {
      saves.length = 0;
      const reported = new Promise<void>((resolve) => (heard = () => saves.includes(expected) && resolve()));
      save();
      await reported;
      expect(saves, how).toContain(expected);
    };
    try {
      const inPlace = (text: string) => () => appendFileSync(file, text);
      await seen("renamed over the file", () => {
        writeFileSync(`${file}.tmp~`, "export const b = 2;\n");
        renameSync(`${file}.tmp~`, file);
      });
      await seen("written in place after the rename", inPlace("export const c = 3;\n"));
      await seen("sed -i", () => execFileSync("sed", ["-i", "s/^/ /;s/^ //", file]));
      await seen("written in place after sed -i", inPlace("export const d = (;\n"));
      const stub = path.join(dir, "stub.ts.txt");
      writeFileSync(stub, "export const stub = 0;\n");
      await seen("npm run reset", () => resetFile(file, stub, path.join(dir, ".backup")));
      await seen("written in place after the reset", inPlace("export const e = 5;\n"));
      await seen("a file in a folder inside", () => writeFileSync(path.join(dir, "given", "x.ts"), "x"), path.join(dir, "given", "x.ts"));
    } finally {
      watcher.close();
    }
  });
});

describe("the screen shows failure text, never obeys it", () => {
  test("a failing test's name, message and diff with escape sequences are written out; the diff's own colours go", () => {
    const first: TestOutcome = {
      name: "rule \x1b]0;pwned\x07",
      state: "failed",
      errors: ["expected '\x1b]52;c;eA==\x07' to be 'x'"],
      diff: "\x1b[32m- Expected\x1b[39m\n\x1b[31m+ Received\x1b[39m\n\n\x1b[31m+ \x1b[2K\r结构检查: ok\x1b[39m",
    };
    const screen = renderScreen({ reports: [{ step: three[0]!, status: { kind: "failing", failing: 1, total: 1, first } }] });
    for (const obeyed of ["\x1b]0;", "\x1b]52;", "\x1b[2K", "\r"]) expect(screen).not.toContain(obeyed);
    const text = plain(screen);
    expect(text).toContain("rule \\x1b]0;pwned\\x07");
    expect(text).toContain("expected '\\x1b]52;c;eA==\\x07' to be 'x'");
    expect(text).toContain("  - Expected\n  + Received");
    expect(text).toContain("+ \\r结构检查: ok");
  });

  test("a file that does not parse is named with its line and column in words, and the code it points at; no colour codes", () => {
    // What vitest 4.1 (Vite 8's parser) reports for `export const broken = (;` saved as line 30 of json.ts.
    const paint = (code: string) => `\x1b[38;5;${code}m`;
    const message =
      `Transform failed with 1 error:\n\n\x1b[31m[PARSE_ERROR] \x1b[0mUnexpected token\n` +
      `    ${paint("246")}╭\x1b[0m${paint("246")}─\x1b[0m${paint("246")}[\x1b[0m exercises/05-session-log/json.ts:30:24 ${paint("246")}]\x1b[0m\n` +
      `    ${paint("246")}│\x1b[0m\n` +
      ` ${paint("246")}30 │\x1b[0m ${[..."export const broken = ("].map((c) => `${paint("249")}${c}\x1b[0m`).join("")};\n` +
      ` ${paint("240")}   │\x1b[0m                        ┬  \n` +
      ` ${paint("240")}   │\x1b[0m                        ╰── \n` +
      `${paint("246")}────╯\x1b[0m\n`;
    const reports = [{ step: three[0]!, status: { kind: "broken", message } as const }];
    const said = [
      "语法错误：exercises/05-session-log/json.ts 第 30 行第 24 列解析不了 / Syntax error: exercises/05-session-log/json.ts line 30, column 24 does not parse",
      "  Unexpected token",
      " 30 │ export const broken = (;",
      "    │                        ┬  ",
    ].join("\n");
    expect(loadError(message)).toBe(said);
    const screen = plain(renderScreen({ reports }));
    expect(screen).not.toContain("\\x1b");
    expect(screen).toContain("✗ 测试无法运行 / the tests could not run:\n  语法错误：exercises/05-session-log/json.ts 第 30 行第 24 列");
    expect(screen).toContain("   30 │ export const broken = (;");
    const list = plain(renderScreen({ reports, cursor: "05.1" }));
    expect(list, "the list (l) names it too").toContain("      语法错误：exercises/05-session-log/json.ts 第 30 行第 24 列解析不了");
  });
});

describe("the screen says which failures are the step's own", () => {
  test("a step whose failures all wait for another step says its own part passes; one with some says how many wait (05.3 while 05.2 is unfinished)", () => {
    const [s1, s2, s3] = three as [Step, Step, Step];
    const waiting = { kind: "waiting", failing: 2, total: 32, waitsOn: ["05.2"] } as const;
    const notStarted = { kind: "not-started", total: 63, waitsOn: ["05.2"], first: stubbed("05.2") } as const;
    const reports = [
      { step: s1, status: { kind: "passed", total: 86 } as const },
      { step: s2, status: notStarted },
      { step: s3, status: waiting },
    ];
    expect(plain(renderScreen({ reports, current: reports[2] }))).toContain(
      "… 你这一步自己的部分都通过了；另有 2/32 个测试在等 05.2 / your own part passes; 2 of 32 tests wait for 05.2",
    );
    const failing = { kind: "failing", failing: 3, total: 32, first: stubbed("05.3"), waiting: 2, waitsOn: ["05.2"] } as const;
    const broken = [...reports.slice(0, 2), { step: s3, status: failing }];
    expect(plain(renderScreen({ reports: broken, current: broken[2] }))).toContain(
      "✗ 3/32 个测试失败，其中 2 个在等 05.2 / 3 of 32 failing (2 of them wait for 05.2)",
    );
  });
});

describe("the screen fits the terminal and points only where it must", () => {
  test("a step a save broke that is the step on screen has its failure below: no pointer to the list", () => {
    const first: TestOutcome = { name: "05.1 > a rule", state: "failed", errors: ["wrong"] };
    const report = { step: three[0]!, status: { kind: "failing", failing: 1, total: 2, first } } as const;
    const onScreen = plain(renderScreen({ reports: [report], brokenNow: [three[0]!] }));
    expect(onScreen).toContain("✗ 练习步骤 05.1 原来通过，这次保存后不通过了 / step 05.1 passed before this save and fails now");
    expect(onScreen).toContain("第一个失败 / first failure: 05.1 > a rule");
    expect(onScreen).not.toContain("按 l 打开列表，选中它，看它第一个失败的测试");
    const elsewhere = plain(renderScreen({ reports: [report, { step: three[1]!, status: report.status }], brokenNow: [three[1]!] }));
    expect(elsewhere, "a step not on screen: the list leads to its failure").toContain(
      "— 按 l 打开列表，选中它，看它第一个失败的测试 / pick it in the list (l) to see its first failure",
    );
  });

  test("the footer's time stays whole with its label when the screen is wrapped: 用时 / took and 0.44 s on one line", () => {
    const report = { step: three[0]!, status: { kind: "passed", total: 86 } } as const;
    const screen = renderScreen({ reports: [report], current: report, focused: true, checking: true, tookMs: 440 });
    const lines = plain(wrapAtSpaces(screen, 160)).split("\n");
    expect(
      lines.some((line) => line.replace(/\u00a0/g, " ").includes("用时 / took 0.44 s")),
      `the label and the time on one line:\n${lines.slice(-3).join("\n")}`,
    ).toBe(true);
  });

  test("a step that passed before a save and now passes its tests but not the type check is said to have type errors, not to fail", () => {
    const problem: TypeProblem = { file: "exercises/05-session-log/agent-loop.ts", line: 41, column: 34, code: 2322, zh: ["x"], en: ["x"] };
    const report = { step: three[0]!, status: { kind: "mistyped", total: 41, problems: [problem] } } as const;
    const onScreen = plain(renderScreen({ reports: [report], current: report, brokenNow: [three[0]!] }));
    expect(onScreen).toContain(
      "✗ 练习步骤 05.1 原来通过，这次保存后测试仍都通过，但文件有类型错误 / step 05.1 passed before this save; its tests still pass, but its file now has type errors",
    );
    expect(onScreen).not.toContain("不通过了");
  });
  test("lines longer than the terminal break at spaces, never inside a word, and keep their indent", () => {
    const message =
      "第 3 个事件的 id 为 5（应为 3）/ event #3 has id 5, expected 3: ID_MISMATCH while replaying reasoning_content of turn 1";
    const wrapped = plain(wrapAtSpaces(`  \x1b[31m${message}\x1b[39m\nshort`, 40)).split("\n");
    expect(wrapped.length).toBeGreaterThan(3);
    expect(wrapped.join(" ").replace(/\s+/g, " ").trim()).toBe(`${message} short`.replace(/\s+/g, " ").trim());
    for (const line of wrapped.slice(0, -1)) expect(line.startsWith("  "), `indent kept: "${line}"`).toBe(true);
    for (const word of ["ID_MISMATCH", "reasoning_content"])
      expect(
        wrapped.some((line) => line.includes(word)),
        word,
      ).toBe(true);
    for (const line of wrapped) expect(line.replace(/[\u4e00-\u9fff（）：]/gu, "..").length, `"${line}"`).toBeLessThanOrEqual(40);
    const frame = "  \x1b[31m     │                        ┬  \x1b[39m";
    expect(wrapAtSpaces(frame, 40), "a line that fits is left as it is: a code frame's mark keeps its column").toBe(frame);
  });
});

describe("npm run watch: which steps a save re-runs", () => {
  test("the steps whose test files import the saved file, directly or through another file, as the files stand now", ({ dir }) => {
    writeFileSync(path.join(dir, "json.ts"), "export const a = 1;\n");
    writeFileSync(path.join(dir, "session.ts"), 'import { a } from "./json.ts";\nexport const b = a;\n');
    writeFileSync(path.join(dir, "json.test.ts"), 'import { a } from "./json.ts";\n');
    writeFileSync(path.join(dir, "session.test.ts"), 'import type { b } from "./session.ts";\n');
    writeFileSync(path.join(dir, "other.test.ts"), 'import { x } from "../elsewhere.ts";\n');
    const [json, session, other] = three.map((step, index) => ({
      ...step,
      test: ["json.test.ts", "session.test.ts", "other.test.ts"][index]!,
    }));
    const list = [json!, session!, other!];
    const ids = (saved: string) => stepsImporting([path.join(dir, saved)], list, dir).map((step) => step.test);
    expect(ids("json.ts"), "session.test.ts reaches json.ts through session.ts").toEqual(["json.test.ts", "session.test.ts"]);
    expect(ids("session.ts")).toEqual(["session.test.ts"]);
    writeFileSync(path.join(dir, "other.test.ts"), 'import { b } from "./session.ts";\n');
    expect(ids("json.ts"), "an import added since is seen at the next save").toEqual(["json.test.ts", "session.test.ts", "other.test.ts"]);
  });

  test("the manifest's files and needs are not enough: 05.2's tests reach projection.ts through session.ts, and 05.6's wiring makes every Session step reach message-cache.ts", ({
    dir,
  }) => {
    // The workbook as shipped: the exercise folder with every learner file its shipped stub.
    cpSync(exercisesDir, dir, { recursive: true });
    for (const [learner, stub] of shippedStubs()) copyFileSync(stub, path.join(dir, path.basename(learner)));
    const byImports = (saved: string) => stepsImporting([path.join(dir, saved)], steps, dir).map((step) => step.id);
    const byManifest = (saved: string) =>
      steps.filter((step) => [step.id, ...step.needs].some((id) => findStep(id)?.file === saved)).map((step) => step.id);
    expect(byManifest("projection.ts"), "05.2 comes before 05.3: it cannot need it").not.toContain("05.2");
    expect(byImports("projection.ts")).toEqual(["05.2", "05.3", "05.4", "05.5", "05.6"]);
    expect(byImports("message-cache.ts"), "before the wiring, only 05.6's tests").toEqual(["05.6"]);
    appendFileSync(path.join(dir, "session.ts"), 'import { MessageCache } from "./message-cache.ts";\n');
    expect(byImports("message-cache.ts"), "after it, every step whose tests load session.ts").toEqual([
      "05.2",
      "05.3",
      "05.4",
      "05.5",
      "05.6",
    ]);
    expect(byManifest("message-cache.ts")).toEqual(["05.6"]);
  });

  test("keys are read as readline names them: an arrow is one key whether the terminal sends ESC [ or ESC O, Ctrl-C is ctrl-c", async () => {
    const input = new PassThrough();
    const keys: string[] = [];
    const escaped = new Promise<void>((resolve) =>
      onKeys(input, (key) => {
        keys.push(key);
        if (key === "escape") resolve();
      }),
    );
    input.write("\x1b[A\x1bOBjq\r\x03");
    input.write("\x1b"); // Esc alone: readline waits a moment for the rest of a sequence, then calls it a key
    await escaped;
    expect(keys).toEqual(["up", "down", "j", "q", "return", "ctrl-c", "escape"]);
  });
});
