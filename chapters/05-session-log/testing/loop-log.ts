// Logs for whereTheLoopStopped's tests (disk/loop-order*.test.ts): events built in the agent loop's
// order, numbered from 0, and the walk's answer read as a refusal or as what is left open.
import type { EventData, KnownEventType, SessionEvent, StreamChunk } from "../events.ts";
import { whereTheLoopStopped } from "../disk/loop-order.ts";

export type Entry = { [T in KnownEventType]: [T, EventData<T>] }[KnownEventType];

/** The events, numbered from 0 as a log numbers them. */
export function log(...entries: readonly Entry[]): SessionEvent[] {
  return entries.map(([type, data], id) => ({ id, type, ts: id, data }) as SessionEvent);
}

export const call = { id: "call_1", name: "calculator", arguments: '{"expression":"1+1"}' };
export const other = { id: "call_2", name: "calculator", arguments: '{"expression":"2+2"}' };

export const turnStart = (turn = 1): Entry => ["turn/start", { turn }];
export const opening = (turn = 1): Entry[] => [
  turnStart(turn),
  ["user/message", { content: "1+1?" }],
  ["request/header", { header: { model: "m", system: "s", tools: [] }, reason: "initial" }],
];
export const stepStart = (step: number, turn = 1): Entry => ["step/start", { turn, step }];
export const stepEnd = (step: number, turn = 1): Entry => ["step/end", { turn, step }];
export const message = (tool_calls: (typeof call)[], extra: Partial<EventData<"assistant/message">> = {}): Entry => [
  "assistant/message",
  { content: tool_calls.length === 0 ? "2" : "", reasoning_content: null, tool_calls, ...extra },
];
export const toolCall = (asked = call): Entry => ["tool/call", { call_id: asked.id, name: asked.name, arguments: asked.arguments }];
export const toolResult = (id = call.id): Entry => ["tool/result", { call_id: id, content: "2", is_error: false }];
export const chunk = (data: StreamChunk, attempt = 1, step = 1, turn = 1): Entry => [
  "assistant/chunk",
  { turn, step, attempt, chunk: data },
];
export const text = (words: string, attempt = 1) => chunk({ kind: "text", text: words }, attempt);
export const finish = (attempt = 1) => chunk({ kind: "finish", reason: "stop" }, attempt);
/** One whole turn: a tool call in step 1, the final answer in step 2. */
export const wholeTurn = (turn = 1): Entry[] => [
  ...opening(turn),
  stepStart(1, turn),
  message([call]),
  toolCall(),
  toolResult(),
  stepEnd(1, turn),
  stepStart(2, turn),
  message([]),
  stepEnd(2, turn),
  ["turn/end", { turn, reason: "completed" }],
];

/** The refusal: the event's id and the sentence that starts with its type. */
export function refusal(events: readonly SessionEvent[]): { index: number; why: string } {
  const stop = whereTheLoopStopped(events);
  if (stop.fits) throw new Error(`expected the walk to refuse an event, but the log fits: ${JSON.stringify(stop.open)}`);
  return { index: stop.index, why: stop.why };
}

export function openOf(events: readonly SessionEvent[]) {
  const stop = whereTheLoopStopped(events);
  if (!stop.fits) throw new Error(`expected the log to fit the loop's order, but #${stop.index} ${stop.why}`);
  return stop.open;
}
