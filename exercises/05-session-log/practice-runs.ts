// Random chapter runs for the property tests of the book's 练习 (steps p2–p4). Not an exercise:
// nothing here needs changing. A run is the event sequence the chapter's runAgent writes — turns
// of user message, request header and steps, each step an assistant reply with its tool calls and
// results — with random text, so a property is checked on logs shaped like real ones.
import fc from "fast-check";
import type { EventData } from "../../chapters/05-session-log/events.ts";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import type { SessionOptions } from "../../chapters/05-session-log/session-types.ts";
import { tickingClock } from "./arbitraries.ts";

/** What `session.append(type, data)` takes. */
export interface EventInput {
  readonly type: string;
  readonly data: JsonObject;
}

/** One entry, its data type-checked against the vocabulary. */
export function input<T extends string>(type: T, data: EventData<T>): EventInput {
  return { type, data: data as JsonObject };
}

interface CallPlan {
  readonly name: string;
  readonly arguments: string;
  readonly result: string;
  readonly isError: boolean;
}

interface StepPlan {
  readonly content: string | null;
  readonly reasoning: string | null;
  readonly calls: readonly CallPlan[];
}

interface TurnPlan {
  readonly prompt: string;
  readonly steps: readonly StepPlan[];
  readonly reason: "completed" | "max_steps" | "error";
}

const textArb = fc.string({ maxLength: 12 });

const callArb: fc.Arbitrary<CallPlan> = fc.record({
  name: fc.constantFrom("calculator", "read_file", "search"),
  arguments: fc.oneof(fc.constant('{"expression":"1+2*3"}'), textArb),
  result: textArb,
  isError: fc.boolean(),
});

const stepArb: fc.Arbitrary<StepPlan> = fc.record({
  content: fc.option(textArb, { nil: null }),
  reasoning: fc.option(textArb, { nil: null }),
  calls: fc.array(callArb, { maxLength: 2 }),
});

const turnArb: fc.Arbitrary<TurnPlan> = fc.record({
  prompt: textArb,
  steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }),
  reason: fc.constantFrom("completed", "max_steps", "error"),
});

/** A whole run, 1–3 turns, as the inputs runAgent would append, in order. */
export const chapterRunArb: fc.Arbitrary<EventInput[]> = fc
  .array(turnArb, { minLength: 1, maxLength: 3 })
  .map((turns) => turns.flatMap((plan, index) => turnInputs(index + 1, plan)));

function turnInputs(turn: number, plan: TurnPlan): EventInput[] {
  const header = { model: "deepseek-flash", system: "你是一个编程助手。", tools: [] };
  return [
    input("turn/start", { turn }),
    input("user/message", { content: plan.prompt }),
    input("request/header", { header, reason: "initial" }),
    ...plan.steps.flatMap((stepPlan, index) => stepInputs(turn, index + 1, stepPlan)),
    input("turn/end", { turn, reason: plan.reason }),
  ];
}

function stepInputs(turn: number, step: number, plan: StepPlan): EventInput[] {
  // Unique per run, as DeepSeek's call ids are, so a result pairs with exactly one call.
  const calls = plan.calls.map((call, index) => ({ ...call, id: `call_${turn}_${step}_${index}` }));
  return [
    input("step/start", { turn, step }),
    input("assistant/message", {
      content: plan.content,
      reasoning_content: plan.reasoning,
      tool_calls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
    }),
    ...calls.flatMap((call) => [
      input("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }),
      input("tool/result", { call_id: call.id, content: call.result, is_error: call.isError }),
    ]),
    input("step/end", { turn, step }),
  ];
}

// The same test clock as the core steps use, so the 练习 tests import all their helpers from here.
export { tickingClock };

/** A chapter Session holding `inputs`, in order. */
export function sessionOf(inputs: readonly EventInput[], options: SessionOptions = {}): Session {
  const session = new Session({ clock: tickingClock(), ...options });
  for (const { type, data } of inputs) session.append(type, data);
  return session;
}

/** What a log looks like after being saved as JSON and read back: plain, unfrozen, shared with nothing. */
export function storedCopy(value: unknown): unknown[] {
  return JSON.parse(JSON.stringify(value)) as unknown[];
}
