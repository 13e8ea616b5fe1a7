// Random inputs for the property tests of steps 05.2–05.4 (fast-check). Not an exercise: nothing
// here needs changing. Each arbitrary describes a family of values; fast-check draws many of them,
// and when a test fails it shrinks the value to a small example and prints the seed to replay it.
import fc from "fast-check";
import type { eventSchemas } from "../../chapters/05-session-log/event-schemas.ts";
import type { JsonObject, JsonValue } from "../../chapters/05-session-log/json-value.ts";

/** What `session.append(type, data)` takes. */
export interface EventInput {
  readonly type: string;
  readonly data: JsonObject;
}

// ── JSON that survives the log: no -0, NaN, ±Infinity or unsafe integers ────────────────────────

/**
 * A JSON number that freezeJson accepts. `fc.jsonValue()` is not used: its doubles include
 * integers past 2^53 (e.g. 1e300), which the log rightly rejects.
 */
const jsonNumberArb: fc.Arbitrary<number> = fc.oneof(
  fc.maxSafeInteger(),
  fc.double({ min: -1e15, max: 1e15, noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
);

/** Any JSON value, a few levels deep; object keys include tricky ones such as "__proto__". */
export const jsonValueArb: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: "json" },
    fc.constant(null),
    fc.boolean(),
    jsonNumberArb,
    fc.string(),
    fc.array(tie("value"), { maxLength: 4, depthIdentifier: "json" }),
    fc.dictionary(fc.string(), tie("value"), { maxKeys: 4, noNullPrototype: true, depthIdentifier: "json" }),
  ),
})).value;

/** Any JSON object: the data of an event whose type has no schema. */
export const jsonObjectArb: fc.Arbitrary<JsonObject> = fc.dictionary(fc.string(), jsonValueArb, {
  maxKeys: 5,
  noNullPrototype: true,
});

// ── valid data for each type of the vocabulary (chapters/05-session-log/events.ts) ──────────────

const counterArb = fc.integer({ min: 1, max: 1_000 });
const turnAndStepArb = fc.record({ turn: counterArb, step: counterArb });
const toolCallArb = fc.record({ id: fc.string(), name: fc.string(), arguments: fc.string() });

/**
 * For each built-in event type, data that its schema accepts (optional fields sometimes left out).
 * Keyed like the chapter's `eventSchemas` (tsc checks that none is missing), not by `KnownEventType`:
 * other files may add types to that by declaration merging, with schemas of their own.
 */
export const knownEventDataArbs = {
  "turn/start": fc.record({ turn: counterArb }),
  "user/message": fc.record({ content: fc.string() }),
  "request/header": fc.record({
    header: fc.record({
      model: fc.string(),
      system: fc.string(),
      tools: fc.array(fc.record({ name: fc.string(), description: fc.string(), parameters: jsonObjectArb }), {
        maxLength: 3,
      }),
    }),
    reason: fc.constant("initial"),
  }),
  "step/start": turnAndStepArb,
  "assistant/chunk": fc.record({
    turn: counterArb,
    step: counterArb,
    attempt: counterArb,
    chunk: fc.oneof(
      fc.record({ kind: fc.constant("reasoning"), text: fc.string() }),
      fc.record({ kind: fc.constant("text"), text: fc.string() }),
      fc.record(
        { kind: fc.constant("tool_call"), index: fc.nat(4), id: fc.string(), name: fc.string(), arguments: fc.string() },
        { requiredKeys: ["kind", "index", "arguments"] },
      ),
      fc.record({ kind: fc.constant("finish"), reason: fc.constantFrom("stop", "tool_calls", "length") }),
    ),
  }),
  "assistant/message": fc.record(
    {
      content: fc.option(fc.string(), { nil: null }),
      reasoning_content: fc.option(fc.string(), { nil: null }),
      tool_calls: fc.array(toolCallArb, { maxLength: 3 }),
      chunk_ids: fc.array(fc.nat(), { maxLength: 4 }),
      interrupted: fc.constant(true as const),
    },
    { requiredKeys: ["content", "tool_calls"] },
  ),
  "tool/call": fc.record({ call_id: fc.string(), name: fc.string(), arguments: fc.string() }),
  "tool/result": fc.record({ call_id: fc.string(), content: fc.string(), is_error: fc.boolean() }),
  "step/end": turnAndStepArb,
  "turn/end": fc.record(
    {
      turn: counterArb,
      reason: fc.constantFrom("completed", "max_steps", "error", "interrupted"),
      message: fc.string(),
    },
    { requiredKeys: ["turn", "reason"] },
  ),
} satisfies { readonly [T in keyof typeof eventSchemas]: fc.Arbitrary<JsonObject> };

export type BuiltInEventType = keyof typeof knownEventDataArbs;

export const knownEventTypes = Object.keys(knownEventDataArbs) as BuiltInEventType[];

/** A known type with data its schema accepts. */
export const knownEventInputArb: fc.Arbitrary<EventInput> = fc.oneof(
  ...knownEventTypes.map((type) => (knownEventDataArbs[type] as fc.Arbitrary<JsonObject>).map((data): EventInput => ({ type, data }))),
);

/** A `domain/verb` type outside the built-in vocabulary, e.g. "ui/note": logged as any JSON object. */
export const unknownEventTypeArb: fc.Arbitrary<string> = fc
  .stringMatching(/^[a-z]{1,8}\/[a-z]{1,8}$/)
  .filter((type) => !(knownEventTypes as string[]).includes(type));

export const unknownEventInputArb: fc.Arbitrary<EventInput> = fc.record({
  type: unknownEventTypeArb,
  data: jsonObjectArb,
});

/** One input `append` must accept: mostly known types, sometimes an unknown one. */
export const eventInputArb: fc.Arbitrary<EventInput> = fc.oneof(
  { arbitrary: knownEventInputArb, weight: 3 },
  { arbitrary: unknownEventInputArb, weight: 1 },
);

/** A sequence of inputs `append` must accept, i.e. a random session log. */
export const eventInputsArb: fc.Arbitrary<EventInput[]> = fc.array(eventInputArb, { maxLength: 25 });

// ── inputs `append` must reject ──────────────────────────────────────────────────────────────────

/** An input `append` must reject, and the error class it must throw (by name). */
export interface BadEventInput {
  readonly type: string;
  readonly data: unknown;
  readonly throws: "TypeError" | "JsonValueError" | "EventDataError";
}

export const badEventInputArb: fc.Arbitrary<BadEventInput> = fc.oneof(
  // An empty type names nothing.
  jsonObjectArb.map((data): BadEventInput => ({ type: "", data, throws: "TypeError" })),
  // Data must be a JSON object, not an array or a primitive.
  fc
    .oneof(fc.array(jsonValueArb, { maxLength: 3 }), fc.string(), jsonNumberArb, fc.constant(null))
    .map((data): BadEventInput => ({ type: "test/note", data, throws: "JsonValueError" })),
  // Not JSON at all, somewhere inside.
  fc
    .constantFrom<unknown>(Number.NaN, -0, Number.POSITIVE_INFINITY, undefined, () => 1, new Date(0), 2 ** 60)
    .map((bad): BadEventInput => ({ type: "test/note", data: { nested: [{ bad }] }, throws: "JsonValueError" })),
  // JSON, but not what the schema of a known type wants.
  fc
    .oneof(jsonNumberArb, fc.boolean(), fc.constant(null))
    .map((content): BadEventInput => ({ type: "user/message", data: { content }, throws: "EventDataError" })),
  fc.string().map(
    (reason): BadEventInput => ({
      type: "turn/end",
      data: { turn: 1, reason: `not-${reason}` },
      throws: "EventDataError",
    }),
  ),
);

/** A clock for tests: starts at `start` and moves on by 1 ms each time it is read. */
export function tickingClock(start = 1_700_000_000_000): () => number {
  let now = start;
  return () => now++;
}
