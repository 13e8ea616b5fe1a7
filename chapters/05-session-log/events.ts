// 5.2: an event, and the event vocabulary. Each event type (`domain/verb`) has one data shape, written down twice:
// as a TypeScript type (so a wrong `append` does not compile) and as a zod schema (so a wrong event
// read back from disk is caught at run time). Data keys are snake_case, as on the wire and in the book.
import { z } from "zod";
import { clip } from "./describe.ts";
import { formatPath, type JsonObject } from "./json-value.ts";

/** One entry of the log. `id` counts from 0 without gaps; `ts` is epoch milliseconds. */
export interface SessionEvent<T extends string = string> {
  readonly id: number;
  readonly type: T;
  readonly ts: number;
  readonly data: EventData<T>;
}

export type TurnEndReason = "completed" | "max_steps" | "error";

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
  "assistant/message": {
    content: string | null;
    reasoning_content?: string | null;
    tool_calls: { id: string; name: string; arguments: string }[];
  };
  /** `arguments` is the raw JSON text the model wrote, kept even when it does not parse. */
  "tool/call": { call_id: string; name: string; arguments: string };
  "tool/result": { call_id: string; content: string; is_error: boolean };
  "step/end": { turn: number; step: number };
  "turn/end": { turn: number; reason: TurnEndReason; message?: string };
}

export type KnownEventType = keyof SessionEventMap;

/** The data an event of type `T` carries: its declared shape, or any JSON object for other types. */
export type EventData<T extends string> = T extends KnownEventType
  ? DeepReadonly<SessionEventMap[T]>
  : JsonObject;

type DeepReadonly<T> = T extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** Narrows an event to one type, so its data can be read with that type's shape. */
export function isEventOfType<T extends string>(event: SessionEvent, type: T): event is SessionEvent<T> {
  return event.type === type;
}

const counter = z.number().int().positive();
const turnAndStep = z.strictObject({ turn: counter, step: counter });

/**
 * The chapter's own types. Not `KnownEventType`: that grows when another module merges its types
 * into SessionEventMap, and those modules bring their own schemas (see SessionOptions.schemas).
 */
type ChapterEventType =
  | "turn/start"
  | "user/message"
  | "request/header"
  | "step/start"
  | "assistant/message"
  | "tool/call"
  | "tool/result"
  | "step/end"
  | "turn/end";

/**
 * Run-time schemas for the built-in types; a Session can be given more (see SessionOptions).
 * Strict: a key the vocabulary does not know (say `role` on a user/message) is a mistake, not data.
 */
export const eventSchemas: { readonly [T in ChapterEventType]: z.ZodType<SessionEventMap[T]> } = {
  "turn/start": z.strictObject({ turn: counter }),
  "user/message": z.strictObject({ content: z.string() }),
  "request/header": z.strictObject({
    header: z.strictObject({
      model: z.string(),
      system: z.string(),
      tools: z.array(
        z.strictObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
      ),
    }),
    reason: z.literal("initial"),
  }),
  "step/start": turnAndStep,
  "assistant/message": z.strictObject({
    content: z.string().nullable(),
    reasoning_content: z.string().nullable().optional(),
    tool_calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })),
  }),
  "tool/call": z.strictObject({ call_id: z.string(), name: z.string(), arguments: z.string() }),
  "tool/result": z.strictObject({ call_id: z.string(), content: z.string(), is_error: z.boolean() }),
  "step/end": turnAndStep,
  "turn/end": z.strictObject({
    turn: counter,
    reason: z.enum(["completed", "max_steps", "error"]),
    message: z.string().optional(),
  }),
};

/** Schemas by event type; types missing from it are accepted as any JSON object. */
export type EventSchemas = { readonly [type: string]: z.ZodType | undefined };

export class EventDataError extends Error {
  override readonly name = "EventDataError";
  constructor(
    readonly type: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`invalid data for "${type}" at ${path}: ${reason}`);
  }
}

/** Throws EventDataError naming the type and the first field that does not fit its schema. */
export function checkEventData(type: string, data: unknown, schemas: EventSchemas = eventSchemas): void {
  // Own keys only: an event type called "constructor" or "__proto__" is unknown, not Object's.
  const schema = Object.hasOwn(schemas, type) ? schemas[type] : undefined;
  if (schema === undefined) return;
  const result = schema.safeParse(data);
  if (result.success) return;
  const issue = result.error.issues[0];
  // Clipped: zod's message quotes the data's unknown keys, and a key may be any length.
  throw new EventDataError(type, formatPath(issue?.path ?? []), clip(issue?.message ?? "does not match the schema", 200));
}
