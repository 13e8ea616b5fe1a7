// What the demo says when a run does not go as the book's: one explanation per kind of failure and
// per refused setting, Chinese first with the English beside it, and commands a learner can copy.
import { describe, expect, test } from "vitest";
import { DeepSeekError, type DeepSeekErrorKind } from "../../common/deepseek.ts";
import { DeepSeekConfigError, MissingApiKeyError } from "../../common/settings.ts";
import { AgentRunError } from "../loop-types.ts";
import { formatMessage } from "./format.ts";
import { explain, explainSetting, explainTrouble, structureCheck, type Explanation } from "./explain.ts";
import { Session } from "../session.ts";

const failure = (error: unknown) => new AgentRunError("turn 1 failed", new Session(), { cause: error });
const kinds: readonly [DeepSeekErrorKind, number | undefined][] = [
  ["authentication", 401],
  ["insufficient_balance", 402],
  ["rate_limit", 429],
  ["server", 503],
  ["bad_request", 400],
  ["network", undefined],
  ["timeout", undefined],
  ["empty_reply", 200],
  ["bad_reply", 200],
  ["other", undefined],
];
const hasChinese = (line: string) => /[\u4e00-\u9fff]/.test(line);

/** Copied with the character after it, `--offline。` is not `--offline`: a command ends its line. */
function expectCopyableCommands({ lines }: Explanation): void {
  for (const line of lines) expect(line, `a command followed by more text in: ${line}`).not.toMatch(/npm run [\w -]*[^\w -]/);
  expect(lines.at(-1)).toBe("  npm run demo -- --offline");
}

describe("explain: one paragraph per kind of failure", () => {
  test.each(kinds)(
    "%s: what happened in Chinese, then in English, the details, and the offline command on its own line",
    (kind, status) => {
      const explanation = explain(failure(new DeepSeekError(`what the client said about ${kind}`, kind, status)));
      const [zh = "", en = ""] = explanation.lines;
      expect(explanation.title).toEqual(["运行失败", "The run failed"]);
      expect(hasChinese(zh), zh).toBe(true);
      expect(hasChinese(en), en).toBe(false);
      expect(explanation.lines).toContain(`详情 / Details: what the client said about ${kind}`);
      expectCopyableCommands(explanation);
    },
  );

  test.each([
    ["authentication", 401, "DeepSeek refused the API key (401). Check that DEEPSEEK_API_KEY is complete"],
    ["insufficient_balance", 402, "The DeepSeek account has no balance left (402). Top it up"],
    ["rate_limit", 429, "Too many requests (429), still limited after the SDK's retries"],
    ["server", 503, "DeepSeek failed or is overloaded (503)"],
    ["bad_request", 400, "DeepSeek refused the request (400). A common cause is a DEEPSEEK_MODEL that does not exist"],
    ["network", undefined, "Could not reach DeepSeek. Check the network, any proxy, and DEEPSEEK_BASE_URL"],
    ["timeout", undefined, "allow more time with DEEPSEEK_TIMEOUT_MS (milliseconds)"],
    ["bad_reply", 200, "DeepSeek returned HTTP 200, but the reply is not in the documented shape"],
  ] as const)("%s says what to do: %s", (kind, status, advice) => {
    expect(explain(failure(new DeepSeekError("…", kind, status))).lines[1]).toContain(advice);
  });

  test("a failure that is not a DeepSeekError is told as the run's own message", () => {
    const explanation = explain(failure(new TypeError("tool crashed")));
    expect(explanation.lines[1]).toBe("The model call failed.");
    expect(explanation.lines).toContain("详情 / Details: turn 1 failed");
  });
});

describe("explainSetting: a refused setting, before anything was sent", () => {
  const refused = new DeepSeekConfigError("DEEPSEEK_BASE_URL", "DEEPSEEK_BASE_URL 不是有效的 URL", "DEEPSEEK_BASE_URL is not a valid URL");

  test("the setting's Chinese explanation, then its English, then what to do", () => {
    const explanation = explainSetting(refused);
    expect(explanation.title).toEqual(["设置有误", "A setting is wrong"]);
    expect(explanation.lines.slice(0, 2)).toEqual([
      "设置有误，还没有发出任何请求。DEEPSEEK_BASE_URL 不是有效的 URL",
      "A setting is wrong, so nothing was sent. DEEPSEEK_BASE_URL is not a valid URL",
    ]);
    expectCopyableCommands(explanation);
  });

  test("a missing key is explained the same way (it is a refused setting too)", () => {
    expect(explainSetting(new MissingApiKeyError()).lines[0]).toMatch(/^设置有误，还没有发出任何请求。没有设置 DEEPSEEK_API_KEY/);
  });
});

describe("explainTrouble: why the run stops before ③", () => {
  test("a replay that no longer matches its recording comes before the failed call it caused", () => {
    const trouble = explainTrouble("request #1 differs; messages[1].content", failure(new DeepSeekError("400", "bad_request", 400)));
    expect(trouble?.title).toEqual(["离线回放失败", "The offline replay failed"]);
    expect(trouble?.lines.at(-1)).toBe("request #1 differs; messages[1].content");
  });

  test("nothing to explain when the replay matched and the run did not fail", () => {
    expect(explainTrouble(undefined, undefined)).toBeUndefined();
  });
});

describe("structureCheck: ④'s last word on the log", () => {
  test("problems are counted in both languages, and a log without turn/end says so", () => {
    expect(structureCheck(2, [])).toEqual([
      "结构检查（轮次/步骤闭合、每个工具调用都有结果）：2 个问题；轮次结束原因：没有 turn/end",
      "(structure check — turns and steps closed, every tool call answered: 2 problem(s); the turn ended: no turn/end)",
    ]);
  });
});

describe("formatMessage: ③ shows each message as one entry", () => {
  const call = (n: number) => ({ id: `call_0${n}`, name: "calculator", arguments: `{"expression": "${n}+${n}"}` });

  test("all of one reply's tool calls on one line, with any text the reply had after them", () => {
    const message = {
      role: "assistant",
      content: "先算一下",
      reasoning_content: null,
      tool_calls: [call(1), call(2)],
    } as const;
    expect(formatMessage(message)).toBe(
      '[assistant → 请求工具] calculator({"expression": "1+1"}), calculator({"expression": "2+2"}) — 先算一下',
    );
  });

  test("a reply with no text and no calls is still one entry", () => {
    expect(formatMessage({ role: "assistant", content: null, reasoning_content: "thought", tool_calls: [] })).toBe("[assistant]");
  });
});
