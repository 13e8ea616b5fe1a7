// The demo live, against the loopback stand-in or a bare local server instead of DeepSeek: the same
// four sections, streamed text shown before the reply is complete, Ctrl-C mid-stream, a step budget
// spent, and every setting or failure explained without the key.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { fixturePath, isStreamed, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import {
  eventLines,
  localServer,
  messageLines,
  runInProcess,
  section,
  spawnDemo,
  startDemo,
  startsPrograms,
} from "../testing/demo-testing.ts";
import { findLogProblems } from "../invariants.ts";
import { readLogFile } from "../disk/log-file.ts";

const KEY = "sk-demo-test-key-7a6b5c4d3e2f";
const FAILED = "=== 运行失败 / The run failed ===";
const repliesOf = (name: string) => loadFixture(fixturePath(name)).exchanges.map((exchange) => exchange.response);

describe("against the loopback stand-in", startsPrograms, () => {
  let standIn: StandIn | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });

  test("`tsx demo.ts` with a key calls DEEPSEEK_BASE_URL, says so in both languages, and prints the same four sections", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator-streamed") });
    const run = await spawnDemo([], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe(`在线调用 deepseek-flash，地址 ${standIn.baseURL} / Live: calling deepseek-flash at ${standIn.baseURL}`);
    expect(lines[1]).toBe("改为离线回放录制的流量 / To replay a recording instead: npm run demo -- --offline");
    expect(eventLines(lines)).toHaveLength(12);
    expect(lines.filter((line) => /^ {2}#\d+–#\d+ assistant\/chunk ×\d+ /.test(line))).toHaveLength(2);
    expect(messageLines(lines)).toHaveLength(4);
    expect(run.stdout).toContain("deep-equal to the original: true");
    expect(standIn.remaining()).toBe(0);
    expect(standIn.requests.map((request) => (request.body as { stream?: unknown }).stream)).toEqual([true, true]);
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
  });

  test("a reply with two tool calls is one line in ③ listing both, so ③ shows as many entries as ④ counts", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("two-tool-calls-streamed") });
    const { code, lines, text } = await runInProcess([], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(code).toBe(0);
    expect(messageLines(lines)).toEqual([
      "  [user] 1+2*3 等于几？",
      '  [assistant → 请求工具] calculator({"expression": "(1+2)*3"}), calculator({"expression": "10/4"})',
      "  [tool → 结果] 9",
      "  [tool → 结果] 2.5",
      "  [assistant] (1+2)×3 = **9**，10÷4 = **2.5**。",
    ]);
    expect(text).toContain("重放派生 5 条消息");
  });

  test("a spent step budget is said plainly under the log, in both languages, and the structure check names max_steps", async () => {
    // The model calls the calculator at every one of the scenario's 10 steps and never answers.
    standIn = await startStandIn({
      apiKey: KEY,
      replies: Array.from({ length: 5 }, () => repliesOf("max-steps")).flat(),
    });
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
    const { code, lines, text } = await runInProcess(["--no-stream"], env);
    expect(code, "the log is whole and replays: not a crash").toBe(0);
    expect(eventLines(lines).at(-1)).toContain('{"turn":1,"reason":"max_steps"}');
    const underTheLog = section(lines, "=== ②").filter((line) => line.startsWith("  ⚠"));
    expect(underTheLog).toEqual([
      "  ⚠ 步数预算用完了：模型用掉了全部 10 步，始终没有给出最终回答（turn/end 的 reason 是 max_steps）。",
      "  ⚠ The step budget is spent: the model used all 10 steps and never gave a final answer (turn/end reason: max_steps).",
    ]);
    expect(text).toContain("轮次结束原因：max_steps（步数用完，没有最终回答）");
    expect(text).toContain("the turn ended: max_steps (step budget spent, no final answer))");
  });

  test("a wrong key exits 1 after printing the log so far and one explanation, never the key", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator") });
    const wrongKey = "sk-demo-wrong-key-000000-k3y9";
    const { code, lines, text } = await runInProcess([], {
      DEEPSEEK_API_KEY: wrongKey,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(code).toBe(1);
    expect(eventLines(lines).map((line) => line.split(/\s+/)[2])).toEqual([
      "turn/start",
      "user/message",
      "request/header",
      "step/start",
      "step/end",
      "turn/end",
    ]);
    expect(eventLines(lines)[5]).toContain('"reason":"error"');
    const explanation = section(lines, FAILED).join("\n");
    expect(explanation).toContain("DeepSeek 拒绝了这个 API key（401）");
    expect(explanation).toContain("DeepSeek refused the API key (401). Check that DEEPSEEK_API_KEY is complete");
    expect(explanation, "DeepSeek's masked echo of the key is scrubbed too").toContain("Your api key: **** is invalid");
    expect(text).not.toContain("k3y9");
    expect(text).not.toContain("=== ③");
    expect(text).not.toContain(wrongKey);
  });
});

describe("a slow stream, live", startsPrograms, () => {
  let standIn: StandIn | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });

  /** The stand-in sends this many pieces of each streamed reply (keep-alives, the role, a few reasoning deltas), then holds the rest. */
  const HOLD_AFTER = 9;
  /** The reasoning text those first pieces of calculator-streamed's first reply carry. */
  function reasoningBeforeTheHold(): string {
    const first = loadFixture(fixturePath("calculator-streamed")).exchanges[0]!.response;
    if (!isStreamed(first)) throw new Error("calculator-streamed.json must be streamed");
    const events = first.stream
      .slice(0, HOLD_AFTER)
      .flatMap((piece) => piece.text.split("\n").filter((line) => line.startsWith("data: {")));
    const deltas = events.map((line) => (JSON.parse(line.slice(6)) as { choices: { delta: { reasoning_content?: string } }[] }).choices);
    return deltas.map((choices) => choices[0]?.delta.reasoning_content ?? "").join("");
  }

  test("the first chunk's text is printed while the stand-in still holds the rest of the reply", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator-streamed"), holdAfter: HOLD_AFTER });
    const demo = startDemo([], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    const seen = reasoningBeforeTheHold();
    expect(seen.length, "the pieces before the hold carry some reasoning").toBeGreaterThan(3);
    await standIn.holding();
    await demo.printed(`思考 / reasoning ┃ ${seen}`);
    // The rest of the reply has not been sent: the turn, and so the log, cannot be finished yet.
    expect(demo.stdout()).not.toContain("=== ②");
    expect(demo.stdout()).not.toContain("tool call calculator");
    standIn.release();
    expect(await demo.exited).toEqual({ code: 0, signal: null });
    expect(demo.stdout()).toContain("deep-equal to the original: true");
  });

  test("Ctrl-C mid-stream stops the run through runAgent's signal: exit 130, the turn ends interrupted, the saved log passes findLogProblems", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator-streamed"), holdAfter: HOLD_AFTER });
    const file = path.join(mkdtempSync(path.join(tmpdir(), "demo-ctrl-c-")), "run.jsonl");
    const demo = startDemo(["--save", file], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    const seen = reasoningBeforeTheHold();
    await standIn.holding();
    await demo.printed(seen);
    demo.child.kill("SIGINT");
    expect(await demo.exited).toEqual({ code: 130, signal: null });

    const { session } = readLogFile(file);
    expect(findLogProblems(session.events)).toEqual([]);
    const message = session.events.findLast((event) => event.type === "assistant/message");
    expect(message?.data, "the message keeps the reasoning the user saw").toMatchObject({
      reasoning_content: seen,
      tool_calls: [],
      interrupted: true,
    });
    expect(session.events.at(-1)?.data).toMatchObject({ turn: 1, reason: "interrupted" });
    // The demo still printed the log it left, and said how to read the file back.
    expect(demo.stdout()).toContain("every tool call answered: ok; the turn ended: interrupted");
    expect(demo.stdout()).toContain(`npm run demo -- --load ${file}`);
  });
});

describe("with a key or a setting that needs care", { timeout: 20_000 }, () => {
  let server: Awaited<ReturnType<typeof localServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test("a base URL with user:password@ or a query string is refused before any request, in both languages, and neither is printed", async () => {
    const baseURL = "http://learner:pa55word@127.0.0.1:9/v1?api_key=sk-in-the-query";
    const { code, lines, text } = await runInProcess([], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: baseURL });
    expect(code).toBe(1);
    expect(lines).toContain("=== 设置有误 / A setting is wrong ===");
    expect(text).toContain("设置有误，还没有发出任何请求。DEEPSEEK_BASE_URL 的值 http://127.0.0.1:9/v1 里带有 user:password@");
    expect(text).toContain(
      "A setting is wrong, so nothing was sent. DEEPSEEK_BASE_URL (http://127.0.0.1:9/v1) has user:password@ in it; fetch refuses",
    );
    expect(text, "not a network failure: nothing was sent").not.toContain("could not reach DeepSeek");
    expect(text).not.toMatch(/learner|pa55word|sk-in-the-query/);
  });

  test.each(["2m", "0x10", "1e3", "0"])("a DEEPSEEK_TIMEOUT_MS of %j is refused with the setting named", async (timeout) => {
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: "http://127.0.0.1:9", DEEPSEEK_TIMEOUT_MS: timeout };
    const { code, text } = await runInProcess([], env);
    expect(code).toBe(1);
    expect(text).toContain("DEEPSEEK_TIMEOUT_MS 必须是 1 到 2147483647");
    expect(text).toContain("DEEPSEEK_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647");
  });

  test("a key with a space inside is refused without showing it", async () => {
    const { code, text } = await runInProcess([], {
      DEEPSEEK_API_KEY: "sk-pasted 0123456789abcdef",
      DEEPSEEK_BASE_URL: "http://127.0.0.1:9",
    });
    expect(code).toBe(1);
    expect(text).toContain("DEEPSEEK_API_KEY has a space, line break or other character no API key contains (at position 10)");
    expect(text).not.toMatch(/pasted|0123/);
  });

  test.each([
    ["a trailing \\r", `${KEY}\r`],
    ["spaces around it", ` ${KEY} `],
  ])("a key read with %s is trimmed: a 401 echoing the key the server got never prints it", async (_, raw) => {
    server = await localServer((authorization, response) => {
      const message = `Authentication Fails, you sent ${authorization.replace(/^Bearer /, "")}`;
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message, type: "authentication_error", param: null, code: null } }));
    });
    const { code, text } = await runInProcess([], { DEEPSEEK_API_KEY: raw, DEEPSEEK_BASE_URL: server.baseURL });
    expect(code).toBe(1);
    expect(text).toContain("DeepSeek refused the API key (401)");
    expect(text).not.toContain(KEY);
  });

  test("a DeepSeek that never answers ends, after DEEPSEEK_TIMEOUT_MS and the SDK's retries, with the timeout explanation", async () => {
    server = await localServer();
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: server.baseURL, DEEPSEEK_TIMEOUT_MS: "50" };
    const { code, lines } = await runInProcess([], env);
    expect(code).toBe(1);
    const explanation = section(lines, FAILED).join("\n");
    expect(explanation).toContain("DeepSeek did not answer in time (thinking mode can take long)");
    expect(explanation).toContain(`详情 / Details: no answer from DeepSeek at ${server.baseURL} within 50 ms (3 tries)`);
  });
});
