// `--mine`: the demo and the view on the learner's finished files. The swap is a resolve hook registered
// before the program loads, so these tests run `npm run demo -- --mine` as child processes. Which files
// count as the learner's comes from WORKBOOK_MINE_AS (a file name → the file standing as the learner's,
// done), so no test depends on, or touches, the files in exercises/.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { beforeAll, describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import {
  DEMO,
  ended,
  eventLines,
  programCommand,
  runInProcess,
  section,
  startProcess,
  startsPrograms,
  tsx,
  VIEW,
} from "../../chapters/05-session-log/testing/demo-testing.ts";
import { fixturePath, loadFixture } from "../../fixtures/fixture.ts";
import { startStandIn } from "../../fixtures/standin.ts";
import { replayScenario } from "../../chapters/05-session-log/testing/scenario-replay.ts";
import { classify } from "./status.ts";
import type { FileOutcome } from "./step-runner.ts";
import { checkSteps, demoSteps, resolveMapping, runDemoOnYourFiles, verdictOf, yourFiles, type CheckTests, type Verdict } from "./mine.ts";
import { NotImplementedError } from "../../exercises/05-session-log/todo.ts";
import { fingerprint } from "./results.ts";
import { answerFiles, chapterDir, exercisesDir, findStep, root, steps, type Step } from "../steps.ts";
import { WatchLoop } from "./watch.ts";

const KEY = "sk-mine-test-key-9f8e7d6c5b4a";
const chapter = (file: string) => `chapters/05-session-log/${file}`;
/** Every learner file the demo uses, standing as its answer: what the answers run does. */
const allAnswers = Object.fromEntries(demoSteps().map((step) => [step.file, path.relative(root, path.join(step.answerDir, step.file))]));

/** Runs `command args` with `as` as the learner's files; what it printed (stdout, then stderr) and its exit code. */
async function runWith([command = "", ...args]: readonly string[], as: Record<string, string> | undefined) {
  const run = await ended(startProcess(command, args, { WORKBOOK_MINE_AS: as === undefined ? "" : JSON.stringify(as) }));
  const text = `${run.stdout}${run.stderr}`.trimEnd();
  return { code: run.code, lines: text.split("\n"), text };
}

/**
 * Runs what `npm run demo|view -- ARGS` runs (package.json: tsx with the --mine preload), as one node
 * process: npm, its shell and the tsx CLI cost about 1.3 s of CPU a start and change nothing the
 * program does. The tests of npm's own part (`npm run demo --mine`, the watch's key d) go through npm.
 */
const run = (script: typeof DEMO | typeof VIEW, args: string[], as: Record<string, string> | undefined) =>
  runWith(programCommand(["--import", "./scripts/learner/mine-preload.ts", script, ...args]), as);

/** `npm run script [npmArgs] -- args`: the learner's command, npm and all. */
const npmRun = (script: "demo" | "view", npmArgs: string[], args: string[], as: Record<string, string> | undefined) =>
  runWith(["npm", "run", "--silent", script, ...npmArgs, "--", ...args], as);

const demo = (as: Record<string, string>, ...args: string[]) => run(DEMO, ["--mine", ...args], as);

/** `npx tsx chapters/05-session-log/demo.ts --mine …`, as the READMEs write it: no hook preloaded. */
const tsxDemo = (as: Record<string, string>, ...args: string[]) => runWith(["npx", "tsx", chapter("demo.ts"), "--mine", ...args], as);

/** A copy of a chapter file in `dir`, as a learner's file outside the repo would import it, with a change. */
function learnerCopy(dir: string, chapterFile: string, change: (source: string) => string): string {
  const from = path.dirname(path.join(chapterDir, chapterFile));
  const source = readFileSync(path.join(chapterDir, chapterFile), "utf8").replace(
    /from "(\.{1,2}\/[^"]+)"/g,
    (_, specifier: string) => `from "${pathToFileURL(path.resolve(from, specifier)).href}"`,
  );
  const file = path.join(dir, path.basename(chapterFile));
  writeFileSync(file, change(source));
  return file;
}

const learnerLoop = (dir: string, change: (source: string) => string) => learnerCopy(dir, "agent-loop.ts", change);

/** An escape sequence that would write to the clipboard (OSC 52), as a thrown message may carry it. */
const OSC52 = "\\u001b]52;c;aGk=\\u0007";

// Each test starts a program (about 3 s on a quiet machine); a loaded one can take many times that.
const spawns = startsPrograms;

describe("npm run demo -- --mine", spawns, () => {
  // In-process replays first, one at a time: each starts its own MSW interception, which the
  // concurrent tests below must not overlap.
  let plain: Awaited<ReturnType<typeof runInProcess>>;
  let crashed: readonly SessionEvent[];
  beforeAll(async () => {
    plain = await runInProcess([]);
    crashed = (await replayScenario("calculator")).session.events.slice(0, 6); // a crash while the calculator ran
  });

  test.concurrent("with every learner file replaced by its answer, ②–④ are the plain demo's, under a banner saying all are yours", async () => {
    const mine = await demo(allAnswers);
    expect(mine.code).toBe(0);
    expect(mine.lines[0]).toBe(
      "你的：json.ts、session.ts、projection.ts、agent-loop.ts、message-cache.ts、streamed-step.ts；答案：（没有）；用不到：log-file.ts（这次运行不读写日志文件）",
    );
    expect(mine.lines[1]).toBe(
      "Yours: json.ts, session.ts, projection.ts, agent-loop.ts, message-cache.ts, streamed-step.ts; the answers: none; not used: log-file.ts (this run reads and writes no log file)",
    );
    expect(mine.lines[2]).toBe(plain.lines[0]); // then the demo's own first line
    for (const marker of ["=== ②", "=== ③", "=== ④"]) expect(section(mine.lines, marker)).toEqual(section(plain.lines, marker));
    expect(eventLines(mine.lines)).toHaveLength(12);
  });

  test.concurrent("with one step at its stub, the banner names it and why, and the demo runs on the answer for it", async () => {
    const { "agent-loop.ts": _, ...rest } = allAnswers;
    const { code, lines, text } = await demo(rest);
    expect(lines[0]).toBe(
      "你的：json.ts、session.ts、projection.ts、message-cache.ts、streamed-step.ts；答案：agent-loop.ts（练习步骤 05.5 还是桩）；用不到：log-file.ts（这次运行不读写日志文件）",
    );
    expect(lines[1]).toContain("the answers: agent-loop.ts (step 05.5: still the stub)");
    expect(code).toBe(0);
    expect(text).toContain("重放派生 4 条消息，与原始派生逐字段一致：true");
  });

  test.concurrent("your loop from 05.5 with streaming (05.8) not done: the run does not stream, says so, and ends well", async ({
    dir,
  }) => {
    // A learner's 05.5 loop knows nothing of `stream`: this one refuses it, so the run proves it was not asked.
    const loop = learnerLoop(dir, (source) =>
      source.replace(/\n {2}if \(!Number\.isInteger\(maxSteps\)/, '\n  if (stream) throw new Error("this loop does not stream");$&'),
    );
    const { "streamed-step.ts": _, ...rest } = allAnswers;
    const { code, lines, text } = await demo({ ...rest, "agent-loop.ts": loop });
    expect(lines[0]).toMatch(/；答案：streamed-step\.ts（练习步骤 05\.8 还是桩）；用不到：log-file\.ts（这次运行不读写日志文件）$/);
    expect(lines[2]).toBe("用的是你的 agent-loop.ts，而流式（练习步骤 05.8）还没做完：这次运行不流式，和加 --no-stream 一样");
    expect(lines[3]).toBe(
      "Your agent-loop.ts runs and streaming (step 05.8) is not done yet: this run does not stream, as with --no-stream",
    );
    expect(text).not.toContain("this loop does not stream");
    expect(eventLines(lines), "the book's 12 events: no chunk").toHaveLength(12);
    expect(code).toBe(0);
  });

  test.concurrent("decoy projection-drops-reasoning: the replay says the request differs in reasoning_content, and names your projection.ts", async () => {
    const { code, text } = await demo({ "projection.ts": "scripts/maintainer/decoys/projection-drops-reasoning.ts" });
    expect(code).toBe(1);
    expect(text).toContain("=== 离线回放失败 / The offline replay failed ===");
    expect(text).toMatch(/- {3}"reasoning_content": "用户问 1\+2\*3/);
    expect(text).toContain("差在 reasoning_content：DeepSeek 的思考模式要求每条带工具调用的回复把它原样发回（所以 5.4 节的投影保留它）");
    expect(text).toContain("这里跑的是你的代码：projection.ts（练习步骤 05.3）。");
    expect(text).not.toMatch(/^\s+at /m);
  });

  test.concurrent("decoy session-cache-by-subscriber: ④ says the replayed session derives 0 messages of 4, and names your session.ts", async () => {
    const { code, lines } = await demo({ "session.ts": "scripts/maintainer/decoys/session-cache-by-subscriber.ts" });
    expect(code).toBe(1);
    const replay = section(lines, "=== ④");
    expect(replay).toContain("  消息条数不同：原始派生 4 条，重放派生 0 条");
    expect(replay.join("\n")).toContain("这里跑的是你的代码：session.ts（练习步骤 05.2、05.4）。测试都通过了，这次运行却和答案不同");
  });

  test.concurrent("decoy log-file-repair-skips-calls: --load of a crashed log, and ④'s structure check names your log-file.ts", async ({
    dir,
  }) => {
    expect(crashed.at(-1)?.type, "#5 tool/call, unanswered").toBe("tool/call");
    const log = path.join(dir, "run.jsonl");
    writeFileSync(log, crashed.map((event) => `${JSON.stringify(event)}\n`).join(""));
    const as = {
      "log-file.ts": "scripts/maintainer/decoys/log-file-repair-skips-calls.ts",
      "streamed-step.ts": allAnswers["streamed-step.ts"] ?? "",
    };
    const { lines } = await demo(as, "--load", log);
    expect(lines[0], "--load alone calls no model: streamed-step.ts is not used").toMatch(/；用不到：streamed-step\.ts（这次运行不流式）$/);
    const replay = section(lines, "=== ④").join("\n");
    expect(replay).toContain("UNANSWERED_TOOL_CALL");
    expect(replay).toContain("这里跑的是你的代码：log-file.ts（练习步骤 05.7）。");
  });

  test.concurrent("npx tsx chapters/05-session-log/demo.ts --mine, the command the READMEs give, runs again with the hook: a file of yours that throws is named with its step and line, exit 1", async ({
    dir,
  }) => {
    const file = learnerLoop(dir, (source) =>
      source.replace(
        '  session.append("assistant/message", {',
        '  if (reply.tool_calls.length === 0) throw new TypeError("no calls");\n$&',
      ),
    );
    // --no-stream: the plain step logs the reply in agent-loop.ts itself (a streamed one, in streamed-step.ts).
    const { code, lines, text } = await tsxDemo({ ...allAnswers, "agent-loop.ts": file }, "--no-stream");
    expect(code, "the run's own exit code, passed on").toBe(1);
    expect(lines[0], "a run that does not stream does not use streamed-step.ts").toMatch(
      /^你的：.*agent-loop\.ts、message-cache\.ts；答案：（没有）；用不到：log-file\.ts（这次运行不读写日志文件）、streamed-step\.ts（这次运行不流式）$/,
    );
    expect(lines[1]).toMatch(
      /; not used: log-file\.ts \(this run reads and writes no log file\), streamed-step\.ts \(this run does not stream\)$/,
    );
    expect(text).toContain("=== 你的代码抛出了错误 / Your code threw ===");
    expect(text).toMatch(/你的 agent-loop\.ts（练习步骤 05\.5）在演示里抛出了错误，位置：.*agent-loop\.ts:\d+:\d+$/m);
    expect(text).toContain("TypeError: no calls");
    expect(text).not.toMatch(/^\s+at /m);
  });

  test("the docs write a program started without npm as npx tsx …: a bare tsx is not found on a fresh clone (it is a local package)", () => {
    const docs = [
      "README.md",
      "README.zh.md",
      "chapters/05-session-log/README.md",
      "exercises/05-session-log/README.md",
      "docs/benchmarks.md",
    ];
    const bare = docs.flatMap((file) =>
      readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .flatMap((line, index) =>
          /(?<!npx )(?<![\w./-])tsx (?:chapters|scripts)\//.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(bare, "write npx tsx, as the tested command runs it").toEqual([]);
  });

  test("Ctrl-C in tsx chapters/05-session-log/demo.ts --mine reaches the run once: it stops, prints the log, and the exit code is 130", async () => {
    // Live against a stand-in that never answers the second call, so the run is surely in flight.
    const first = loadFixture(fixturePath("calculator")).exchanges[0]?.response;
    const standIn = await startStandIn({ apiKey: KEY, replies: first === undefined ? [] : [first], hangWhenDone: true });
    try {
      const env = { WORKBOOK_MINE_AS: JSON.stringify(allAnswers), DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
      // Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it.
      const demo = startProcess(tsx, [DEMO, "--mine", "--no-stream"], env, { detached: true });
      await standIn.received(2);
      process.kill(-(demo.child.pid ?? 0), "SIGINT");
      const { code } = await demo.exited;
      const output = demo.output();
      expect(code).toBe(130);
      expect(output).toMatch(/^你的：json\.ts、/);
      expect(output).toMatch(/#\d+ +turn\/end +\{"turn":1,"reason":"interrupted"/);
      expect(output).toContain("=== ④");
    } finally {
      await standIn.close();
    }
  });

  test.concurrent("a file of yours that throws while being imported: the same sentence (file, step, line), no stack, its escapes shown", async ({
    dir,
  }) => {
    const file = learnerLoop(dir, (source) => `${source}\nthrow new Error("${OSC52} thrown at import");\n`);
    const { code, lines, text } = await demo({ ...allAnswers, "agent-loop.ts": file });
    expect(code).toBe(1);
    expect(text).toContain("=== 你的代码抛出了错误 / Your code threw ===");
    expect(text).toMatch(/你的 agent-loop\.ts（练习步骤 05\.5）在加载时抛出了错误，位置：.*agent-loop\.ts:\d+:\d+$/m);
    expect(text).toMatch(/Your agent-loop\.ts \(step 05\.5\) threw while being loaded, at .*agent-loop\.ts:\d+:\d+$/m);
    expect(text).toContain("Error: \\x1b]52;c;aGk=\\x07 thrown at import");
    for (const raw of ["\u001b", "\u0007"]) expect(text, "no escape byte reaches the terminal").not.toContain(raw);
    expect(text).not.toMatch(/^\s+at /m);
    expect(
      lines.some((line) => line.startsWith("=== ②")),
      "the demo never started",
    ).toBe(false);
  });

  test.concurrent("a file of yours that throws a value that is not an Error while being imported: the same sentence, escapes shown, no banner", async ({
    dir,
  }) => {
    const file = learnerLoop(dir, (source) => `${source}\nthrow "\\u001b]0;pwned\\u0007";\n`);
    const { code, lines, text } = await demo({ ...allAnswers, "agent-loop.ts": file });
    expect(code).toBe(1);
    expect(text).toContain("=== 你的代码抛出了错误 / Your code threw ===");
    expect(text).toContain("你的 agent-loop.ts（练习步骤 05.5）在加载时抛出了错误，位置不明（抛出的不是 Error，没有调用栈）\n");
    expect(text).toContain(
      "Your agent-loop.ts (step 05.5) threw while being loaded, at a line not known (what it threw is not an Error: it has no stack)\n",
    );
    expect(text).toContain("\n    \\x1b]0;pwned\\x07\n");
    for (const raw of ["\u001b", "\u0007"]) expect(text, "no escape byte reaches the terminal").not.toContain(raw);
    expect(text, "not Node's uncaught-exception banner").not.toMatch(/triggerUncaughtException|Node\.js v\d|^\s+\^$/m);
    expect(lines.some((line) => line.startsWith("=== ②"))).toBe(false);
  });

  test.concurrent("npm run demo --mine, the -- forgotten: npm keeps --mine, so the demo says what to type and runs nothing", async () => {
    const { code, text } = await npmRun("demo", ["--mine"], [], allAnswers);
    expect(code).toBe(2);
    expect(text).toBe(
      "用法错误 / Usage error: --mine 被 npm 拿走了（少了 --），这次会跑答案而不是你的文件，请这样运行 / npm took --mine for itself (the -- is missing), so the answers would run, not your files; type: npm run demo -- --mine",
    );
  });

  test("--mine without the resolve hook (the demo started some other way) is a usage error, not a run of the answers", async () => {
    const { code, text } = await runInProcess(["--mine"]);
    expect(code).toBe(2);
    expect(text).toContain("请这样运行 / --mine swaps your files in before the chapter loads; run it as: npm run demo -- --mine");
  });
});

describe("npm run view -- --mine", spawns, () => {
  test.concurrent("writes the page from the learner's code: a loop of yours that logs one more event puts it on the page", async ({
    dir,
  }) => {
    const file = learnerLoop(dir, (source) =>
      source.replace('  session.append("turn/start", { turn });', '$&\n  session.append("mine/marker", { by: "learner" });'),
    );
    const out = path.join(dir, "page.html");
    const { code, lines } = await run(VIEW, ["--mine", "--out", out], { ...allAnswers, "agent-loop.ts": file });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^你的：json\.ts、session\.ts、projection\.ts、agent-loop\.ts/);
    expect(lines[0], "the default scenario does not stream: streamed-step.ts is not said to run").toMatch(
      /；答案：（没有）；用不到：streamed-step\.ts（这次运行不流式）$/,
    );
    expect(lines[2]).toBe(`时间线页面（13 条事件，4 条消息）/ Timeline page (13 events, 4 messages): ${out}`);
    expect(readFileSync(out, "utf8")).toContain("mine/marker");
  });
  test.concurrent("a streamed scenario and a streamed-step.ts of yours that throws: what demo --mine says (file, step, line), exit 1", async ({
    dir,
  }) => {
    const file = learnerCopy(dir, "stream/streamed-step.ts", (source) =>
      source.replace(/\n(export async function streamReply[^\n]*\n)/, '\n$1  if (step === 2) throw new RangeError("step 2");\n'),
    );
    const out = path.join(dir, "page.html");
    const args = ["--mine", "--scenario", "calculator-streamed", "--out", out];
    const { code, lines, text } = await run(VIEW, args, { ...allAnswers, "streamed-step.ts": file });
    expect(lines[0], "this scenario streams: streamed-step.ts runs, and is yours").toMatch(/、streamed-step\.ts；答案：（没有）$/);
    expect(code).toBe(1);
    expect(text).toContain("=== 你的代码抛出了错误 / Your code threw ===");
    expect(text).toMatch(/你的 streamed-step\.ts（练习步骤 05\.8）在 npm run view 里抛出了错误，位置：.*streamed-step\.ts:\d+:\d+$/m);
    expect(text).toContain("RangeError: step 2");
    expect(text).not.toContain("shown on the page");
    expect(text).not.toMatch(/^\s+at /m);
  });
});

describe("the mapping: the manifest's learner file → answer, turned round for a file whose steps are done", () => {
  test("a done file's answer resolves to the learner's file; a file not done resolves to its answer", () => {
    const verdicts = new Map<string, Verdict>(demoSteps().map((step) => [step.id, step.file === "json.ts" ? "done" : "stub"]));
    const mapping = resolveMapping(yourFiles(verdicts));
    const url = (file: string) => pathToFileURL(file).href;
    for (const [learner, answer] of answerFiles()) {
      if (!demoSteps().some((step) => path.join(exercisesDir, step.file) === learner)) continue;
      if (learner.endsWith("/json.ts")) expect(mapping.get(url(answer))).toBe(url(learner));
      else expect(mapping.get(url(learner))).toBe(url(answer));
    }
  });

  test("a file shared by two steps (session.ts: 05.2 and 05.4) is the learner's only when both are done", () => {
    const verdicts = new Map<string, Verdict>([
      ["05.2", "done"],
      ["05.4", "failing"],
    ]);
    const session = yourFiles(verdicts).find((file) => file.file === "session.ts");
    expect(session?.notDone).toEqual([{ step: "05.4", why: "failing" }]);
  });

  test("a step whose own part passes while its other tests wait for another step's stub is run as yours (05.3 before 05.2)", () => {
    const waiting = classify(
      {
        exists: true,
        loadErrors: [],
        tests: [
          { name: "a rule of 05.3's own", state: "passed", errors: [] },
          { name: "needs a Session", state: "failed", errors: [new NotImplementedError("05.2", "append", "append").message] },
        ],
      },
      "05.3",
    );
    expect(waiting.kind).toBe("waiting");
    expect(verdictOf(waiting)).toBe("done");
    const verdicts = new Map<string, Verdict>([
      ["05.1", "done"],
      ["05.3", verdictOf(waiting)],
    ]);
    const files = yourFiles(verdicts);
    expect(files.find((file) => file.file === "projection.ts")?.notDone).toBeUndefined();
    expect(files.find((file) => file.file === "session.ts")?.notDone).toEqual([
      { step: "05.2", why: "stub" },
      { step: "05.4", why: "stub" },
    ]);
  });

  test("the steps come from the manifest: every step whose answer is in the chapter, and no 练习", () => {
    expect(demoSteps().map((step) => step.id)).toEqual(steps.filter((step) => step.kind !== "practice").map((step) => step.id));
    expect(demoSteps().some((step) => step.kind === "practice")).toBe(false);
  });
});

describe("is a step done? its tests, run only when the files they load changed", () => {
  /** A copy of the learner's folder in `dir` with every file its shipped stub, and a fake test runner. */
  function setUp(dir: string, passing: readonly string[]) {
    cpSync(path.join(root, "scripts/maintainer/stubs/05-session-log"), dir, { recursive: true });
    for (const step of demoSteps()) cpSync(path.join(exercisesDir, step.test), path.join(dir, step.test));
    const runs: string[][] = [];
    const tests: CheckTests = {
      run: async (list: readonly Step[]) => {
        runs.push(list.map((step) => step.id));
        return list.map(
          (step): FileOutcome => ({
            exists: true,
            loadErrors: [],
            tests: [
              {
                name: "a rule",
                state: passing.includes(step.id) ? "passed" : "failed",
                errors: passing.includes(step.id) ? [] : ["wrong"],
              },
            ],
          }),
        );
      },
      close: async () => {},
    };
    const options = { dir, resultsFile: path.join(dir, ".workbook/results.json"), start: async () => tests };
    return { runs, check: () => checkSteps(options) };
  }

  test("an untouched stub is not done and runs nothing; an edited file's step runs once, then again only after a save", async ({ dir }) => {
    const { runs, check } = setUp(dir, ["05.1"]);
    const verdicts = await check();
    expect(runs).toEqual([]);
    expect(verdicts.get("05.1")).toBe("stub");

    writeFileSync(path.join(dir, "json.ts"), "export function freezeJson(value: unknown) { return value; }\n");
    expect((await check()).get("05.1")).toBe("done");
    expect(runs).toEqual([["05.1"]]);
    expect((await check()).get("05.1")).toBe("done");
    expect(runs).toHaveLength(1); // the same bytes: the recorded verdict

    writeFileSync(path.join(dir, "json.ts"), "export function freezeJson(value: unknown) { return value ?? null; }\n");
    await check();
    expect(runs).toEqual([["05.1"], ["05.1"]]);
  });

  test("a step's record also depends on the learner files its tests reach through imports (05.3 runs your session.ts)", ({ dir }) => {
    setUp(dir, []);
    const step = findStep("05.3");
    if (step === undefined) throw new Error("05.3 is in the manifest");
    const before = fingerprint(step, dir);
    writeFileSync(path.join(dir, "session.ts"), `${readFileSync(path.join(dir, "session.ts"), "utf8")}\n// edited\n`);
    expect(fingerprint(step, dir)).not.toBe(before);
  });
});

test("watch's key d runs the learner's own command, npm run demo -- --mine, and hands back all it printed", startsPrograms, async () => {
  const before = process.env.WORKBOOK_MINE_AS;
  process.env.WORKBOOK_MINE_AS = JSON.stringify({ "json.ts": chapter("json.ts") });
  try {
    const { code, output } = await runDemoOnYourFiles();
    expect(code).toBe(0);
    expect(output.split("\n")[0]).toMatch(/^你的：json\.ts；答案：session\.ts（练习步骤 05\.2、05\.4 还是桩）/);
    expect(output).toContain("重放派生 4 条消息，与原始派生逐字段一致：true");
  } finally {
    process.env.WORKBOOK_MINE_AS = before;
  }
});

describe("npm run watch: key d runs the demo on your code", () => {
  const passed = (step: Step): FileOutcome => ({
    exists: true,
    loadErrors: [],
    tests: [{ name: `${step.id} rule`, state: "passed", errors: [] }],
  });
  const failing = (): FileOutcome => ({ exists: true, loadErrors: [], tests: [{ name: "rule", state: "failed", errors: ["wrong"] }] });

  function watchWith(green: readonly string[]) {
    const screens: string[] = [];
    const demoRuns: number[] = [];
    const output = [
      "你的：json.ts；答案：session.ts（练习步骤 05.2、05.4 还是桩）",
      "Yours: json.ts; the answers: …",
      ...Array.from({ length: 40 }, (_, i) => `line ${i}`),
      "  重放派生 4 条消息，与原始派生逐字段一致：true",
    ].join("\n");
    const runner = {
      run: async (list: readonly Step[]) => list.map((step) => (green.includes(step.id) ? passed(step) : failing())),
      changed: () => {},
      close: async () => {},
    };
    const demo = async () => {
      demoRuns.push(1);
      return { code: 0, output };
    };
    const list = steps.filter((step) => ["05.1", "05.2"].includes(step.id));
    const watch = new WatchLoop({ runner, list, draw: (screen) => screens.push(stripVTControlCharacters(screen)), demo, now: () => 0 });
    return { watch, demoRuns, last: () => screens.at(-1) ?? "" };
  }

  test("before any step the demo uses is green, d says to turn one green first and runs nothing", async () => {
    const { watch, demoRuns, last } = watchWith([]);
    await watch.start();
    await watch.settled();
    expect(watch.key("d")).toBe(true);
    await watch.settled();
    expect(demoRuns).toEqual([]);
    expect(last()).toContain("先让一个练习步骤通过，再按 d / turn a step green first, then press d");
  });

  test("once a step is green, d runs the demo and shows its banner and its end, without leaving the loop", async () => {
    const { watch, demoRuns, last } = watchWith(["05.1"]);
    await watch.start();
    await watch.settled();
    expect(last()).toContain("d 用你的代码跑演示 / demo");
    watch.key("d");
    expect(last()).toContain("运行中 / running …");
    await watch.settled();
    expect(demoRuns).toHaveLength(1);
    const screen = last();
    expect(screen).toContain("演示：用你的代码 / the demo on your code (npm run demo -- --mine)");
    expect(screen).toContain("你的：json.ts；答案：session.ts（练习步骤 05.2、05.4 还是桩）");
    expect(screen).toContain("…省略了 18 行 / 18 more lines");
    expect(screen).toContain("重放派生 4 条消息，与原始派生逐字段一致：true");
    expect(screen).toContain("演示正常结束 / the demo ended well");
    expect(screen).toContain("练习步骤 05.2 —"); // still the loop, on the current step
    await watch.saved(path.join(exercisesDir, "session.ts"));
    expect(last(), "a save's result takes the demo's place").not.toContain("演示：用你的代码");
  });
});
