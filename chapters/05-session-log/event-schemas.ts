// 5.2, checked at run time: the vocabulary of events.ts again, as zod schemas. `append` checks a known
// type's data against its schema before committing, and `fromLog` checks every stored event again.
import { z } from "zod";
import type { SessionEventMap } from "./events.ts";
import { clip } from "../common/text.ts";
import { formatPath } from "./json-value.ts";

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
  | "assistant/chunk"
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
      tools: z.array(z.strictObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
    }),
    reason: z.literal("initial"),
  }),
  "step/start": turnAndStep,
  "assistant/chunk": z.strictObject({ turn: counter, step: counter, attempt: counter, chunk: streamChunk() }),
  "assistant/message": z.strictObject({
    content: z.string().nullable(),
    reasoning_content: z.string().nullable().optional(),
    tool_calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })),
    chunk_ids: z.array(z.number().int().nonnegative()).optional(),
    interrupted: z.literal(true).optional(),
  }),
  "tool/call": z.strictObject({ call_id: z.string(), name: z.string(), arguments: z.string() }),
  "tool/result": z.strictObject({ call_id: z.string(), content: z.string(), is_error: z.boolean() }),
  "step/end": turnAndStep,
  "turn/end": z.strictObject({
    turn: counter,
    reason: z.enum(["completed", "max_steps", "error", "interrupted"]),
    message: z.string().optional(),
  }),
};

function streamChunk() {
  return z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("reasoning"), text: z.string() }),
    z.strictObject({ kind: z.literal("text"), text: z.string() }),
    z.strictObject({
      kind: z.literal("tool_call"),
      index: z.number().int().nonnegative(),
      id: z.string().optional(),
      name: z.string().optional(),
      arguments: z.string(),
    }),
    z.strictObject({ kind: z.literal("usage"), usage: z.record(z.string(), z.unknown()) }),
    z.strictObject({ kind: z.literal("finish"), reason: z.string() }),
    z.strictObject({ kind: z.literal("error"), message: z.string() }),
  ]);
}

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
