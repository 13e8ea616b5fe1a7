// The demo's disk side, offline and streamed: saving does not change what runs (--save and --continue
// stream as the demo does without them); --continue checks a loaded log fits the recording before it
// writes anything; and what the demo says about a saved or interrupted run is true, Chinese first.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { ROUND_TRIP } from "../../../fixtures/test-helpers.ts";
import { replayScenario } from "../testing/scenario-replay.ts";
import type { SessionEvent } from "../events.ts";
import { findLogProblems } from "../invariants.ts";
import { readLogFile } from "../disk/log-file.ts";
import { runInProcess } from "../testing/demo-testing.ts";
import { interruptedNote, planDisk } from "./disk.ts";

const typesOf = (events: readonly SessionEvent[]) => events.map((event) => event.type);
const withoutChunks = (events: readonly SessionEvent[]) => typesOf(events).filter((type) => type !== "assistant/chunk");
const chunksIn = (events: readonly SessionEvent[]) => events.filter((event) => event.type === "assistant/chunk").length;
const jsonl = (events: readonly SessionEvent[]) => events.map((event) => `${JSON.stringify(event)}\n`).join("");

/** An offline `--save` run into `name` in `dir`; its file's path. */
async function saved(dir: string, name: string, ...flags: string[]): Promise<string> {
  const file = path.join(dir, name);
  const { code } = await runInProcess([...flags, "--save", file]);
  expect(code, `npm run demo -- ${flags.join(" ")} --save ${file}`).toBe(0);
  return file;
}

describe("offline, saving does not change what runs: --save and --continue stream as the demo does", () => {
  test("--save replays turn 1 of the streamed two-turn recording, and the file holds its chunk events", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const { code, lines, text } = await runInProcess(["--save", file]);
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^离线回放 fixtures\/data\/calculator-follow-up-streamed\.json 第 1 轮中按 DeepSeek 文档手写的流量/);
    expect(lines[0]).toContain(" / Offline replay of fixtures/data/calculator-follow-up-streamed.json, turn 1 (synthetic");
    expect(text).toContain("    回答 / answer ┃ 根据计算");
    const { events } = readLogFile(file).session;
    expect(withoutChunks(events)).toEqual(ROUND_TRIP);
    expect(chunksIn(events), "the same 99 chunk events as the demo without --save").toBe(99);
    expect(text).toContain(
      `已保存：${file} 里有 ${events.length} 条事件，读回来用： / Saved: ${file} holds ${events.length} events; read it back with:`,
    );
  });

  test("--load --continue streams turn 2 and appends it, chunks and all, to the same file", async ({ dir }) => {
    const file = await saved(dir, "run.jsonl");
    const before = readLogFile(file).session.events.length;
    const { code, lines, text } = await runInProcess(["--load", file, "--continue"]);
    expect(code, text).toBe(0);
    expect(lines[0]).toMatch(/^离线回放 fixtures\/data\/calculator-follow-up-streamed\.json 第 2 轮中/);
    expect(text).toContain("    回答 / answer ┃ 7 × 2 = **14**。");
    const { events } = readLogFile(file).session;
    expect(chunksIn(events.slice(before)), "turn 2's replies arrived as chunks").toBeGreaterThan(0);
    expect(withoutChunks(events)).toEqual([...ROUND_TRIP, ...ROUND_TRIP]);
    expect(findLogProblems(events)).toEqual([]);
  });

  test.for([
    ["saved with --no-stream, continued streamed", ["--no-stream"], []],
    ["saved streamed, continued with --no-stream", [], ["--no-stream"]],
  ] as const)("%s: both recordings hold the same conversation, so either goes on from the other", async ([, save, goOn], { dir }) => {
    const file = await saved(dir, "run.jsonl", ...save);
    const { code } = await runInProcess([...goOn, "--load", file, "--continue"]);
    expect(code).toBe(0);
    expect(
      readLogFile(file)
        .session.deriveMessages()
        .map((message) => message.role),
    ).toEqual([...["user", "assistant", "tool", "assistant"], ...["user", "assistant", "tool", "assistant"]]);
  });
});

describe("offline --continue on a log that does not fit the recording: checked first, nothing changed", () => {
  /** Logs that hold another conversation than turn 1 of the recording, as a learner may have them. */
  async function misfits(dir: string): Promise<{ crash: string; live: string; other: string }> {
    const book = readFileSync(await saved(dir, "book.jsonl", "--no-stream"), "utf8");
    const lines = book.split(/(?<=\n)/);
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    const callId = /call_00_\w+/.exec(book)?.[0] ?? "";
    return {
      // Killed during step 2: repair would close the turn as interrupted, with no final answer.
      crash: write("crash.jsonl", lines.slice(0, 9).join("")),
      // The same question answered live: the model chose its own call id.
      live: write("live.jsonl", book.replaceAll(callId, "call_00_liveLiveLiveLiveLiveLive")),
      other: write("other.jsonl", jsonl((await replayScenario("direct-answer")).session.events)),
    };
  }

  test("refused in Chinese first with what to do, exit 1, and every file byte for byte as it was", async ({ dir }) => {
    for (const [name, file] of Object.entries(await misfits(dir))) {
      const before = readFileSync(file);
      const { code, text } = await runInProcess(["--load", file, "--continue"]);
      expect(code, name).toBe(1);
      expect(text, name).toContain(
        `无法离线继续 ${file} 里的对话：--continue 回放 fixtures/data/calculator-follow-up-streamed.json 的第 2 轮`,
      );
      expect(text, name).toContain("文件没有改动。");
      expect(text, name).toContain(`    npm run demo -- --load ${file} --ask "…"`);
      expect(text, name).not.toContain("=== ①");
      expect(readFileSync(file), `${name}: nothing was appended`).toEqual(before);
    }
  });

  test("the account of a crashed log does not promise a repair into the file that the refusal then withholds", async ({ dir }) => {
    const { crash } = await misfits(dir);
    const { text } = await runInProcess(["--load", crash, "--continue"]);
    expect(text).toContain("修复会追加 2 条事件（这次没有追加，文件不变）：");
    expect(text, "the run stops before it begins: nothing is appended, to the file or in memory").not.toMatch(/修复追加|events appended/);
  });
});

describe("what the demo says is true, Chinese first", () => {
  test("a crashed log whose file the writer refuses is never said to get the repair: the refusal comes, the file stays as it was", async ({
    dir,
  }) => {
    const file = await saved(dir, "run.jsonl");
    writeFileSync(file, readFileSync(file, "utf8").slice(0, -30)); // turn/end cut short: repair closes the turn
    const before = readFileSync(file);
    const refused = await runInProcess(["--load", file, "--continue"]);
    expect(refused.code).toBe(1);
    expect(refused.text).toContain(`无法保存到 ${file}：`);
    expect(refused.text, "nothing was appended, not even in memory: the run stopped").not.toMatch(/修复追加|events appended/);
    expect(readFileSync(file)).toEqual(before);
    // The advice given, a new file: there the repair is appended, and said to be, once the writer is attached.
    const elsewhere = path.join(dir, "new.jsonl");
    const advised = await runInProcess(["--load", file, "--save", elsewhere, "--continue"]);
    expect(advised.code, advised.text).toBe(0);
    const saving = advised.lines.indexOf(
      `每条事件一记下就写入 ${elsewhere} / Saving to ${elsewhere}: each event is written (and fsync'd) the moment it is logged`,
    );
    const repair = advised.lines.findIndex((line) => line.includes(`修复追加 1 条事件，写入 ${elsewhere}：`));
    expect({ saving: saving >= 0, repairAfterIt: repair > saving }).toEqual({ saving: true, repairAfterIt: true });
    const repaired = readLogFile(elsewhere).session.events.find((event) => event.type === "turn/end");
    expect(repaired?.data).toMatchObject({ turn: 1, reason: "completed" });
  });

  test("--continue or --ask without --load says, in Chinese too, to add --load", () => {
    expect(planDisk({ continue: true }, true)).toBe(
      "--continue 和 --ask 要接着一段读入的对话：加上 --load <file> / --continue and --ask go on with a loaded conversation: add --load <file>",
    );
  });

  test("offline, --ask says in Chinese too that a key lets you ask your own question", () => {
    expect(planDisk({ load: "run.jsonl", ask: "为什么？" }, true)).toMatch(
      /^离线时只录了一个后续问题（“把刚才的结果再乘以 2 是多少？”）：请用 --continue 问它，或者设置 DEEPSEEK_API_KEY 在线问你自己的问题 \/ Offline/,
    );
  });

  test("④ says each structure problem Chinese first, every number with it, and the refused repair names the event", async ({ dir }) => {
    const file = path.join(dir, "two-turns.jsonl");
    const event = (id: number, turn: number) => `${JSON.stringify({ id, type: "turn/start", ts: id, data: { turn } })}\n`;
    writeFileSync(file, event(0, 1) + event(1, 2));
    const { lines } = await runInProcess(["--load", file]);
    expect(lines).toContain("  无法靠追加修复：事件 #1（turn/start）不可能是智能体循环写在这里的，这不是崩溃留下的日志，请人工检查");
    expect(lines).toContain(
      "    OPEN_TURN  事件 #0：第 1 轮还没有结束，第 2 轮就开始了 / event #0: turn 1 never ended before turn 2 began",
    );
    expect(lines).toContain("    OPEN_TURN  事件 #1：第 2 轮一直没有结束 / event #1: turn 2 never ended");
  });

  test("--save into a file that holds another log: the Chinese says why it is refused", async ({ dir }) => {
    const file = await saved(dir, "run.jsonl");
    const { code, text } = await runInProcess(["--save", file]);
    expect(code).toBe(1);
    expect(text).toContain(`无法保存到 ${file}：这个会话还没有事件，文件里却已经有了，不往里追加`);
  });

  test("after Ctrl-C, a log whose last turn was closed is not said to need a repair", () => {
    const closed = [{ id: 11, type: "turn/end", ts: 0, data: { turn: 1, reason: "interrupted" } }] as SessionEvent[];
    expect(interruptedNote(["--save", "run.jsonl"], closed)[0]).toBe(
      "已中断。run.jsonl 里已有中断前记下的每一条事件，最后一轮已经闭合，记为 interrupted，读回来无需修复： / " +
        "Interrupted. run.jsonl holds every event logged before Ctrl-C; its last turn is closed as interrupted, so it reads back with nothing to repair:",
    );
    // A second Ctrl-C does not wait for the turn to close: then the file may hold an open turn.
    expect(interruptedNote(["--save", "run.jsonl"])[0]).toContain("读回来时，没闭合的一轮会被修复");
  });
});

describe("Ctrl-C during a saved run: what the demo says is what --load then finds", () => {
  let standIn: StandIn | undefined;
  afterEach(async () => standIn?.close());

  test("the turn closed as interrupted, and --load finds nothing to repair", { timeout: 30_000 }, async ({ dir }) => {
    const first = loadFixture(fixturePath("calculator")).exchanges[0]?.response;
    if (first === undefined) return expect.unreachable("calculator.json has no first exchange");
    standIn = await startStandIn({ apiKey: "sk-disk-runs-key-0a1b2c3d", replies: [first], hangWhenDone: true });
    const file = path.join(dir, "interrupted.jsonl");
    const ctrlC = new AbortController();
    const env = { DEEPSEEK_API_KEY: "sk-disk-runs-key-0a1b2c3d", DEEPSEEK_BASE_URL: standIn.baseURL };
    const run = runInProcess(["--no-stream", "--save", file], env, { signal: ctrlC.signal });
    await standIn.received(2); // the second model call is in flight
    ctrlC.abort(new Error("Ctrl-C"));
    const { code, text } = await run;
    expect(code).toBe(130);
    expect(text).toContain(`已中断。${file} 里已有中断前记下的每一条事件，最后一轮已经闭合，记为 interrupted，读回来无需修复：`);
    expect(text).not.toContain("gets repaired");
    const loaded = await runInProcess(["--load", file]);
    expect(loaded.text).toContain("(Every turn is closed: nothing to repair)");
  });
});
