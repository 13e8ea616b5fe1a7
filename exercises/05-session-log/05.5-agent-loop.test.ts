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
    if (next === undefined) throw new Error(`ScriptedClient: no reply scripted for request #${this.requests.length}`);
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

/** Runs a loop that must fail, and hands back what it rejected with. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("expected runAgent to reject, but it resolved"),
    (error: unknown) => error,
  );
}

const typesOf = (session: SessionLog) => session.events.map((event) => event.type);
const dataOf = (session: SessionLog, type: string) => session.events.filter((event) => event.type === type).map((event) => event.data);

// ── the round trip ──────────────────────────────────────────────────────────────────────────────

describe("05.5 runAgent: one calculator round trip (book §5.7)", () => {
  test("logs exactly 12 events in the book's order", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    expect(typesOf(session)).toEqual(ROUND_TRIP);
  });

  test("each event carries the book's data", async () => {
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

  test("the log derives the 4 messages the model saw", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    expect(session.deriveMessages()).toEqual([
      { role: "user", content: PROMPT },
      { role: "assistant", content: "", reasoning_content: firstReasoning, tool_calls: [firstCall] },
      { role: "tool", content: "7", tool_call_id: firstCall.id },
      { role: "assistant", content: finalAnswer, reasoning_content: finalReasoning, tool_calls: [] },
    ]);
  });

  test("ids count from 0 without gaps", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    expect(session.events.map((event) => event.id)).toEqual([...ROUND_TRIP.keys()]);
  });

  test("resolves with a Session — the one passed in, when there is one", async () => {
    const fresh = await run(new ScriptedClient(roundTripScript()));
    expect(fresh).toBeInstanceOf(Session);
    const given = new Session();
    expect(await run(new ScriptedClient(roundTripScript()), { session: given })).toBe(given);
  });
});

// ── what the model is sent ──────────────────────────────────────────────────────────────────────

describe("05.5 the request: the system prompt and tools travel beside the messages", () => {
  test("request/header records client.model, the system prompt and toolSpec(tool), once per turn", async () => {
    const client = new ScriptedClient(roundTripScript());
    const session = await run(client);
    expect(dataOf(session, "request/header")).toEqual([
      { header: { model: client.model, system: SYSTEM, tools: [toolSpec(calculator)] }, reason: "initial" },
    ]);
  });

  test("the system prompt is never a message: not in the derived messages, not in any other event", async () => {
    const client = new ScriptedClient(roundTripScript());
    const session = await run(client);
    const mentions = session.events.filter((event) => JSON.stringify(event.data).includes(SYSTEM));
    expect(
      mentions.map((event) => event.type),
      "only request/header may hold the system prompt",
    ).toEqual(["request/header"]);
    for (const request of client.requests) {
      expect(
        request.messages.filter((message) => message.content === SYSTEM),
        "the system prompt goes in request.system, not in request.messages",
      ).toEqual([]);
    }
  });

  test("every request carries the system prompt and the tool specs beside the messages", async () => {
    const client = new ScriptedClient(roundTripScript());
    await run(client);
    expect(client.requests).toHaveLength(2);
    for (const request of client.requests) {
      expect(request.system).toBe(SYSTEM);
      expect(request.tools).toEqual([toolSpec(calculator)]);
    }
  });

  test("the first request sends only the user's message", async () => {
    const client = new ScriptedClient(roundTripScript());
    await run(client);
    expect(client.requests[0]?.messages).toEqual([{ role: "user", content: PROMPT }]);
  });

  test("the second request carries the first reply with its reasoning_content, then the tool result", async () => {
    const client = new ScriptedClient(roundTripScript());
    await run(client);
    const expected: Message[] = [
      { role: "user", content: PROMPT },
      { role: "assistant", content: "", reasoning_content: firstReasoning, tool_calls: [firstCall] },
      { role: "tool", content: "7", tool_call_id: firstCall.id },
    ];
    expect(client.requests[1]?.messages, "DeepSeek answers 400 when a tool-call turn's reasoning_content is not sent back").toEqual(
      expected,
    );
  });

  test("a reply without reasoning_content is logged with reasoning_content: null", async () => {
    // A ChatClient may leave the optional field out; undefined is not JSON, so append would reject it.
    const { reasoning_content: _omitted, ...withoutReasoning } = reply("答案是 7。");
    const session = await run(new ScriptedClient([withoutReasoning]));
    expect(dataOf(session, "assistant/message"), "log reply.reasoning_content ?? null: a missing field is recorded as null").toEqual([
      { content: "答案是 7。", reasoning_content: null, tool_calls: [] },
    ]);
  });
});

// ── options checked before the turn starts ──────────────────────────────────────────────────────

describe("05.5 runAgent checks what it is given before logging anything", () => {
  test.each([0, -1, 1.5, Number.NaN])("maxSteps %s is a RangeError; nothing is logged or sent", async (maxSteps) => {
    const session = new Session();
    const client = new ScriptedClient(roundTripScript());
    const error = await rejectionOf(run(client, { maxSteps, session }));
    expect(error, "the step budget must be a positive integer (Number.isInteger(maxSteps) && maxSteps >= 1)").toBeInstanceOf(RangeError);
    expect((error as Error).message, "name the option that is wrong").toMatch(/maxSteps/);
    expect(session.events, "check maxSteps before the first append: a turn that starts must also end").toEqual([]);
    expect(client.requests, "and before the first model call").toEqual([]);
  });

  test("a tool whose schema has no JSON Schema (z.date()) makes runAgent reject before anything is logged", async () => {
    const reminder = defineTool({
      name: "remind",
      description: "Set a reminder",
      schema: z.object({ when: z.date() }),
      execute: () => "ok",
    });
    const session = new Session();
    const client = new ScriptedClient(roundTripScript());
    const error = await rejectionOf(runAgent({ client, tools: [calculator, reminder], systemPrompt: SYSTEM, userPrompt: PROMPT, session }));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message, "toolSpec(reminder) throws zod's error").toContain("cannot be represented in JSON Schema");
    expect(
      session.events,
      "build the request (tools.map(toolSpec)) before the first append, or the turn is left open with no turn/end",
    ).toEqual([]);
    expect(client.requests).toEqual([]);
  });
});

// ── tools that go wrong ─────────────────────────────────────────────────────────────────────────

describe("05.5 tool failures become error results, and the loop goes on", () => {
  const failures = [
    { what: "an unknown tool", toolCall: call("call_00_unknown", '{"city":"北京"}', "weather"), says: "weather" },
    { what: "arguments that are not valid JSON", toolCall: call("call_00_json", '{"expression": "1+'), says: "JSON" },
    {
      what: "arguments that do not match the schema",
      toolCall: call("call_00_schema", '{"expr":"1+1"}'),
      says: "expression",
    },
    {
      what: "a tool that throws (1/0)",
      toolCall: call("call_00_throws", '{"expression":"1/0"}'),
      says: "division by zero",
    },
  ];

  test.each(failures)("$what → tool/result with is_error: true", async ({ toolCall, says }) => {
    const session = await run(new ScriptedClient([reply("", [toolCall]), reply("抱歉，计算失败了。")]));
    expect(dataOf(session, "tool/result")).toEqual([{ call_id: toolCall.id, content: expect.stringContaining(says), is_error: true }]);
  });

  test.each(failures)("$what → the model reads the error in the next step and the turn completes", async ({ toolCall }) => {
    const client = new ScriptedClient([reply("", [toolCall]), reply("抱歉，计算失败了。")]);
    const session = await run(client);
    expect(typesOf(session), "a failed tool must not end the run").toEqual(ROUND_TRIP);
    expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "completed" }]);
    const [result] = dataOf(session, "tool/result");
    expect(client.requests[1]?.messages[2]).toEqual({
      role: "tool",
      content: result?.["content"],
      tool_call_id: toolCall.id,
    });
  });

  test("every call in one reply runs, in order, each tool/call logged before its tool/result", async () => {
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
      const logged = session.events.find((e) => e.type === "tool/call" && e.data["call_id"] === result.data["call_id"]);
      expect(logged, `tool/call for ${String(result.data["call_id"])}`).toBeDefined();
      expect(logged!.id, "a call is logged before its result").toBeLessThan(result.id);
    }
  });
});

// ── the step budget ─────────────────────────────────────────────────────────────────────────────

describe("05.5 the step budget", () => {
  const keepsCalling = (n: number) =>
    Array.from({ length: n }, (_, i) => reply("", [call(`call_00_step${i + 1}`, `{"expression":"${i + 1}+${i + 1}"}`)]));

  test("maxSteps 2 and a model that never stops calling tools: 2 steps, then turn/end max_steps", async () => {
    const client = new ScriptedClient(keepsCalling(3));
    const session = await run(client, { maxSteps: 2 });
    expect(dataOf(session, "step/start")).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(client.requests, "one model call per step").toHaveLength(2);
    expect(typesOf(session).slice(-2)).toEqual(["step/end", "turn/end"]);
    expect(session.events.at(-1)?.data, "the budget ran out; the promise still resolves").toEqual({
      turn: 1,
      reason: "max_steps",
    });
  });

  test("the default budget is 10 steps", async () => {
    const client = new ScriptedClient(keepsCalling(11));
    const session = await run(client);
    expect(dataOf(session, "step/start")).toHaveLength(10);
    expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "max_steps" }]);
  });

  test("answering in the last allowed step is 'completed', not 'max_steps'", async () => {
    const session = await run(new ScriptedClient(roundTripScript()), { maxSteps: 2 });
    expect(dataOf(session, "turn/end")).toEqual([{ turn: 1, reason: "completed" }]);
  });
});

// ── the model call fails ────────────────────────────────────────────────────────────────────────

describe("05.5 when the model call fails: step/end, turn/end error, AgentRunError", () => {
  test("rejects with AgentRunError whose .session holds the whole log", async () => {
    const error = await rejectionOf(run(new ScriptedClient([new Error("503 server overloaded")])));
    expect(error).toBeInstanceOf(AgentRunError);
    const { session } = error as AgentRunError;
    expect(session).toBeInstanceOf(Session);
    expect(typesOf(session), "the failed step is closed by step/end before turn/end (use finally)").toEqual([
      "turn/start",
      "user/message",
      "request/header",
      "step/start",
      "step/end",
      "turn/end",
    ]);
    expect(session.events.at(-1)?.data).toEqual({
      turn: 1,
      reason: "error",
      message: expect.stringContaining("503 server overloaded"),
    });
  });

  test("the AgentRunError's cause is the very error the client threw", async () => {
    const failure = new Error("503 server overloaded");
    const error = await rejectionOf(run(new ScriptedClient([failure])));
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).cause, "new AgentRunError(message, session, { cause: error })").toBe(failure);
  });

  test("step/end is written even when the step throws: a failure in step 2 keeps step 1", async () => {
    const client = new ScriptedClient([reply("", [firstCall], firstReasoning), new Error("connection reset")]);
    const error = await rejectionOf(run(client));
    expect(error).toBeInstanceOf(AgentRunError);
    const { session } = error as AgentRunError;
    expect(typesOf(session), "the book's `finally` closes the failed step").toEqual([
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

  test("the error carries the session that was passed in, earlier turns included", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    const error = await rejectionOf(run(new ScriptedClient([new Error("401 invalid key")]), { session }));
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).session).toBe(session);
    expect(session.events).toHaveLength(12 + 6);
  });
});

// ── a second turn ───────────────────────────────────────────────────────────────────────────────

describe("05.5 continuing a session: the `session` option starts the next turn", () => {
  test("turn 2 is appended after every event of turn 1, which stay as they were", async () => {
    const session = await run(new ScriptedClient(roundTripScript()));
    const turnOne = structuredClone(session.events);
    const client = new ScriptedClient([reply("再乘以 2 是 14。", [], "7×2=14")]);
    const same = await run(client, { session, userPrompt: "再乘以 2 呢？" });

    expect(same, "runAgent continues the session it was given").toBe(session);
    expect(session.events.slice(0, 12), "earlier events are never changed").toEqual(turnOne);
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
      "ids go on counting without gaps",
    ).toEqual([...Array(19).keys()]);
  });

  test("the model sees the earlier turn: turn 2's request starts with turn 1's 4 messages", async () => {
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

describe("05.5 properties: whatever the model does, the log is well formed", () => {
  test("ids contiguous, steps opened and closed in pairs, exactly one turn/end with the right reason", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(scriptedStep, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 5 }), async (steps, maxSteps) => {
        const script = steps.map((s) => {
          if (s.kind === "tools") return reply("", s.calls);
          return s.kind === "answer" ? reply("done") : new Error("model unavailable");
        });
        const client = new ScriptedClient(script);
        const outcome = await run(client, { maxSteps }).then(
          (session) => ({ session, failed: false }),
          (error: unknown) => {
            expect(error).toBeInstanceOf(AgentRunError);
            return { session: (error as AgentRunError).session, failed: true };
          },
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
        expect(outcome.failed, "the promise rejects exactly when the turn ends in error").toBe(ending === "error");
        expect(client.requests).toHaveLength(stepsRun);

        const boundaries = events.filter((e) => e.type === "step/start" || e.type === "step/end");
        const expectedBoundaries = Array.from({ length: stepsRun }, (_, i) => [
          ["step/start", { turn: 1, step: i + 1 }],
          ["step/end", { turn: 1, step: i + 1 }],
        ]).flat();
        expect(boundaries.map((e) => [e.type, e.data])).toEqual(expectedBoundaries);

        const callIds = events.filter((e) => e.type === "tool/call").map((e) => e.data["call_id"]);
        const resultIds = events.filter((e) => e.type === "tool/result").map((e) => e.data["call_id"]);
        expect(resultIds, "every tool/call gets its tool/result").toEqual(callIds);
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
    if (outcome.error !== undefined && !(outcome.error instanceof AgentRunError)) throw outcome.error;
    replay.verify();
    return outcome;
  } finally {
    replay.close();
  }
}

describe("05.5 against recorded DeepSeek traffic (real DeepSeekClient, MSW replay)", () => {
  test("calculator: the book's 12 events and 4 messages, every request exactly as recorded", async () => {
    const { session, error } = await replayWithYourLoop("calculator");
    expect(error, "the recorded round trip completes").toBeUndefined();
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
    expect(firstReply?.["reasoning_content"], "the reply's reasoning is logged (and was sent back: request #2 matched)").toEqual(
      expect.stringContaining("1+2*3"),
    );
    expect(dataOf(session!, "tool/result")).toEqual([{ call_id: expect.stringMatching(/^call_00_/), content: "7", is_error: false }]);
    expect(JSON.stringify(session!.events), "the API key never reaches the log").not.toContain(REPLAY_KEY);
  });

  test("tool-error: the calculator's division by zero is an is_error result, and the model explains it", async () => {
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

  test("max-steps: a budget of 2 used up ends with turn/end max_steps, and the promise resolves", async () => {
    const { session, error } = await replayWithYourLoop("max-steps");
    expect(error, "running out of steps is not an error").toBeUndefined();
    expect(dataOf(session!, "step/start")).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(dataOf(session!, "tool/result").map((data) => data["content"])).toEqual(["2", "4"]);
    expect(session!.events.at(-1)?.data).toEqual({ turn: 1, reason: "max_steps" });
  });

  test("auth-error: a 401 rejects with AgentRunError; the log ends step/end, turn/end error", async () => {
    const { error } = await replayWithYourLoop("auth-error");
    expect(error).toBeInstanceOf(AgentRunError);
    const { session } = error as AgentRunError;
    expect(typesOf(session)).toEqual(["turn/start", "user/message", "request/header", "step/start", "step/end", "turn/end"]);
    expect(session.events.at(-1)?.data).toEqual({
      turn: 1,
      reason: "error",
      message: expect.stringContaining("Authentication Fails"),
    });
    expect(JSON.stringify(session.events)).not.toContain(REPLAY_KEY);
  });
});

describe("05.5 the API key never reaches the log (real DeepSeekClient, MSW)", () => {
  test("a 401 whose body echoes the whole key: the key is in no event, not in the AgentRunError, not in turn/end", async () => {
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
      const error = await rejectionOf(run(client));
      expect(error).toBeInstanceOf(AgentRunError);
      const { session, message } = error as AgentRunError;
      const turnEnd = session.events.at(-1);
      expect(turnEnd?.data).toEqual({
        turn: 1,
        reason: "error",
        message: expect.stringContaining("Authentication Fails"),
      });
      const places = [
        ["the session's events", JSON.stringify(session.events)],
        ["AgentRunError.message", message],
        ["turn/end's message", String(turnEnd?.data["message"])],
      ];
      for (const [where, text] of places) {
        const why = `${where} must not hold the key: log messageOf(error), the client's scrubbed message`;
        expect(text, why).not.toContain(key);
        expect(text, `${why} (not even the last four characters DeepSeek echoes)`).not.toContain(key.slice(-4));
      }
    } finally {
      server.close();
    }
  });
});
