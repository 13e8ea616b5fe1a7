// Writes fixtures/data/<scenario>.json for every scenario from replies written by hand below, in
// DeepSeek's documented wire format. The *requests* in each file are not written by hand: the
// scenario really runs through runAgent, our DeepSeekClient and the openai SDK, and the recorder
// writes down what they sent. So a synthetic fixture checks our request bodies exactly like a
// recorded one; only the model's side is made up, and its meta says so ("provenance": "synthetic").
//
//   npx tsx scripts/maintainer/make-synthetic-fixtures.ts [--out <dir>] [scenario...]
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DeepSeekClient } from "../../chapters/common/deepseek.ts";
import { DEFAULT_BASE_URL, DEFAULT_MODEL } from "../../chapters/common/settings.ts";
import { AgentRunError } from "../../chapters/05-session-log/loop-types.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import { dataDir, fixturePath, formatFixture, isStreamed, type Fixture, type StreamedResponse } from "../../fixtures/fixture.ts";
import { createRecorder } from "../../fixtures/recorder.ts";
import { findScenario, scenarios, type Scenario } from "../../fixtures/scenarios.ts";
import { runScenario } from "../../chapters/05-session-log/demo/scenarios.ts";
import { streamedResponse, type StreamedTurn } from "./synthetic-sse.ts";

/** Never a real key. It ends in "abcd" so the 401 body's masked echo ("****abcd") matches it. */
const PLACEHOLDER_KEY = "sk-synthetic-placeholder-0000abcd";
const CREATED = 1787616000; // 2026-08-25, the book chapter's date

/** A reply sent at once (`body`, as JSON), or streamed (authored in synthetic-sse.ts with its pacing). */
type Reply = { readonly status: number; readonly body: unknown } | { readonly status: 200; readonly streamed: StreamedResponse };

// ── the model's side, authored ─────────────────────────────────────────────────────────────────

/** A stable UUID-shaped id, so regenerating gives the same files. */
function uuid(seed: string): string {
  const hex = createHash("sha256").update(seed).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** `call_00_` + 24 alphanumerics, the shape DeepSeek uses (`call_01_` for a second parallel call). */
function callId(index: number, seed: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = createHash("sha256").update(seed).digest();
  const tail = [...bytes.subarray(0, 24)].map((byte) => alphabet[byte % alphabet.length]).join("");
  return `call_0${index}_${tail}`;
}

interface Call {
  readonly name: string;
  readonly arguments: string;
}

interface Turn {
  readonly reasoning: string;
  readonly content?: string;
  readonly calls?: readonly Call[];
  /** prompt tokens, of which cache hits, then completion tokens, of which reasoning. */
  readonly tokens: readonly [number, number, number, number];
}

function usageOf([prompt, hit, completion, reasoning]: Turn["tokens"]) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_cache_hit_tokens: hit,
    prompt_cache_miss_tokens: prompt - hit,
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

function ok(seed: string, second: number, turn: Turn): Reply {
  const calls = turn.calls ?? [];
  const message = {
    role: "assistant",
    content: turn.content ?? "", // DeepSeek sends "" (not null) beside tool calls
    reasoning_content: turn.reasoning,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call, index) => ({
            index,
            id: callId(index, `${seed}/${index}`),
            type: "function",
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
  return {
    status: 200,
    body: {
      id: uuid(seed),
      object: "chat.completion",
      created: CREATED + second,
      model: DEFAULT_MODEL,
      choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
      usage: usageOf(turn.tokens),
      system_fingerprint: "fp_synthetic",
    },
  };
}

/** The same reply streamed; `how` says where usage arrives and whether the stream is cut short. */
function streamed(seed: string, second: number, turn: Turn, how: Pick<StreamedTurn, "usageOn" | "ending"> = {}): Reply {
  const calls = (turn.calls ?? []).map((call, index) => ({ id: callId(index, `${seed}/${index}`), ...call }));
  const { reasoning, content } = turn;
  const authored = { id: uuid(seed), created: CREATED + second, model: DEFAULT_MODEL, reasoning, calls, usage: usageOf(turn.tokens) };
  return { status: 200, streamed: streamedResponse({ ...authored, ...(content === undefined ? {} : { content }), ...how }) };
}

/** One streamed reply per turn, seeded and spaced as modelTurns does. */
const streamedTurns = (seed: string, turns: readonly Turn[], how: Pick<StreamedTurn, "usageOn"> = {}): Reply[] =>
  turns.map((turn, index) => streamed(`${seed}/${index + 1}`, 2 * index + 1, turn, how));

function apiError(status: number, message: string, type: string): Reply {
  return { status, body: { error: { message, type, param: null, code: "invalid_request_error" } } };
}

// Written the way DeepSeek writes arguments: a JSON string with a space after the colon.
const calc = (expression: string): Call => ({ name: "calculator", arguments: `{"expression": "${expression}"}` });

/** One successful reply per turn, seeded `<seed>/1`, `<seed>/2`, …, two seconds apart. */
const modelTurns = (seed: string, turns: readonly Turn[]): Reply[] =>
  turns.map((turn, index) => ok(`${seed}/${index + 1}`, 2 * index + 1, turn));

const calculatorTurns: readonly Turn[] = [
  {
    reasoning: "用户问 1+2*3 等于几。按运算顺序应先乘后加，不过系统要求用 calculator 工具计算，那就调用它。",
    calls: [calc("1+2*3")],
    tokens: [181, 128, 52, 31],
  },
  {
    reasoning: "计算器返回 7，和先乘后加的结果一致。回答时顺便说明运算顺序。",
    content: "根据计算，**1 + 2 × 3 = 7**。\n\n这里需要注意运算顺序：先算乘法（2 × 3 = 6），再算加法（1 + 6 = 7）。",
    tokens: [258, 192, 68, 24],
  },
];

const twoCallTurns: readonly Turn[] = [
  {
    reasoning: "两个算式互不依赖，可以在同一次回复里各调用一次 calculator。",
    calls: [calc("(1+2)*3"), calc("10/4")],
    tokens: [196, 128, 77, 22],
  },
  {
    reasoning: "两个结果都回来了：9 和 2.5。",
    content: "(1+2)×3 = **9**，10÷4 = **2.5**。",
    tokens: [312, 192, 37, 12],
  },
];

const calculatorRoundTrip = (seed: string): Reply[] => modelTurns(seed, calculatorTurns);

/** The follow-up question's turn: 7 × 2 through the calculator. */
const followUpTurns: readonly Turn[] = [
  {
    reasoning: "上一轮的结果是 7，再乘以 2。按要求用 calculator。",
    calls: [calc("7*2")],
    tokens: [336, 256, 41, 17],
  },
  { reasoning: "计算器返回 14。", content: "7 × 2 = **14**。", tokens: [401, 320, 22, 6] },
];

const replies: Record<string, readonly Reply[]> = {
  calculator: calculatorRoundTrip("calculator"),
  // Turn 1 is calculator's own replies, so an offline --save of either gives the same log.
  "calculator-follow-up": [...calculatorRoundTrip("calculator"), ...modelTurns("calculator-follow-up", followUpTurns)],
  "direct-answer": modelTurns("direct-answer", [
    {
      reasoning: "用户让我用一句话介绍自己，不需要工具。",
      content: "我是一个乐于助人的 AI 助手，可以回答问题，遇到算术题时会用计算器帮你算准。",
      tokens: [178, 128, 41, 13],
    },
  ]),
  "two-tool-calls": modelTurns("two-tool-calls", twoCallTurns),
  "tool-error": modelTurns("tool-error", [
    { reasoning: "用户要算 1/0，按要求交给 calculator。", calls: [calc("1/0")], tokens: [182, 128, 35, 14] },
    {
      reasoning: "calculator 报错：除以零。需要解释为什么没有结果。",
      content: "1/0 没有结果：calculator 报告了除以零的错误。在数学里，任何数除以 0 都没有定义，所以这道题无法给出数值答案。",
      tokens: [241, 192, 71, 19],
    },
  ]),
  "unknown-tool": modelTurns("unknown-tool", [
    {
      reasoning: "用户问北京今天的天气，我需要查询天气。",
      calls: [{ name: "get_weather", arguments: '{"city": "北京"}' }],
      tokens: [176, 128, 33, 15],
    },
    {
      reasoning: "没有 get_weather 这个工具，只有 calculator。应该如实告诉用户。",
      content: "抱歉，我没有查询天气的工具（目前只有 calculator），无法告诉你北京今天的天气。可以看看天气预报应用或中国天气网。",
      tokens: [240, 192, 62, 21],
    },
  ]),
  "invalid-json-arguments": modelTurns("invalid-json-arguments", [
    {
      reasoning: "用 calculator 计算 1+2*3。",
      calls: [{ name: "calculator", arguments: '{"expression": "1+2*3"' }], // cut off: no closing brace
      tokens: [181, 128, 19, 9],
    },
    { reasoning: "上次的参数不是合法 JSON，重新调用一次。", calls: [calc("1+2*3")], tokens: [262, 192, 30, 12] },
    { reasoning: "这次返回了 7。", content: "1 + 2 × 3 = **7**（先算乘法，再算加法）。", tokens: [318, 256, 28, 6] },
  ]),
  "max-steps": modelTurns("max-steps", [
    { reasoning: "按顺序来，先算 1+1。", calls: [calc("1+1")], tokens: [205, 128, 26, 8] },
    { reasoning: "1+1=2。接下来算 2+2。", calls: [calc("2+2")], tokens: [271, 192, 29, 11] },
  ]),
  "auth-error": [apiError(401, "Authentication Fails, Your api key: ****abcd is invalid", "authentication_error")],
  "insufficient-balance": [apiError(402, "Insufficient Balance", "unknown_error")],
  "rate-limit-then-success": [
    apiError(429, "Rate limit reached for requests", "rate_limit_error"),
    ...calculatorRoundTrip("rate-limit-then-success"),
  ],
  "server-error": [1, 2, 3].map(() => apiError(500, "Internal Server Error", "internal_error")),
  "calculator-streamed": streamedTurns("calculator", calculatorTurns), // the same ids: the model sees the same history
  // The same ids as calculator-follow-up, turn for turn: a log saved streamed or not goes on with either.
  "calculator-follow-up-streamed": [
    ...streamedTurns("calculator", calculatorTurns),
    ...streamedTurns("calculator-follow-up", followUpTurns),
  ],
  "two-tool-calls-streamed": streamedTurns("two-tool-calls", twoCallTurns, { usageOn: "finish-chunk" }),
  "stream-cut-mid-reasoning": [
    streamed("stream-cut-mid-reasoning", 1, calculatorTurns[0]!, { ending: { how: "dropped", afterReasoningDeltas: 14 } }),
  ],
  "stream-server-error": [streamed("stream-server-error", 1, calculatorTurns[0]!, { ending: { how: "error", afterReasoningDeltas: 9 } })],
};

const STREAMED =
  " The streams follow DeepSeek's documented SSE format (keep-alive comments, reasoning and answer deltas, tool-call" +
  " fragments joined by index, usage, [DONE]); how the text is cut into deltas and when each piece arrives are made up.";

const notes: Record<string, string> = {
  "rate-limit-then-success": " The 429 body's message and type are a guess: DeepSeek does not document them.",
  "server-error": " The 500 body's message and type are a guess: DeepSeek does not document them.",
  "calculator-streamed": STREAMED,
  "calculator-follow-up-streamed": STREAMED,
  "two-tool-calls-streamed": `${STREAMED} Usage rides on the finish chunk here, on a choices: [] chunk elsewhere: the docs allow both.`,
  "stream-cut-mid-reasoning": `${STREAMED} The connection drops after the 14th reasoning delta.`,
  "stream-server-error": `${STREAMED} The mid-stream error chunk (data: {"error": …}) is a guess at its shape: DeepSeek does not document it.`,
};

// ── the client's side, real ──────────────────────────────────────────────────────────────────

async function makeFixture(scenario: Scenario): Promise<Fixture> {
  const queue = [...(replies[scenario.name] ?? [])];
  const served: Reply[] = [];
  const serve: typeof globalThis.fetch = async () => {
    const reply = queue.shift();
    if (reply === undefined) throw new Error(`${scenario.name}: the client made more requests than there are replies`);
    served.push(reply);
    if ("streamed" in reply) return streamedBody(reply.streamed);
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { "content-type": "application/json" },
    });
  };
  const recorder = createRecorder(DEFAULT_BASE_URL, serve);
  const client = new DeepSeekClient({
    apiKey: PLACEHOLDER_KEY,
    baseURL: DEFAULT_BASE_URL,
    model: DEFAULT_MODEL,
    fetch: recorder.fetch,
  });
  const session = await runScenario(scenario, client).catch((error: unknown): SessionLog => {
    if (error instanceof AgentRunError) return error.session;
    throw error;
  });
  await recorder.settled();
  if (queue.length > 0) throw new Error(`${scenario.name}: ${queue.length} replies were never requested`);
  const end = lastTurnEnd(session);
  if (end !== scenario.expectedEnd) throw new Error(`${scenario.name}: the turn ended "${end}", expected "${scenario.expectedEnd}"`);
  return {
    meta: {
      scenario: scenario.name,
      description: scenario.description,
      model: client.model,
      base_url: DEFAULT_BASE_URL,
      provenance: "synthetic",
      note:
        "Synthetic, not recorded: the responses were written by hand in scripts/maintainer/make-synthetic-fixtures.ts " +
        "after DeepSeek's documented wire format; the requests are what our DeepSeekClient sent for them." +
        (notes[scenario.name] ?? ""),
    },
    // The recorder timed the pieces as they came out of memory; the authored times are the ones to keep.
    exchanges: recorder.exchanges.map((exchange, i) => {
      const reply = served[i];
      return reply !== undefined && "streamed" in reply && isStreamed(exchange.response)
        ? { ...exchange, response: reply.streamed }
        : exchange;
    }),
  };
}

/** A streamed reply served from memory, one piece per read; a "dropped" one breaks off after the last. */
function streamedBody(reply: StreamedResponse): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = reply.stream[next++];
      if (piece !== undefined) controller.enqueue(encoder.encode(piece.text));
      else if (reply.end === "closed") controller.close();
      else controller.error(new TypeError("terminated"));
    },
  });
  return new Response(body, { status: reply.status, headers: { "content-type": reply.content_type } });
}

function lastTurnEnd(session: SessionLog): unknown {
  return session.events.findLast((event) => event.type === "turn/end")?.data.reason;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { out: { type: "string" } }, allowPositionals: true });
  const dir = values.out ?? dataDir;
  const chosen = positionals.length > 0 ? positionals.map(findScenario) : scenarios;
  mkdirSync(dir, { recursive: true });
  for (const scenario of chosen) {
    const file = fixturePath(scenario.name, dir);
    writeFileSync(file, formatFixture(await makeFixture(scenario)));
    console.log(`wrote ${path.relative(process.cwd(), file)} (synthetic)`);
  }
}

await main();
