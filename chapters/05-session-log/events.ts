// 5.2: an event, and the event vocabulary. Each event type (`domain/verb`) has one data shape, written
// down twice: here as a TypeScript type (so a wrong `append` does not compile), and in
// event-schemas.ts as a zod schema (so a wrong event read back from disk is caught at run time).
// Data keys are snake_case, as on the wire and in the book.
import type { StreamChunk } from "../common/messages.ts";
import type { JsonObject } from "./json-value.ts";

// `assistant/chunk` logs the pieces of a streamed reply as the DeepSeek client hands them over.
export type { StreamChunk };

/** One entry of the log. `id` counts from 0 without gaps; `ts` is epoch milliseconds. */
export interface SessionEvent<T extends string = string> {
  readonly id: number;
  readonly type: T;
  readonly ts: number;
  readonly data: EventData<T>;
}

/**
 * How a turn ended. "interrupted": stopped from outside before the model's answer was complete (Ctrl-C,
 * or a crash that repair closed); "error": a model call or the stream failed, and `message` says how.
 */
export type TurnEndReason = "completed" | "max_steps" | "error" | "interrupted";

/**
 * Event type → data type. An interface, so other code can add its own types by declaration merging:
 *   declare module "./events.ts" { interface SessionEventMap { "ui/note": { text: string } } }
 */
export interface SessionEventMap {
  "turn/start": { turn: number };
  "user/message": { content: string };
  "request/header": {
    header: {
      model: string;
      system: string;
      tools: { name: string; description: string; parameters: { [key: string]: unknown } }[];
    };
    reason: "initial";
  };
  "step/start": { turn: number; step: number };
  /**
   * Log-only: one chunk of a streamed reply, appended the moment it arrives and never sent to the model.
   * `attempt` counts the model calls of this step from 1, so a retried call's chunks never mix.
   */
  "assistant/chunk": { turn: number; step: number; attempt: number; chunk: StreamChunk };
  /**
   * A streamed reply cites the chunk events it was assembled from (`chunk_ids`). `interrupted`: the
   * stream stopped early, and the message holds only what had arrived (the text the user already saw).
   */
  "assistant/message": {
    content: string | null;
    reasoning_content?: string | null;
    tool_calls: { id: string; name: string; arguments: string }[];
    chunk_ids?: number[];
    interrupted?: true;
  };
  /** `arguments` is the raw JSON text the model wrote, kept even when it does not parse. */
  "tool/call": { call_id: string; name: string; arguments: string };
  "tool/result": { call_id: string; content: string; is_error: boolean };
  "step/end": { turn: number; step: number };
  "turn/end": { turn: number; reason: TurnEndReason; message?: string };
}

export type KnownEventType = keyof SessionEventMap;

/** The data an event of type `T` carries: its declared shape, or any JSON object for other types. */
export type EventData<T extends string> = T extends KnownEventType ? DeepReadonly<SessionEventMap[T]> : JsonObject;

type DeepReadonly<T> = T extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** Narrows an event to one type, so its data can be read with that type's shape. */
export function isEventOfType<T extends string>(event: SessionEvent, type: T): event is SessionEvent<T> {
  return event.type === type;
}
