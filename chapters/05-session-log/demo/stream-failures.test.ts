// A stream that breaks off is not a network that was never there: against the loopback stand-in, the
// demo says the reply broke off mid-way and what the log kept of it; and ③ marks the interrupted reply
// and says what it kept, where the message alone would show a bare [assistant].
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { messageLines, runInProcess, section } from "../testing/demo-testing.ts";

const KEY = "sk-stream-failures-9d8c7b6a";
const FAILED = "=== 运行失败 / The run failed ===";
describe("a streamed reply that breaks off", () => {
  let standIn: StandIn | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });

  /** The demo, live against the stand-in replaying `scenario`, saving its log to `file`. */
  async function run(scenario: string, file: string) {
    const replies = loadFixture(fixturePath(scenario)).exchanges.map((exchange) => exchange.response);
    standIn = await startStandIn({ apiKey: KEY, replies });
    return runInProcess(["--save", file], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
  }

  test("a connection dropped after 15 chunks is said to have broken off mid-reply, with what was kept, not as 'Could not reach'", async ({
    dir,
  }) => {
    const { code, lines } = await run("stream-cut-mid-reasoning", path.join(dir, "cut.jsonl"));
    expect(code).toBe(1);
    const said = section(lines, FAILED);
    expect(said.join("\n")).not.toMatch(/无法连接|Could not reach/);
    expect(said.slice(0, 4)).toEqual([
      "  连接在回复中途断开了：DeepSeek 已经发来 15 个分片（#4–#18），之后连接中断。通常是网络或服务端的临时问题，请重新运行。",
      "  The connection broke off mid-reply: DeepSeek had sent 15 chunks (#4–#18) when it dropped. Usually a passing network or server problem: run again.",
      "  留下了什么：分片都在日志里；消息 #19 标为 interrupted，保留了已经显示的 29 个字符的思考内容，没有回答文字。",
      "  What was kept: every chunk is in the log; message #19, marked interrupted, keeps the 29 characters of reasoning already shown, and no answer text.",
    ]);
  });

  test("an error chunk mid-reply is said as such, with what was kept, and no '(undefined)' status", async ({ dir }) => {
    const { code, lines } = await run("stream-server-error", path.join(dir, "error.jsonl"));
    expect(code).toBe(1);
    const said = section(lines, FAILED);
    expect(said.join("\n")).not.toContain("undefined");
    expect(said.slice(0, 3)).toEqual([
      "  DeepSeek 在回复中途发来错误分片，回复没有完成：日志里有这次调用的 11 个分片（#4–#14），最后一个就是错误分片。通常是服务端的临时问题，请稍后重新运行。",
      "  DeepSeek sent an error chunk mid-reply, so the reply never finished: the log holds this call's 11 chunks (#4–#14), the error chunk last. Usually a passing server problem: run again later.",
      "  留下了什么：分片都在日志里；消息 #15 标为 interrupted，保留了已经显示的 17 个字符的思考内容，没有回答文字。",
    ]);
  });

  test("③ marks the interrupted reply and says it kept only its reasoning, where the message alone is a bare [assistant]", async ({
    dir,
  }) => {
    const file = path.join(dir, "for-load.jsonl");
    expect((await run("stream-cut-mid-reasoning", file)).code).toBe(1);
    const { code, lines } = await runInProcess(["--load", file]);
    expect(code).toBe(0);
    expect(messageLines(lines)).toEqual([
      "  [user] 1+2*3 等于几？",
      "  [assistant（中断 / interrupted）] 只留下了思考内容（29 个字符）/ only its reasoning was kept (29 chars): 用户问 1+2*3 等于几。按运算顺序应先乘后加，不过系统",
    ]);
  });
});
