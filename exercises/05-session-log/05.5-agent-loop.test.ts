// Step 05.5 — runAgent, the logged loop (book §5.5; its last block is the §5.7 run). Every step of the chapter-02 loop becomes an
// append, and the messages sent to the model are derived from the log before each call. The first
// tests drive your loop with a scripted fake model, so each rule can be shown on its own; the last
// block replays recorded DeepSeek traffic through the real DeepSeekClient.
// Needs steps 05.1–05.3 (your Session and projection).
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { z } from "zod";
import { calculator } from "../../chapters/common/calculator.ts";
import { DeepSeekClient, type ChatClient, type ChatRequest } from "../../chapters/common/deepseek.ts";
import type { AssistantMessage, Message, ToolCall } from "../../chapters/common/messages.ts";
import { defineTool, toolSpec } from "../../chapters/common/tools.ts";
import { fixturePath, loadFixture } from "../../fixtures/fixture.ts";
import { startReplay } from "../../fixtures/replay.ts";
import { findScenario } from "../../fixtures/scenarios.ts";
import { ROUND_TRIP } from "../../fixtures/test-helpers.ts";
import { AgentRunError } from "../../chapters/05-session-log/loop-types.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import { runAgent } from "./agent-loop.ts";
import { Session } from "./session.ts";
import { caughtAs, rejectedAs } from "./thrown.ts";

// ── a scripted model ────────────────────────────────────────────────────────────────────────────

/** A ChatClient that answers from a script and records every request it was sent. */
class ScriptedClient implements ChatClient {
  readonly model = "deepseek-flash-scripted";
  /** Copies taken at call time: what the loop sent then, whatever it does to its objects later. */
  readonly requests: ChatRequest[] = [];
  readonly #script: (AssistantMessage | Error)[];

  constructor(script: readonly (AssistantMessage | Error)[]) {
    this.#script = [...script];
  }

  async chat(request: ChatRequest): Promise<AssistantMessage> {
    this.requests.push(structuredClone(request));
    const next = this.#script.shift();
    if (next === undefined)
      throw new Error(
        `脚本化的模型 ScriptedClient 没有准备第 ${this.requests.length} 个请求的回复 / ScriptedClient: no reply scripted for request #${this.requests.length}`,
      );
    if (next instanceof Error) throw next;
    return next;
  }
}

function reply(content: string | null, toolCalls: readonly ToolCall[] = [], reasoning: string | null = null): AssistantMessage {
  return { role: "assistant", content, reasoning_content: reasoning, tool_calls: toolCalls };
}

function call(id: string, args: string, name = "calculator"): ToolCall {
  return { id, name, arguments: args };
}

const SYSTEM = "你是一个乐于助人的助手。遇到算术题时，用 calculator 工具计算，不要心算。";
const PROMPT = "1+2*3 等于几？";

const firstCall = call("call_00_roundtrip", '{"expression":"1+2*3"}');
const firstReasoning = "用户问 1+2*3，先调用计算器。";
const finalReasoning = "计算器返回 7。";
const finalAnswer = "根据计算，1 + 2 × 3 = 7。";

/** The book's §5.7 run: the model calls the calculator once, then answers. */
function roundTripScript(): AssistantMessage[] {
  return [reply("", [firstCall], firstReasoning), reply(finalAnswer, [], finalReasoning)];
}

function run(client: ChatClient, options: { maxSteps?: number; session?: SessionLog; userPrompt?: string } = {}) {
  return runAgent({ client, tools: [calculator], systemPrompt: SYSTEM, userPrompt: PROMPT, ...options });
}

/** The rule when a step fails, as the failure of a test that expects an AgentRunError says it. */
const stepFails =
  "一步失败时（模型调用或 append 抛错），runAgent 以 AgentRunError 拒绝：先在 finally 里写 step/end，再记 turn/end error / " +
  "when a step fails (its model call or an append throws), runAgent rejects with an AgentRunError: step/end in finally, then turn/end error";

const typesOf = (session: SessionLog) => session.events.map((event) => event.type);
const dataOf = (session: SessionLog, type: string) => session.events.filter((event) => event.type === type).map((event) => event.data);

// ── the round trip ──────────────────────────────────────────────────────────────────────────────

describe("05.5 runAgent：一次计算器往返（5.7 节） / one calculator round trip (the book's 5.7)", () => {
  test("按书里的顺序恰好记下 12 条事件 / logs exactly 12 events in the book's order", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    expect(typesOf(session)).toEqual(ROUND_TRIP);
  });

  test("每条事件带着书里的数据 / each event carries the book's data", async () => {
    const client = new ScriptedClient(roundTripScript());
    const session = await run(client);
    const header = { model: client.model, system: SYSTEM, tools: [toolSpec(calculator)] };
    const toolCallData = { call_id: firstCall.id, name: "calculator", arguments: firstCall.arguments };
    expect(session.events.map((event) => [event.type, event.data])).toEqual([
      ["turn/start", { turn: 1 }],
      ["user/message", { content: PROMPT }],
      ["request/header", { header, reason: "initial" }],
      ["step/start", { turn: 1, step: 1 }],
      ["assistant/message", { content: "", reasoning_content: firstReasoning, tool_calls: [firstCall] }],
      ["tool/call", toolCallData],
      ["tool/result", { call_id: firstCall.id, content: "7", is_error: false }],
      ["step/end", { turn: 1, step: 1 }],
      ["step/start", { turn: 1, step: 2 }],
      ["assistant/message", { content: finalAnswer, reasoning_content: finalReasoning, tool_calls: [] }],
      ["step/end", { turn: 1, step: 2 }],
      ["turn/end", { turn: 1, reason: "completed" }],
    ]);
  });

  test("日志派生出模型看到的 4 条消息 / the log derives the 4 messages the model saw", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    expect(session.deriveMessages()).toEqual([
      { role: "user", content: PROMPT },
      { role: "assistant", content: "", reasoning_content: firstReasoning, tool_calls: [firstCall] },
      { role: "tool", content: "7", tool_call_id: firstCall.id },
      { role: "assistant", content: finalAnswer, reasoning_content: finalReasoning, tool_calls: [] },
    ]);
  });

  test("id 从 0 开始连续，没有空缺 / ids count from 0 without gaps", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    expect(session.events.map((event) => event.id)).toEqual([...ROUND_TRIP.keys()]);
  });

  test("以一个 Session 完成——传入了 session，就是那一个 / resolves with a Session — the one passed in, when there is one", async () => {
    const fresh = await run(new ScriptedClient(roundTripScript()));
    expect(fresh).toBeInstanceOf(Session);
    const given = new Session();
    expect(await run(new ScriptedClient(roundTripScript()), { session: given })).toBe(given);
  });
});

// ── what the model is sent ──────────────────────────────────────────────────────────────────────

describe("05.5 请求：系统提示词和工具说明放在消息旁边 / the request: the system prompt and tools travel beside the messages", () => {
  test("request/header 记下 client.model、系统提示词和 toolSpec(tool)，每轮一次 / request/header records client.model, the system prompt and toolSpec(tool), once per turn", async () => {
    const client = new ScriptedClient(roundTripScript());
    const session = await run(client);
    expect(dataOf(session, "request/header")).toEqual([
      { header: { model: client.model, system: SYSTEM, tools: [toolSpec(calculator)] }, reason: "initial" },
    ]);
  });

  test("系统提示词永远不是消息：不在派生的消息里，也不在别的事件里 / the system prompt is never a message: not in the derived messages, not in any other event", async () => {
    const client = new ScriptedClient(roundTripScript());
    const session = await run(client);
    const mentions = session.events.filter((event) => JSON.stringify(event.data).includes(SYSTEM));
    expect(
      mentions.map((event) => event.type),
      "只有 request/header 可以放系统提示词 / only request/header may hold the system prompt",
    ).toEqual(["request/header"]);
    for (const request of client.requests) {
      expect(
        request.messages.filter((message) => message.content === SYSTEM),
        "系统提示词放在 request.system，不放在 request.messages / the system prompt goes in request.system, not in request.messages",
      ).toEqual([]);
    }
  });

  test("每次请求都在消息旁边带着系统提示词和工具说明 / every request carries the system prompt and the tool specs beside the messages", async () => {
    const client = new ScriptedClient(roundTripScript());
    await run(client);
    expect(client.requests).toHaveLength(2);
    for (const request of client.requests) {
      expect(request.system).toBe(SYSTEM);
      expect(request.tools).toEqual([toolSpec(calculator)]);
    }
  });

  test("第一次请求只发用户消息 / the first request sends only the user's message", async () => {
    const client = new ScriptedClient(roundTripScript());
    await run(client);
    expect(client.requests[0]?.messages).toEqual([{ role: "user", content: PROMPT }]);
  });

  test("第二次请求带着第一条回复（含 reasoning_content），然后是工具结果 / the second request carries the first reply with its reasoning_content, then the tool result", async () => {
    const client = new ScriptedClient(roundTripScript());
    await run(client);
    const expected: Message[] = [
      { role: "user", content: PROMPT },
      { role: "assistant", content: "", reasoning_content: firstReasoning, tool_calls: [firstCall] },
      { role: "tool", content: "7", tool_call_id: firstCall.id },
    ];
    expect(
      client.requests[1]?.messages,
      "有工具调用的回复不把 reasoning_content 发回去，DeepSeek 会回 400 / DeepSeek answers 400 when a tool-call turn's reasoning_content is not sent back",
    ).toEqual(expected);
  });

  test("没有 reasoning_content 的回复记成 reasoning_content: null / a reply without reasoning_content is logged with reasoning_content: null", async () => {
    // A ChatClient may leave the optional field out; undefined is not JSON, so append would reject it.
    const { reasoning_content: _omitted, ...withoutReasoning } = reply("答案是 7。");
    const session = await run(new ScriptedClient([withoutReasoning]));
    expect(
      dataOf(session, "assistant/message"),
      "记录 reply.reasoning_content ?? null：缺少的字段记成 null / log reply.reasoning_content ?? null: a missing field is recorded as null",
    ).toEqual([{ content: "答案是 7。", reasoning_content: null, tool_calls: [] }]);
  });
});

// ── options checked before the turn starts ──────────────────────────────────────────────────────

describe("05.5 runAgent 在记录任何东西之前，先检查传给它的参数 / runAgent checks what it is given before logging anything", () => {
  test.each([0, -1, 1.5, Number.NaN])(
    "maxSteps 为 $0 是 RangeError；什么都不记录、不发送 / maxSteps $0 is a RangeError; nothing is logged or sent",
    async (maxSteps) => {
      const session = new Session();
      const client = new ScriptedClient(roundTripScript());
      const error = await rejectedAs(
        RangeError,
        run(client, { maxSteps, session }),
        "步数预算必须是正整数（Number.isInteger(maxSteps) && maxSteps >= 1） / the step budget must be a positive integer (Number.isInteger(maxSteps) && maxSteps >= 1)",
      );
      expect(error.message, "说出是哪个参数不对：maxSteps / name the option that is wrong").toMatch(/maxSteps/);
      expect(
        session.events,
        "在第一次 append 之前检查 maxSteps：开始了的轮次也必须结束 / check maxSteps before the first append: a turn that starts must also end",
      ).toEqual([]);
      expect(client.requests, "也要在第一次调用模型之前 / and before the first model call").toEqual([]);
    },
  );

  test("工具的 schema 转不成 JSON Schema（z.date()）时，runAgent 在记录任何东西之前就拒绝 / a tool whose schema has no JSON Schema (z.date()) makes runAgent reject before anything is logged", async () => {
    const reminder = defineTool({
      name: "remind",
      description: "Set a reminder",
      schema: z.object({ when: z.date() }),
      execute: () => "ok",
    });
    const session = new Session();
    const client = new ScriptedClient(roundTripScript());
    const error = await rejectedAs(
      Error,
      runAgent({ client, tools: [calculator, reminder], systemPrompt: SYSTEM, userPrompt: PROMPT, session }),
      "runAgent 以 toolSpec 抛出的错误拒绝 / runAgent rejects with the error toolSpec throws",
    );
    expect(error.message, "toolSpec(reminder) 抛出 zod 的错误 / toolSpec(reminder) throws zod's error").toContain(
      "cannot be represented in JSON Schema",
    );
    expect(
      session.events,
      "在第一次 append 之前建好请求（tools.map(toolSpec)），否则这一轮开了头却没有 turn/end / build the request (tools.map(toolSpec)) before the first append, or the turn is left open with no turn/end",
    ).toEqual([]);
    expect(client.requests).toEqual([]);
  });
});

// ── tools that go wrong ─────────────────────────────────────────────────────────────────────────

describe("05.5 工具失败变成错误结果，循环继续 / tool failures become error results, and the loop goes on", () => {
  const failures = [
    { whatZh: "未知工具", what: "an unknown tool", toolCall: call("call_00_unknown", '{"city":"北京"}', "weather"), says: "weather" },
    {
      whatZh: "不是合法 JSON 的参数",
      what: "arguments that are not valid JSON",
      toolCall: call("call_00_json", '{"expression": "1+'),
      says: "JSON",
    },
    {
      whatZh: "不合 schema 的参数",
      what: "arguments that do not match the schema",
      toolCall: call("call_00_schema", '{"expr":"1+1"}'),
      says: "expression",
    },
    {
      whatZh: "抛错的工具（1/0）",
      what: "a tool that throws (1/0)",
      toolCall: call("call_00_throws", '{"expression":"1/0"}'),
      says: "division by zero",
    },
  ];

  test.each(failures)("$whatZh → is_error: true 的 tool/result / $what → tool/result with is_error: true", async ({ toolCall, says }) => {
    const session = await run(new ScriptedClient([reply("", [toolCall]), reply("抱歉，计算失败了。")]));
    expect(dataOf(session, "tool/result")).toEqual([{ call_id: toolCall.id, content: expect.stringContaining(says), is_error: true }]);
  });

  test.each(failures)(
    "$whatZh → 模型在下一步读到错误，这一轮照常完成 / $what → the model reads the error in the next step and the turn completes",
    async ({ toolCall }) => {
      const client = new ScriptedClient([reply("", [toolCall]), reply("抱歉，计算失败了。")]);
      const session = await run(client);
      expect(typesOf(session), "工具失败不能结束这次运行 / a failed tool must not end the run").toEqual(ROUND_TRIP);
      expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "completed" }]);
      const [result] = dataOf(session, "tool/result");
      expect(client.requests[1]?.messages[2]).toEqual({
        role: "tool",
        content: result?.["content"],
        tool_call_id: toolCall.id,
      });
    },
  );

  test("一条回复里的每个调用都按顺序执行，每个 tool/call 都记在它的 tool/result 之前 / every call in one reply runs, in order, each tool/call logged before its tool/result", async () => {
    const calls = [
      call("call_00_a", '{"expression":"(1+2)*3"}'),
      call("call_01_b", "{}", "weather"),
      call("call_02_c", '{"expression":"10/4"}'),
    ];
    const session = await run(new ScriptedClient([reply("", calls), reply("9 和 2.5")]));
    const results = session.events.filter((event) => event.type === "tool/result");
    expect(results.map((event) => [event.data["call_id"], event.data["content"], event.data["is_error"]])).toEqual([
      ["call_00_a", "9", false],
      ["call_01_b", expect.stringContaining("weather"), true],
      ["call_02_c", "2.5", false],
    ]);
    for (const result of results) {
      const id = String(result.data["call_id"]);
      const logged = session.events.find((e) => e.type === "tool/call" && e.data["call_id"] === id);
      expect(logged, `${id} 的 tool/call / tool/call for ${id}`).toBeDefined();
      expect(logged!.id, "调用要记在它的结果之前 / a call is logged before its result").toBeLessThan(result.id);
    }
  });
});

// ── the step budget ─────────────────────────────────────────────────────────────────────────────

describe("05.5 步数预算 / the step budget", () => {
  const keepsCalling = (n: number) =>
    Array.from({ length: n }, (_, i) => reply("", [call(`call_00_step${i + 1}`, `{"expression":"${i + 1}+${i + 1}"}`)]));

  test("maxSteps 为 2，模型一直调用工具：走 2 步，然后 turn/end max_steps / maxSteps 2 and a model that never stops calling tools: 2 steps, then turn/end max_steps", async () => {
    const client = new ScriptedClient(keepsCalling(3));
    const session = await run(client, { maxSteps: 2 });
    expect(dataOf(session, "step/start")).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(client.requests, "每一步调用一次模型 / one model call per step").toHaveLength(2);
    expect(typesOf(session).slice(-2)).toEqual(["step/end", "turn/end"]);
    expect(session.events.at(-1)?.data, "预算用完了；promise 照样正常完成 / the budget ran out; the promise still resolves").toEqual({
      turn: 1,
      reason: "max_steps",
    });
  });

  test("默认预算是 10 步 / the default budget is 10 steps", async () => {
    const client = new ScriptedClient(keepsCalling(11));
    const session = await run(client);
    expect(dataOf(session, "step/start")).toHaveLength(10);
    expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "max_steps" }]);
  });

  test("在允许的最后一步作答是 'completed'，不是 'max_steps' / answering in the last allowed step is 'completed', not 'max_steps'", async () => {
    const session = await run(new ScriptedClient(roundTripScript()), { maxSteps: 2 });
    expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "completed" }]);
  });
});

// ── the model call fails ────────────────────────────────────────────────────────────────────────

describe("05.5 一步失败时（模型调用或 append 抛错）：step/end、turn/end error、AgentRunError / when a step fails (its model call or an append throws): step/end then turn/end error, AgentRunError", () => {
  test("以 AgentRunError 拒绝，它的 .session 保存完整的日志 / rejects with AgentRunError whose .session holds the whole log", async () => {
    const { session } = await rejectedAs(AgentRunError, run(new ScriptedClient([new Error("503 server overloaded")])), stepFails);
    expect(session).toBeInstanceOf(Session);
    expect(
      typesOf(session),
      "失败的那一步在 turn/end 之前由 step/end 闭合（用 finally） / the failed step is closed by step/end before turn/end (use finally)",
    ).toEqual(["turn/start", "user/message", "request/header", "step/start", "step/end", "turn/end"]);
    expect(session.events.at(-1)?.data).toEqual({
      turn: 1,
      reason: "error",
      message: expect.stringContaining("503 server overloaded"),
    });
  });

  test("AgentRunError 的 cause 就是客户端抛出的那个错误对象 / the AgentRunError's cause is the very error the client threw", async () => {
    const failure = new Error("503 server overloaded");
    const error = await rejectedAs(AgentRunError, run(new ScriptedClient([failure])), stepFails);
    expect(
      error.cause,
      "把客户端的错误放进 cause：new AgentRunError(message, session, { cause: error }) / new AgentRunError(message, session, { cause: error })",
    ).toBe(failure);
  });

  test("步骤抛错时也写 step/end：第 2 步失败，第 1 步的记录不受影响 / step/end is written even when the step throws: a failure in step 2 keeps step 1", async () => {
    const client = new ScriptedClient([reply("", [firstCall], firstReasoning), new Error("connection reset")]);
    const { session } = await rejectedAs(AgentRunError, run(client), stepFails);
    expect(typesOf(session), "书里的 `finally` 闭合失败的那一步 / the book's `finally` closes the failed step").toEqual([
      ...ROUND_TRIP.slice(0, 8),
      "step/start",
      "step/end",
      "turn/end",
    ]);
    expect(dataOf(session, "step/end")).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "error", message: expect.stringContaining("connection reset") }]);
  });

  test("错误带着传入的那个 session，连同之前的轮次 / the error carries the session that was passed in, earlier turns included", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    const error = await rejectedAs(AgentRunError, run(new ScriptedClient([new Error("401 invalid key")]), { session }), stepFails);
    expect(error.session).toBe(session);
    expect(session.events).toHaveLength(12 + 6);
  });

  test("一步里的 append 抛错（日志拒绝的回复）时也写 step/end，这一轮以 error 结束 / step/end is written when an append in the step throws too (a reply the log refuses), and the turn ends in error", async () => {
    // A client that hands over the arguments already parsed: assistant/message's schema refuses the reply.
    const parsed = call("call_00_parsed", { expression: "1+2*3" } as unknown as string);
    const { session } = await rejectedAs(AgentRunError, run(new ScriptedClient([reply("", [parsed])])), stepFails);
    expect(
      typesOf(session),
      "书里的 `finally` 也闭合 append 抛错的那一步：try 要包住整个步骤，不只是模型调用 / " +
        "the book's `finally` closes a step whose append threw too: the try holds the whole step, not only the model call",
    ).toEqual(["turn/start", "user/message", "request/header", "step/start", "step/end", "turn/end"]);
    expect(session.events.at(-1)?.data).toMatchObject({ turn: 1, reason: "error" });
  });
});

// ── a second turn ───────────────────────────────────────────────────────────────────────────────

describe("05.5 继续会话：传入 `session`，开始下一轮 / continuing a session: the `session` option starts the next turn", () => {
  test("第 2 轮追加在第 1 轮的所有事件之后，第 1 轮的事件保持原样 / turn 2 is appended after every event of turn 1, which stay as they were", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    const turnOne = structuredClone(session.events);
    const client = new ScriptedClient([reply("再乘以 2 是 14。", [], "7×2=14")]);
    const same = await run(client, { session, userPrompt: "再乘以 2 呢？" });

    expect(same, "runAgent 接着写传给它的那个会话 / runAgent continues the session it was given").toBe(session);
    expect(session.events.slice(0, 12), "之前的事件从不改变 / earlier events are never changed").toEqual(turnOne);
    expect(session.events.slice(12).map((event) => [event.type, event.data])).toEqual([
      ["turn/start", { turn: 2 }],
      ["user/message", { content: "再乘以 2 呢？" }],
      ["request/header", { header: { model: client.model, system: SYSTEM, tools: [toolSpec(calculator)] }, reason: "initial" }],
      ["step/start", { turn: 2, step: 1 }],
      ["assistant/message", { content: "再乘以 2 是 14。", reasoning_content: "7×2=14", tool_calls: [] }],
      ["step/end", { turn: 2, step: 1 }],
      ["turn/end", { turn: 2, reason: "completed" }],
    ]);
    expect(
      session.events.map((event) => event.id),
      "id 接着往下数，没有空缺 / ids go on counting without gaps",
    ).toEqual([...Array(19).keys()]);
  });

  test("模型看得到之前的轮次：第 2 轮的请求以第 1 轮的 4 条消息开头 / the model sees the earlier turn: turn 2's request starts with turn 1's 4 messages", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    const earlier = session.deriveMessages();
    const client = new ScriptedClient([reply("14")]);
    await run(client, { session, userPrompt: "再乘以 2 呢？" });
    expect(client.requests[0]?.messages).toEqual([...earlier, { role: "user", content: "再乘以 2 呢？" }]);
  });
});

// ── properties over random scripts ──────────────────────────────────────────────────────────────

type ScriptedStep = { readonly kind: "tools"; readonly calls: ToolCall[] } | { readonly kind: "answer" } | { readonly kind: "fail" };

const someCall = fc.constantFrom(
  { name: "calculator", arguments: '{"expression":"1+2*3"}' },
  { name: "calculator", arguments: '{"expression":"1/0"}' },
  { name: "calculator", arguments: "{not json" },
  { name: "weather", arguments: "{}" },
);
const scriptedStep: fc.Arbitrary<ScriptedStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(someCall, { minLength: 1, maxLength: 3 })
      .map((calls) => ({ kind: "tools" as const, calls: calls.map((c, i) => ({ id: `call_0${i}_x`, ...c })) })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "answer" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "fail" as const }) },
);

describe("05.5 属性测试：不管模型怎么回复，日志的结构都正确 / properties: whatever the model does, the log is well formed", () => {
  test("id 连续，步骤成对开闭，恰好一个 turn/end，原因正确 / ids contiguous, steps opened and closed in pairs, exactly one turn/end with the right reason", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(scriptedStep, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 5 }), async (steps, maxSteps) => {
        const script = steps.map((s) => {
          if (s.kind === "tools") return reply("", s.calls);
          return s.kind === "answer" ? reply("done") : new Error("model unavailable");
        });
        const client = new ScriptedClient(script);
        const outcome = await run(client, { maxSteps }).then(
          (session) => ({ session, failed: false }),
          (error: unknown) => ({ session: caughtAs(AgentRunError, error, stepFails).session, failed: true }),
        );
        const { session } = outcome;
        const events = session.events;

        // What the script and the budget say must happen. `stop` is the first reply that ends the turn;
        // past the end of the script the client has no reply left, which is a failed call too.
        const firstNonTool = steps.findIndex((s) => s.kind !== "tools");
        const stop = firstNonTool === -1 ? steps.length : firstNonTool;
        const [stepsRun, ending] =
          stop < maxSteps ? [stop + 1, steps[stop]?.kind === "answer" ? "completed" : "error"] : [maxSteps, "max_steps"];

        expect(events.map((e) => e.id)).toEqual([...events.keys()]);
        expect(events.slice(0, 3).map((e) => e.type)).toEqual(["turn/start", "user/message", "request/header"]);
        expect(events.filter((e) => e.type === "turn/end").map((e) => e.data["reason"])).toEqual([ending]);
        expect(events.at(-1)?.type).toBe("turn/end");
        expect(outcome.failed, "promise 恰好在这一轮以 error 结束时拒绝 / the promise rejects exactly when the turn ends in error").toBe(
          ending === "error",
        );
        expect(client.requests).toHaveLength(stepsRun);

        const boundaries = events.filter((e) => e.type === "step/start" || e.type === "step/end");
        const expectedBoundaries = Array.from({ length: stepsRun }, (_, i) => [
          ["step/start", { turn: 1, step: i + 1 }],
          ["step/end", { turn: 1, step: i + 1 }],
        ]).flat();
        expect(boundaries.map((e) => [e.type, e.data])).toEqual(expectedBoundaries);

        const callIds = events.filter((e) => e.type === "tool/call").map((e) => e.data["call_id"]);
        const resultIds = events.filter((e) => e.type === "tool/result").map((e) => e.data["call_id"]);
        expect(resultIds, "每个 tool/call 都有它的 tool/result / every tool/call gets its tool/result").toEqual(callIds);
      }),
      { numRuns: 60 },
    );
  });
});

// ── the real client, on recorded traffic ────────────────────────────────────────────────────────

/** Never checked by the replay; here to prove the key stays out of the log. */
const REPLAY_KEY = "sk-replay-only-0000000000000000";

/**
 * Runs your runAgent on one scenario of fixtures/scenarios.ts with the real DeepSeekClient and the
 * openai SDK, MSW answering each HTTP request from fixtures/data/<name>.json. If your loop sends the
 * model anything other than what was recorded, this throws a diff of the first message that differs.
 */
async function replayWithYourLoop(name: string): Promise<{ session?: SessionLog; error?: unknown }> {
  const fixture = loadFixture(fixturePath(name));
  const replay = startReplay(fixture, { source: `fixtures/data/${name}.json` });
  try {
    // Built after the replay starts, so the SDK's fetch is the one MSW intercepts.
    const client = new DeepSeekClient({ apiKey: REPLAY_KEY, baseURL: replay.baseURL, model: fixture.meta.model });
    const { tools, systemPrompt, userPrompt, maxSteps } = findScenario(name);
    const outcome: { session?: SessionLog; error?: unknown } = await runAgent({
      client,
      tools,
      systemPrompt,
      userPrompt,
      maxSteps,
    }).then(
      (session) => ({ session }),
      (error: unknown) => ({ error }),
    );
    if (outcome.error !== undefined) caughtAs(AgentRunError, outcome.error, stepFails);
    replay.verify();
    return outcome;
  } finally {
    replay.close();
  }
}

describe("05.5 用录制的 DeepSeek 流量跑（真正的 DeepSeekClient，MSW 回放） / against recorded DeepSeek traffic (real DeepSeekClient, MSW replay)", () => {
  test("calculator：书里的 12 条事件和 4 条消息，每次请求都和录制的一模一样 / calculator: the book's 12 events and 4 messages, every request exactly as recorded", async () => {
    const { session, error } = await replayWithYourLoop("calculator");
    expect(error, "录制的往返正常完成 / the recorded round trip completes").toBeUndefined();
    expect(typesOf(session!)).toEqual(ROUND_TRIP);
    expect(session!.deriveMessages().map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(dataOf(session!, "request/header")).toEqual([
      {
        header: {
          model: "deepseek-flash",
          system: findScenario("calculator").systemPrompt,
          tools: [toolSpec(calculator)],
        },
        reason: "initial",
      },
    ]);
    const [firstReply] = dataOf(session!, "assistant/message");
    expect(
      firstReply?.["reasoning_content"],
      "回复的思考内容记进了日志（也发回去了：第 2 个请求对上了） / the reply's reasoning is logged (and was sent back: request #2 matched)",
    ).toEqual(expect.stringContaining("1+2*3"));
    expect(dataOf(session!, "tool/result")).toEqual([{ call_id: expect.stringMatching(/^call_00_/), content: "7", is_error: false }]);
    expect(JSON.stringify(session!.events), "API key 绝不进日志 / the API key never reaches the log").not.toContain(REPLAY_KEY);
  });

  test("tool-error：计算器除以零是 is_error 的结果，模型随后解释它 / tool-error: the calculator's division by zero is an is_error result, and the model explains it", async () => {
    const { session, error } = await replayWithYourLoop("tool-error");
    expect(error).toBeUndefined();
    expect(typesOf(session!)).toEqual(ROUND_TRIP);
    expect(dataOf(session!, "tool/result")).toEqual([
      {
        call_id: expect.stringMatching(/^call_00_/),
        content: expect.stringContaining("division by zero"),
        is_error: true,
      },
    ]);
    expect(dataOf(session!, "turn/end")).toEqual([{ turn: 1, reason: "completed" }]);
  });

  test("max-steps：2 步的预算用完，以 turn/end max_steps 结束，promise 正常完成 / max-steps: a budget of 2 used up ends with turn/end max_steps, and the promise resolves", async () => {
    const { session, error } = await replayWithYourLoop("max-steps");
    expect(error, "步数用完不是错误 / running out of steps is not an error").toBeUndefined();
    expect(dataOf(session!, "step/start")).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(dataOf(session!, "tool/result").map((data) => data["content"])).toEqual(["2", "4"]);
    expect(session!.events.at(-1)?.data).toEqual({ turn: 1, reason: "max_steps" });
  });

  test("auth-error：401 让 promise 以 AgentRunError 拒绝；日志以 step/end、turn/end error 结尾 / auth-error: a 401 rejects with AgentRunError; the log ends with step/end then turn/end error", async () => {
    const { error } = await replayWithYourLoop("auth-error");
    const { session } = caughtAs(AgentRunError, error, stepFails);
    expect(typesOf(session)).toEqual(["turn/start", "user/message", "request/header", "step/start", "step/end", "turn/end"]);
    expect(session.events.at(-1)?.data).toEqual({
      turn: 1,
      reason: "error",
      message: expect.stringContaining("Authentication Fails"),
    });
    expect(JSON.stringify(session.events)).not.toContain(REPLAY_KEY);
  });
});

describe("05.5 API key 绝不进日志（真正的 DeepSeekClient，MSW） / the API key never reaches the log (real DeepSeekClient, MSW)", () => {
  test("401 的响应体回显了整个 key：key 不在任何事件里，不在 AgentRunError 里，也不在 turn/end 里 / a 401 whose body echoes the whole key: the key is in no event, not in the AgentRunError, not in turn/end", async () => {
    const key = "sk-echoed-back-by-the-server-7Hq2Zq9X";
    const baseURL = "https://api.deepseek.test";
    const body = {
      error: {
        message: `Authentication Fails, Your api key: ${key} is invalid (****${key.slice(-4)})`,
        type: "authentication_error",
        param: null,
        code: "invalid_request_error",
      },
    };
    const server = setupServer(http.post(`${baseURL}/chat/completions`, () => HttpResponse.json(body, { status: 401 })));
    server.listen({ onUnhandledRequest: "error" });
    try {
      // Built after the server listens, so the SDK's fetch is the one MSW intercepts; no retries.
      const client = new DeepSeekClient({ apiKey: key, baseURL, model: "deepseek-flash", maxRetries: 0 });
      const { session, message } = await rejectedAs(AgentRunError, run(client), stepFails);
      const turnEnd = session.events.at(-1);
      expect(turnEnd?.data).toEqual({
        turn: 1,
        reason: "error",
        message: expect.stringContaining("Authentication Fails"),
      });
      const places = [
        ["会话的事件里", "the session's events", JSON.stringify(session.events)],
        ["AgentRunError.message 里", "AgentRunError.message", message],
        ["turn/end 的 message 里", "turn/end's message", String(turnEnd?.data["message"])],
      ];
      for (const [whereZh, where, text] of places) {
        const why = `${whereZh}不能有 key：记录 messageOf(error)，也就是客户端清理过的消息 / ${where} must not hold the key: log messageOf(error), the client's scrubbed message`;
        const evenTheEnd =
          `${whereZh}连 DeepSeek 回显的 key 后四位也不能有：记录 messageOf(error) / ` +
          `${where} must not hold the key (not even the last four characters DeepSeek echoes): log messageOf(error)`;
        expect(text, why).not.toContain(key);
        expect(text, evenTheEnd).not.toContain(key.slice(-4));
      }
    } finally {
      server.close();
    }
  });
});
