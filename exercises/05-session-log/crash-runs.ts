// Logs the agent loop really writes, for 05.7's repair properties. Not an exercise: nothing here needs
// changing. A run is the chapter's runAgent (05.5's answer) driven by a scripted model, turn after turn,
// so "kill the loop after any event" is simply any prefix of a run's log; and a mutation changes one
// thing the loop never does, so no prefix that holds it is a log a crash can leave.
import fc from "fast-check";
import { calculator } from "../../chapters/common/calculator.ts";
import type { ChatClient } from "../../chapters/common/deepseek.ts";
import type { AssistantMessage } from "../../chapters/common/messages.ts";
import { runAgent } from "../../chapters/05-session-log/agent-loop.ts";
import type { SessionEvent, StreamChunk } from "../../chapters/05-session-log/events.ts";
import { AgentRunError } from "../../chapters/05-session-log/loop-types.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { tickingClock } from "./arbitraries.ts";

/** One model call: a reply (with 0–2 calls), or a failure (the call throws). */
type Reply = { readonly content: string; readonly reasoning: string | null; readonly calls: number } | "fails";

interface TurnScript {
  readonly maxSteps: number;
  readonly replies: readonly Reply[];
}

const replyArb: fc.Arbitrary<Reply> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      content: fc.string({ maxLength: 8 }),
      reasoning: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
      calls: fc.nat(2),
    }),
  },
  { weight: 1, arbitrary: fc.constant("fails" as const) },
);

const turnArb: fc.Arbitrary<TurnScript> = fc.record({
  maxSteps: fc.integer({ min: 1, max: 3 }),
  replies: fc.array(replyArb, { minLength: 3, maxLength: 3 }),
});

/** The model a script plays: its replies in order, each call with an id unique in the run. */
function scriptedModel(turn: number, script: TurnScript): ChatClient {
  let step = 0;
  return {
    model: "scripted",
    chat: async (): Promise<AssistantMessage> => {
      step++;
      const reply = script.replies[step - 1] ?? "fails";
      if (reply === "fails") throw new Error("脚本里的模型调用失败 / the model call failed");
      const tool_calls = Array.from({ length: reply.calls }, (_, index) => ({
        id: `call_${turn}_${step}_${index}`,
        name: "calculator",
        arguments: JSON.stringify({ expression: `${index}+${step}` }),
      }));
      return { role: "assistant", content: reply.content, reasoning_content: reply.reasoning, tool_calls };
    },
  };
}

/** Runs the scripted turns through the chapter's loop and returns the log it wrote. */
export async function loopLog(turns: readonly TurnScript[]): Promise<readonly SessionEvent[]> {
  const session = new Session({ clock: tickingClock() });
  for (const [index, script] of turns.entries()) {
    const client = scriptedModel(index + 1, script);
    try {
      await runAgent({
        client,
        tools: [calculator],
        systemPrompt: "你是计算器。",
        userPrompt: `第 ${index + 1} 问`,
        maxSteps: script.maxSteps,
        session,
      });
    } catch (error) {
      if (!(error instanceof AgentRunError)) throw error;
    }
  }
  return session.events;
}

/** 1–3 scripted turns, as the loop logs them. */
export const loopScriptArb: fc.Arbitrary<TurnScript[]> = fc.array(turnArb, { minLength: 1, maxLength: 3 });

/**
 * The same run as the streamed loop logs it: before each assistant/message, the chunks it was built from
 * (reasoning, text and tool-call fragments, usage, finish), appended as they arrived, which the message
 * then cites in `chunk_ids`. Where `retried` says so for a step, a first attempt broke off after two
 * chunks and attempt 2 carried the reply. Ids are renumbered; returned as stored events.
 */
export function streamedLog(events: readonly SessionEvent[], retried: readonly boolean[]): Stored[] {
  const log: Omit<Stored, "id">[] = [];
  let steps = 0;
  for (const event of stored(events)) {
    if (event.type === "assistant/message") {
      const [turn, step] = stepOf(log);
      const retry = retried[steps++ % Math.max(retried.length, 1)] === true;
      const chunks = [...(retry ? chunksOf(event.data, 1).slice(0, 2) : []), ...chunksOf(event.data, retry ? 2 : 1)];
      const first = log.length;
      for (const [attempt, chunk] of chunks) log.push({ type: "assistant/chunk", ts: event.ts, data: { turn, step, attempt, chunk } });
      const cited = chunks.flatMap(([attempt], index) => (attempt === (retry ? 2 : 1) ? [first + index] : []));
      log.push({ ...event, data: { ...event.data, chunk_ids: cited } });
    } else log.push(event);
  }
  return log.map((event, id) => ({ ...event, id }));
}

function stepOf(log: readonly Omit<Stored, "id">[]): [number, number] {
  const start = log.findLast((event) => event.type === "step/start");
  return [start?.data.turn as number, start?.data.step as number];
}

/** A reply's chunks, each text in two pieces (the cut can split a character), each call in two fragments. */
function chunksOf(message: Record<string, unknown>, attempt: number): [number, StreamChunk][] {
  const halves = (text: string) => [text.slice(0, text.length >> 1), text.slice(text.length >> 1)];
  const texts = (kind: "reasoning" | "text", text: unknown): StreamChunk[] =>
    typeof text === "string" ? halves(text).map((piece) => ({ kind, text: piece })) : [];
  const calls = (message.tool_calls as { id: string; name: string; arguments: string }[]).flatMap((call, index): StreamChunk[] => {
    const [head = "", tail = ""] = halves(call.arguments);
    return [
      { kind: "tool_call", index, id: call.id, name: call.name, arguments: head },
      { kind: "tool_call", index, arguments: tail },
    ];
  });
  const chunks: StreamChunk[] = [
    ...texts("reasoning", message.reasoning_content),
    ...texts("text", message.content),
    ...calls,
    { kind: "usage", usage: { prompt_tokens: 10, completion_tokens: 5 } },
    { kind: "finish", reason: calls.length > 0 ? "tool_calls" : "stop" },
  ];
  return chunks.map((chunk) => [attempt, chunk]);
}

/** A stored event as a file holds it: plain JSON, for Session.fromLog. */
type Stored = { id: number; type: string; ts: number; data: Record<string, unknown> };

/** A changed log, and the index of the event the loop could not have written. */
export interface Mutated {
  readonly log: Stored[];
  readonly index: number;
}

const stored = (events: readonly SessionEvent[]): Stored[] => JSON.parse(JSON.stringify(events));

/**
 * One thing the loop never does, made at `at` (an index into the log): each returns the changed log, ids
 * renumbered so that fromLog still reads it, or undefined when the log has no place for it. Each is named
 * "中文 / English", as the failures that quote it are written.
 */
export const mutations: Record<string, (events: readonly SessionEvent[], at: number) => Mutated | undefined> = {
  "轮次号重复 / a turn number repeated": (events, at) =>
    change(events, at, "turn/start", (event) => {
      const turn = event.data.turn as number;
      return { ...event, data: { turn: turn === 1 ? 2 : turn - 1 } };
    }),
  "步骤号跳跃 / a step number jumping": (events, at) =>
    change(events, at, "step/start", (event) => ({ ...event, data: { ...event.data, step: (event.data.step as number) + 1 } })),
  "步骤之外的 assistant 消息 / an assistant message outside any step": (events, at) =>
    insertAfter(events, at, ["request/header", "step/end"], { type: "assistant/message", data: { content: "hi", tool_calls: [] } }),
  "回复没要过的调用 / a call no reply asked for": (events, at) =>
    insertAfter(events, at, ["assistant/message", "tool/result"], {
      type: "tool/call",
      data: { call_id: "call_unasked", name: "calculator", arguments: "{}" },
    }),
  "从没发出过的调用的结果 / a result for a call never made": (events, at) =>
    insertAfter(events, at, ["step/start", "assistant/message", "tool/result"], {
      type: "tool/result",
      data: { call_id: "call_never", content: "7", is_error: false },
    }),
  "一条回复里重复的调用 id / duplicate call ids in one reply": (events, at) =>
    change(events, at, "assistant/message", (event) => {
      const calls = event.data.tool_calls as unknown[];
      return calls.length === 0 ? undefined : { ...event, data: { ...event.data, tool_calls: [...calls, calls[0]] } };
    }),
  "在没闭合的轮次里开始的第二轮 / a second turn begun inside an open turn": (events, at) =>
    insertAfter(events, at, ["user/message", "step/start", "step/end"], { type: "turn/start", data: { turn: 99 } }),
  "别的步骤的 step/end / a step/end for another step": (events, at) =>
    change(events, at, "step/end", (event) => ({ ...event, data: { ...event.data, step: (event.data.step as number) + 1 } })),
};

/** The `at`-th event of `type` (counting round), changed; undefined when there is none or `edit` declines. */
function change(
  events: readonly SessionEvent[],
  at: number,
  type: string,
  edit: (event: Stored) => Stored | undefined,
): Mutated | undefined {
  const log = stored(events);
  const places = log.flatMap((event, index) => (event.type === type ? [index] : []));
  const index = places[at % Math.max(places.length, 1)];
  if (index === undefined) return undefined;
  const edited = edit(log[index] as Stored);
  if (edited === undefined) return undefined;
  log[index] = edited;
  return { log, index };
}

/** `extra` put right after the `at`-th event of one of `types`; undefined when there is none. */
function insertAfter(
  events: readonly SessionEvent[],
  at: number,
  types: readonly string[],
  extra: Omit<Stored, "id" | "ts">,
): Mutated | undefined {
  const log = stored(events);
  const places = log.flatMap((event, index) => (types.includes(event.type) ? [index] : []));
  const index = places[at % Math.max(places.length, 1)];
  if (index === undefined) return undefined;
  const previous = log[index] as Stored;
  log.splice(index + 1, 0, { id: 0, ts: previous.ts, ...extra });
  return { log: log.map((event, id) => ({ ...event, id })), index: index + 1 };
}

/**
 * One way a streamed message can contradict the chunks it cites, made to the `at`-th assistant/message of a
 * streamedLog (each cites its attempt's chunks): the loop logs exactly what its chunks assemble to, so a
 * repair that took such a message as a crash's would close the step on a story the log does not hold.
 * `index` is the message. Undefined when the log has no message the change fits. Named "中文 / English".
 */
export const streamedContradictions: Record<string, (log: readonly Stored[], at: number) => Mutated | undefined> = {
  "它的 content 不是分片带来的文字 / its content is not the text its chunks carried": (log, at) =>
    changeMessage(log, at, (message) => ({ ...message, data: { ...message.data, content: `${message.data.content ?? ""}（改过）` } })),
  "它的 chunk_ids 只引用了这次尝试的一部分分片 / its chunk_ids cite only some of its attempt's chunks": (log, at) =>
    changeMessage(log, at, (message) => ({
      ...message,
      data: { ...message.data, chunk_ids: (message.data.chunk_ids as number[]).slice(1) },
    })),
  "没有结束分片，却没标 interrupted / no finish chunk, yet it is not marked interrupted": (log, at) =>
    changeMessage(log, at, (message, edited) => {
      const finish = (message.data.chunk_ids as number[]).find(
        (id) => (edited[id]?.data.chunk as StreamChunk | undefined)?.kind === "finish",
      );
      const chunk = edited[finish ?? -1];
      if (chunk === undefined) return undefined;
      edited[chunk.id] = { ...chunk, data: { ...chunk.data, chunk: { kind: "usage", usage: { total_tokens: 1 } } } };
      return message;
    }),
  "带着分片里从没出现过的工具调用 / a tool call that never appeared in any chunk": (log, at) =>
    changeMessage(log, at, (message) => {
      const calls = [...(message.data.tool_calls as unknown[]), { id: "call_invented", name: "calculator", arguments: "{}" }];
      return { ...message, data: { ...message.data, tool_calls: calls } };
    }),
};

/** The `at`-th assistant/message (counting round), changed by `edit`, which may change the log's other events too. */
function changeMessage(
  log: readonly Stored[],
  at: number,
  edit: (message: Stored, log: Stored[]) => Stored | undefined,
): Mutated | undefined {
  const edited = stored(log as unknown as readonly SessionEvent[]);
  const places = edited.flatMap((event, index) => (event.type === "assistant/message" ? [index] : []));
  const index = places[at % Math.max(places.length, 1)];
  const message = edited[index ?? -1];
  const changed = message && edit(message, edited);
  if (index === undefined || changed === undefined) return undefined;
  edited[index] = changed;
  return { log: edited, index };
}
