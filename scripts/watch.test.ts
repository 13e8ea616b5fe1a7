// The focused loop, driven with a fake runner: which step it runs, what it shows, how it moves on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters as plain } from "node:util";
import { describe, expect, test } from "vitest";
import { NotImplementedError } from "../exercises/05-session-log/todo.ts";
import type { FileOutcome, TestOutcome } from "./step-runner.ts";
import { FlagsAnswer } from "./learner.ts";
import { findStep, steps, type Step } from "./steps.ts";
import { readWatchArgs, readWatchState, watchExercises, WatchLoop, type LoopOptions, type Runner } from "./watch.ts";
import { renderScreen } from "./watch-screen.ts";

const stubbed = (id: string): TestOutcome => ({
  name: `${id} > a rule`,
  state: "failed",
  errors: [new NotImplementedError(id, "x").message],
  at: "exercises/05-session-log/json.ts:27:10",
});
const passing = (name: string): TestOutcome => ({ name, state: "passed", errors: [] });
const file = (...tests: TestOutcome[]): FileOutcome => ({ exists: true, loadErrors: [], tests });

/** A runner whose results are set per step id, recording which steps each run covered. */
class FakeRunner implements Runner {
  readonly results = new Map<string, FileOutcome>();
  readonly runs: string[][] = [];
  readonly changes: string[] = [];
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
    expect(last()).toContain("保存文件即重跑 / save a file to re-run · h 提示 hint · l 列表 list · d 用你的代码跑演示 demo · q 退出 quit");
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
    expect(last()).toContain("用时 / took 0.00 s");
  });

  test("when the step turns green it says so and moves on to the next, running it at once", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    runner.results.set("05.1", file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/json.ts");
    expect(runner.runs.slice(2)).toEqual([["05.1"], ["05.2"]]);
    expect(last()).toContain("✓ 练习步骤 05.1 通过！/ step 05.1 passes!");
    expect(last()).toContain("05.2 ▰▱▱ 1/3");
    expect(last()).toContain("练习步骤 05.2 —");
    expect(last()).toContain("not implemented yet — step 05.2");
  });

  test("a step already green is passed over too; all green says well done", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    for (const id of ["05.1", "05.2", "05.3"]) runner.results.set(id, file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/session.ts");
    expect(runner.runs.slice(2)).toEqual([["05.1"], ["05.2"], ["05.3"]]);
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
    expect(runner.runs.slice(2), "the first save's run, then one for the two saves made meanwhile").toEqual([["05.1"], ["05.1"]]);
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
    expect(watch.key("\u0003"), "Ctrl-C in raw mode").toBe(false);
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
  test("npm run watch -- 05.3 shows 05.3 first, though 05.1 does not pass, and moves on to 05.1 once 05.3 passes", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner, three, undefined, { focus: findStep("05.3")! });
    await watch.start();
    await watch.settled();
    expect(runner.runs, "the named step first, the others after, in the background").toEqual([["05.3"], ["05.1", "05.2"]]);
    expect(last()).toContain(`练习步骤 05.3 — ${findStep("05.3")!.titleZh}`);
    expect(last()).toContain("05.3 ▱▱▱ 0/3");
    watch.key("h");
    expect(last(), "h gives a hint for the step on screen").toContain("hint for 05.3");
    runner.results.set("05.3", file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/projection.ts");
    expect(runner.runs[2], "a save re-runs the named step").toEqual(["05.3"]);
    expect(last()).toContain("✓ 练习步骤 05.3 通过！");
    expect(last()).toContain("练习步骤 05.1 —");
  });

  test("after a step turns green, the list (l) shows the others as they are now, not as before the save", async () => {
    const runner = new FakeRunner();
    const { watch, last } = loop(runner);
    await watch.start();
    await watch.settled();
    // One save finishes 05.1 and, in a file the watch does not re-run, 05.3 too.
    runner.results.set("05.1", file(passing("a")));
    runner.results.set("05.3", file(passing("a")));
    await watch.saved("/repo/exercises/05-session-log/projection.ts");
    await watch.settled();
    watch.key("l");
    await watch.settled();
    expect(last()).toContain(`✓ 05.3  ${findStep("05.3")!.titleZh} — 通过 / passed`);
    expect(last()).toContain(`✓ 05.1  ${findStep("05.1")!.titleZh} — 通过 / passed`);
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

  test("a saved state that is not JSON, or an entry not in the shape the screen draws, is no state", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "workbook-watch-state-"));
    const file = path.join(dir, "watch-state.json");
    try {
      writeFileSync(file, "{ torn");
      expect(readWatchState(file)).toEqual({});
      const failing = { kind: "failing", failing: 1, total: 2, first: { name: "a rule", state: "failed", errors: ["no"] } };
      writeFileSync(
        file,
        JSON.stringify({ "05.1": { kind: "passed", total: 3 }, "05.2": failing, "05.3": { kind: "failing" }, p2: { kind: "new" } }),
      );
      expect(readWatchState(file)).toEqual({ "05.1": { kind: "passed", total: 3 }, "05.2": failing });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the command line: one step id; --help and anything else answer like the other commands", () => {
    expect(readWatchArgs([])).toEqual({ focus: undefined });
    expect(readWatchArgs(["05.6"])).toEqual({ focus: findStep("05.6") });
    expect(answerTo(() => readWatchArgs(["--help"]))).toMatchObject({
      exitCode: 0,
      text: expect.stringContaining("npm run watch -- <练习步骤 step>"),
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
  test("a saved .ts file is reported once; backups, hidden folders and other files are not", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "workbook-watch-"));
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
    rmSync(dir, { recursive: true, force: true });
    expect(seen).toEqual([path.join(dir, "json.ts")]);
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
});
