// The demo's disk side: --save writes the log as it happens, --load tells the file's story without a
// model, --continue goes on offline from a saved run, and a real process stopped mid-run (SIGKILL, or
// Ctrl-C's SIGINT) leaves a file that --load reads and repairs.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, onTestFinished } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { ROUND_TRIP } from "../../../fixtures/test-helpers.ts";
import { planDisk } from "./disk.ts";
import { runInProcess, startDemo as startDemoProcess } from "../testing/demo-testing.ts";
import { replayScenario } from "../testing/scenario-replay.ts";
import { lineOf } from "../disk/jsonl.ts";
import { findLogProblems } from "../invariants.ts";
import { readLogFile } from "../disk/log-file.ts";
import { TURN_INTERRUPTED } from "../disk/log-file-types.ts";
import { lockFolderOf } from "../disk/log-lock.ts";

const KEY = "sk-disk-test-key-1a2b3c4d5e6f";
const eventLines = (text: string) => text.split("\n").filter((line) => /^ {2}#\d+ /.test(line));

describe("offline, --no-stream: --save, --load, --continue keep the book's 12 events a turn", () => {
  test("--save writes every event to the file as JSONL, and the file replays into the same log", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const { code, text } = await runInProcess(["--no-stream", "--save", file]);
    expect(code).toBe(0);
    expect(text).toContain(`Saved: ${file} holds 12 events`);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(13); // 12 lines, each ended by "\n"
    expect(lines.map((line) => (line ? JSON.parse(line).type : ""))).toEqual([...ROUND_TRIP, ""]);
    expect(readLogFile(file).session.events).toHaveLength(12);
  });

  test("--load prints ②–④ from the file with no model call: the same events, and a replay that is deep-equal", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const saved = await runInProcess(["--no-stream", "--save", file]);
    const { code, text } = await runInProcess(["--load", file]);
    expect(code).toBe(0);
    expect(text).toContain(`(Loaded ${file}: 12 events (jsonl))`);
    expect(text).toContain("nothing to repair");
    expect(text).not.toContain("① 订阅者视角");
    expect(text).not.toMatch(/Offline replay|Live:/);
    expect(eventLines(text)).toEqual(eventLines(saved.text));
    expect(text).toContain("deep-equal to the original: true");
  });

  test("--load --continue goes on offline from a saved run with the recorded follow-up, appending to the same file", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    await runInProcess(["--no-stream", "--save", file]);
    const { code, text } = await runInProcess(["--no-stream", "--load", file, "--continue"]);
    expect(code).toBe(0);
    expect(text).toContain("calculator-follow-up.json, turn 2");
    expect(text).toContain("[user] 把刚才的结果再乘以 2 是多少？");
    const { session, torn } = readLogFile(file);
    expect(torn).toBeUndefined();
    expect(session.events).toHaveLength(24);
    expect(session.events.filter((event) => event.type === "turn/end").map((event) => event.data)).toEqual([
      { turn: 1, reason: "completed" },
      { turn: 2, reason: "completed" },
    ]);
  });

  test("a torn last line is reported and dropped by --load, and going on in that file is refused in favour of a new one", async ({
    dir,
  }) => {
    const file = path.join(dir, "run.jsonl");
    await runInProcess(["--no-stream", "--save", file]);
    writeFileSync(file, `${readFileSync(file, "utf8")}{"id":12,"type":"turn/st`);
    const loaded = await runInProcess(["--load", file]);
    expect(loaded.code).toBe(0);
    expect(loaded.text).toContain("Line 13 is torn (no newline at its end, 24 bytes)");
    const refused = await runInProcess(["--no-stream", "--load", file, "--continue"]);
    expect(refused.code).toBe(1);
    expect(refused.text).toContain(`    npm run demo -- --load ${file} --save new.jsonl --continue`);
    const elsewhere = path.join(dir, "continued.jsonl");
    expect((await runInProcess(["--no-stream", "--load", file, "--save", elsewhere, "--continue"])).code).toBe(0);
    expect(readLogFile(elsewhere).session.events).toHaveLength(24);
  });

  test("a log that starts with a BOM (an editor's) goes on in that file: the BOM stays first, the new turn follows, and it loads back whole", async ({
    dir,
  }) => {
    const file = path.join(dir, "run.jsonl");
    await runInProcess(["--no-stream", "--save", file]);
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(file)]));
    const before = readFileSync(file);
    const { code, text } = await runInProcess(["--no-stream", "--load", file, "--continue"]);
    expect(code, text).toBe(0);
    expect(text).toContain(`Saved: ${file} holds 24 events`);
    const after = readFileSync(file);
    expect(after.subarray(0, before.length), "what was in the file, BOM and all, is unchanged").toEqual(before);
    const { session, bom, torn } = readLogFile(file);
    expect({ bom, torn, events: session.events.length }).toEqual({ bom: true, torn: undefined, events: 24 });
  });

  test("a log with CRLF line ends is not written into (nothing in a log is edited), and the advice given, a new file, works", async ({
    dir,
  }) => {
    const file = path.join(dir, "run.jsonl");
    await runInProcess(["--no-stream", "--save", file]);
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("\n", "\r\n"));
    const before = readFileSync(file);
    const refused = await runInProcess(["--no-stream", "--load", file, "--continue"]);
    expect(refused.code).toBe(1);
    expect(refused.text).toContain(`    npm run demo -- --load ${file} --save new.jsonl --continue`);
    expect(refused.text, "never the command just refused").not.toContain(`    npm run demo -- --load ${file} --continue`);
    expect(readFileSync(file)).toEqual(before);
    const elsewhere = path.join(dir, "new.jsonl"); // the advice, with the new file in the test's folder
    const advised = await runInProcess(["--no-stream", "--load", file, "--save", elsewhere, "--continue"]);
    expect(advised.code, advised.text).toBe(0);
    expect(readLogFile(elsewhere).session.events).toHaveLength(24);
  });

  test("--save refuses a file that already holds a log, and leaves it as it was", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    await runInProcess(["--no-stream", "--save", file]);
    const before = readFileSync(file);
    const { code, text } = await runInProcess(["--no-stream", "--save", file]);
    expect(code).toBe(1);
    expect(text).toContain("refusing to append");
    expect(text).toContain(`    npm run demo -- --load ${file} --continue`);
    expect(readFileSync(file)).toEqual(before);
  });

  test("--continue or --ask without --load, or both at once, is a usage error (exit 2)", async () => {
    expect(planDisk({ continue: true }, true)).toMatch(/add --load <file>/);
    expect(planDisk({ load: "a.jsonl", continue: true, ask: "?" }, false)).toMatch(/use one of them/);
    const { code, text } = await runInProcess(["--ask", "又一个问题"]);
    expect(code).toBe(2);
    expect(text).toContain("Usage error: --continue 和 --ask");
  });

  test("offline, --ask with a question of your own is refused: only the follow-up question was recorded", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    await runInProcess(["--no-stream", "--save", file]);
    const { code, text } = await runInProcess(["--load", file, "--ask", "又一个问题"]);
    expect(code).toBe(2);
    expect(text).toContain("the only follow-up question recorded");
    expect(readLogFile(file).session.events).toHaveLength(12);
  });
});

// ── a real process, stopped in the middle of a live run ─────────────────────────────────────────

/** A stand-in that answers the first model call (a calculator call) and never the second. */
async function standInThatStalls(): Promise<StandIn> {
  const first = loadFixture(fixturePath("calculator")).exchanges[0]!.response;
  return startStandIn({ apiKey: KEY, replies: [first], hangWhenDone: true });
}

/** The demo as its own process, live against `baseURL`, not streaming: the stand-in answers with calculator.json's plain replies. */
function startDemo(args: string[], baseURL: string) {
  return startDemoProcess(["--no-stream", ...args], { env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: baseURL } });
}

describe("a run stopped in the middle", () => {
  let standIn: StandIn | undefined;
  afterEach(async () => standIn?.close());

  test("SIGKILL during a --save run leaves a file that loads; --load repairs the open step and turn", {
    timeout: 60_000,
  }, async ({ dir }) => {
    standIn = await standInThatStalls();
    const file = path.join(dir, "killed.jsonl");
    const demo = startDemo(["--save", file], standIn.baseURL);
    // The second model call is in flight, so step 2's step/start is already logged (and written).
    await standIn.received(2);
    demo.child.kill("SIGKILL");
    expect(await demo.exited).toEqual({ code: null, signal: "SIGKILL" });
    const lock = lockFolderOf(file); // the killed run's: removed below once checked, and here if the test fails before that
    onTestFinished(() => rmSync(lock, { recursive: true, force: true }));

    const { session, torn } = readLogFile(file);
    expect(torn).toBeUndefined();
    expect(session.events.map((event) => event.type)).toEqual(ROUND_TRIP.slice(0, 9));
    expect(findLogProblems(session.events).map((problem) => problem.code)).toEqual(["OPEN_TURN", "OPEN_STEP"]);

    // The killed run's lock is still fresh: for all repair can tell, that run is alive and its turn running.
    const early = await runInProcess(["--load", file]);
    expect(early.text).toContain("无法靠追加修复：另一个进程正在写这个文件");
    expect(early.text).toContain("another process is writing this log right now");
    expect(early.text).not.toMatch(/#9 +step\/end/);
    // A SIGKILLed holder's lock goes stale after STALE_MS (disk-faults.test.ts waits for that); cleared here by hand.
    rmSync(lock, { recursive: true });

    const { code, text } = await runInProcess(["--load", file]);
    expect(code).toBe(0);
    expect(text).toContain("最后一轮停在中途（进程被杀或崩溃），记为 interrupted；修复追加 2 条事件（只在内存里");
    expect(text).toContain("2 events appended (in memory only: the file is unchanged until the conversation goes on)");
    expect(text).toContain('    #9 step/end {"turn":1,"step":2}');
    // The repair's turn/end whole, as ② cuts it at 40 characters.
    expect(text).toContain(`#10 turn/end ${JSON.stringify({ turn: 1, reason: "interrupted", message: TURN_INTERRUPTED })}`);
    expect(text).toMatch(/#10 +turn\/end +\{"turn":1,"reason":"interrupted","message":"interrupted/);
    expect(text).toContain("every tool call answered: ok");
    expect(readLogFile(file).session.events, "--load alone does not write the repair").toHaveLength(9);
  });

  test("Ctrl-C during a --save run exits 130, says where the log is, and the file loads, the turn closed as interrupted", {
    timeout: 60_000,
  }, async ({ dir }) => {
    standIn = await standInThatStalls();
    const file = path.join(dir, "interrupted.jsonl");
    // In process: Ctrl-C is the signal demo/terminal.ts aborts on SIGINT (live.test.ts sends a real SIGINT).
    const ctrlC = new AbortController();
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
    const demo = runInProcess(["--no-stream", "--save", file], env, { signal: ctrlC.signal });
    await standIn.received(2);
    ctrlC.abort(new Error("Ctrl-C"));
    const { code, stdout } = await demo;
    expect(code).toBe(130);
    expect(stdout).toContain(`Interrupted. ${file} holds every event logged before Ctrl-C`);
    expect(stdout).toContain(`npm run demo -- --load ${file}`);
    // Ctrl-C stops the model call through runAgent's signal, which closes the step and the turn.
    const { events } = readLogFile(file).session;
    expect(events.map((event) => event.type)).toEqual([...ROUND_TRIP.slice(0, 9), "step/end", "turn/end"]);
    expect(events.at(-1)?.data).toMatchObject({ reason: "interrupted" });
    expect(findLogProblems(events)).toEqual([]);
  });

  test("live, --load --ask goes on with the repaired conversation: the model is sent the loaded messages and the new question", {
    timeout: 60_000,
  }, async ({ dir }) => {
    // What a run killed during its second model call leaves (the test above makes one for real): the
    // calculator turn up to step 2's step/start, the step and the turn open.
    const file = path.join(dir, "killed.jsonl");
    const killed = (await replayScenario("calculator")).session.events.slice(0, 9);
    expect(killed.at(-1)?.type).toBe("step/start");
    writeFileSync(file, Buffer.concat(killed.map(lineOf)));

    const answer = loadFixture(fixturePath("direct-answer")).exchanges[0]!.response;
    standIn = await startStandIn({ apiKey: KEY, replies: [answer] });
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
    const { code } = await runInProcess(["--load", file, "--ask", "刚才怎么了？", "--no-stream"], env);
    expect(code).toBe(0);
    const sent = (standIn.requests[0]!.body as { messages: { role: string; content: string }[] }).messages;
    expect(sent.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(sent.at(-1)?.content).toBe("刚才怎么了？");
    const { session } = readLogFile(file);
    expect(findLogProblems(session.events)).toEqual([]);
    expect(session.events.filter((event) => event.type === "turn/end")).toHaveLength(2);
  });
});
