// The fixtures' scenarios (fixtures/scenarios.ts) run on this chapter's loop: a scenario's turns, with
// any client (live, or a recording replayed), and the check that a run has its scenario's shape. The
// record script refuses a live run without that shape: a model may answer a prompt in its own way, and
// a recording that missed the point (no tool call in `calculator`, say) would only break the tests later.
import type { ChatClient } from "../../common/deepseek.ts";
import type { Exchange } from "../../../fixtures/fixture.ts";
import { userMessagesIn, type Scenario } from "../../../fixtures/scenarios.ts";
import { runAgent } from "../agent-loop.ts";
import { isEventOfType, type EventData, type KnownEventType, type SessionEvent } from "../events.ts";
import type { SessionLog } from "../session-types.ts";

/**
 * Runs the scenario's turn with `client`, then its follow-up turn if it has one; like runAgent, rejects
 * with AgentRunError when a model call fails. `signal` stops the run (the demo's Ctrl-C).
 */
export async function runScenario(scenario: Scenario, client: ChatClient, session?: SessionLog, signal?: AbortSignal): Promise<SessionLog> {
  const { tools, systemPrompt, followUpPrompt, maxSteps, stream = false } = scenario;
  const run = (userPrompt: string, on?: SessionLog) =>
    runAgent({ client, tools, systemPrompt, userPrompt, maxSteps, stream, ...(on ? { session: on } : {}), ...(signal ? { signal } : {}) });
  const first = await run(scenario.userPrompt, session);
  return followUpPrompt === undefined ? first : run(followUpPrompt, first);
}

/** Why a run (its log and its HTTP exchanges) does not fit a scenario, or undefined when it does. */
type Check = (session: SessionLog, exchanges: readonly Exchange[], scenario: Scenario) => string | undefined;

/** Each scenario's shape beyond how it ends (its expectedEnd, checked by the record script). */
const shapes: { readonly [name: string]: Check } = {
  calculator: oneCallRoundTrip,
  "direct-answer": noToolCall,
  "two-tool-calls": twoCallsInOneReply,
  "tool-error": anErrorResult,
  "unknown-tool": aCallToAnUnofferedTool,
  "invalid-json-arguments": unparsableArguments,
  "max-steps": stepsTaken(2),
  "auth-error": lastStatus(401),
  "insufficient-balance": lastStatus(402),
  "rate-limit-then-success": rateLimitedRoundTrip,
  "server-error": everyStatus(500, 3),
  "calculator-follow-up": followUpOnRoundTrip,
  "calculator-streamed": streamed(oneCallRoundTrip),
  "calculator-follow-up-streamed": streamed(followUpOnRoundTrip),
  "two-tool-calls-streamed": streamed(twoCallsInOneReply),
  "stream-cut-mid-reasoning": cutMidReasoning,
  "stream-server-error": anErrorChunk,
};

/** Why the run does not have the scenario's shape, or undefined when it does. */
export function shapeProblem(scenario: Scenario, session: SessionLog, exchanges: readonly Exchange[]): string | undefined {
  const check = Object.hasOwn(shapes, scenario.name) ? shapes[scenario.name] : undefined;
  if (check === undefined) throw new Error(`scenario "${scenario.name}" has no shape check: add one to demo/scenarios.ts`);
  return check(session, exchanges, scenario);
}

// ── the shape checks, one small function per rule ─────────────────────────────────────────────────

/** The data of every event of one type, in log order. */
function dataOf<T extends KnownEventType>(session: SessionLog, type: T): EventData<T>[] {
  return session.events.filter((event): event is SessionEvent<T> => isEventOfType(event, type)).map((event) => event.data);
}

/** The book's round trip (5.7): exactly one tool call, and 12 events in all (a streamed run's chunks aside). */
function oneCallRoundTrip(session: SessionLog): string | undefined {
  const calls = dataOf(session, "tool/call").length;
  if (calls !== 1) return `expected exactly one tool/call, got ${calls}`;
  const events = session.events.filter((event) => event.type !== "assistant/chunk").length;
  return events === 12 ? undefined : `expected the book's 12 events, got ${events}`;
}

// ── streamed runs ────────────────────────────────────────────────────────────────────────────────

/** Every reply was streamed: each assistant/message cites the chunk events it was built from. */
function everyReplyStreamed(session: SessionLog): string | undefined {
  const replies = dataOf(session, "assistant/message");
  if (replies.length === 0) return "no assistant/message at all";
  return replies.every((reply) => (reply.chunk_ids?.length ?? 0) > 0)
    ? undefined
    : "an assistant/message cites no chunks: it was not streamed";
}

/** Both rules: a streamed run must also have the shape of its non-streamed twin. */
function streamed(shape: Check): Check {
  return (session, exchanges, scenario) => everyReplyStreamed(session) ?? shape(session, exchanges, scenario);
}

/** The stream broke off while the model was still thinking: the reasoning seen so far is kept, marked interrupted. */
function cutMidReasoning(session: SessionLog): string | undefined {
  const chunks = dataOf(session, "assistant/chunk").map((data) => data.chunk.kind);
  if (chunks.includes("finish")) return "the stream finished: it was never cut";
  if (chunks.some((kind) => kind !== "reasoning"))
    return `expected only reasoning chunks before the cut, got ${[...new Set(chunks)].join(", ")}`;
  const reply = dataOf(session, "assistant/message").at(-1);
  const kept = reply?.interrupted === true && (reply.reasoning_content ?? "") !== "" && reply.tool_calls.length === 0;
  return kept ? undefined : "expected an interrupted assistant/message holding the reasoning that arrived";
}

/** The server said so mid-stream: an error chunk is logged. */
function anErrorChunk(session: SessionLog): string | undefined {
  const kinds = dataOf(session, "assistant/chunk").map((data) => data.chunk.kind);
  return kinds.includes("error") ? undefined : "no assistant/chunk carries an error";
}

function noToolCall(session: SessionLog): string | undefined {
  const calls = dataOf(session, "tool/call").length;
  return calls === 0 ? undefined : `expected no tool call, got ${calls}`;
}

function twoCallsInOneReply(session: SessionLog): string | undefined {
  const replies = dataOf(session, "assistant/message");
  return replies.some((reply) => reply.tool_calls.length === 2) ? undefined : "no assistant/message made two tool calls in one reply";
}

function anErrorResult(session: SessionLog): string | undefined {
  return dataOf(session, "tool/result").some((result) => result.is_error) ? undefined : "no tool/result has is_error: true";
}

function aCallToAnUnofferedTool(session: SessionLog, _exchanges: readonly Exchange[], scenario: Scenario): string | undefined {
  const names = new Set(scenario.tools.map((tool) => tool.name));
  const calls = dataOf(session, "tool/call");
  if (calls.every((call) => names.has(call.name))) return "no tool/call names a tool that was not offered";
  return anErrorResult(session);
}

function unparsableArguments(session: SessionLog): string | undefined {
  const calls = dataOf(session, "tool/call");
  return calls.some((call) => !parses(call.arguments)) ? undefined : "every tool/call's arguments are valid JSON";
}

function stepsTaken(count: number) {
  return (session: SessionLog): string | undefined => {
    const steps = dataOf(session, "step/start").length;
    return steps === count ? undefined : `expected ${count} steps, got ${steps}`;
  };
}

/** The book's round trip, then a second turn asked with the whole first conversation in front of the model. */
function followUpOnRoundTrip(session: SessionLog, exchanges: readonly Exchange[]): string | undefined {
  const turns = dataOf(session, "turn/end").length;
  if (turns !== 2) return `expected two turns, got ${turns}`;
  const secondTurn = exchanges.find((exchange) => userMessagesIn(exchange) === 2);
  const sent = secondTurn ? (secondTurn.request.body.messages as unknown[]).length : 0;
  // The system prompt, the book's 4 messages, then the new question.
  return sent === 6 ? undefined : `expected the second turn's first request to carry 6 messages, got ${sent}`;
}

/** The HTTP statuses the run saw, in order, e.g. "429, 200, 200". */
function statuses(exchanges: readonly Exchange[]): string {
  return exchanges.map((exchange) => exchange.response.status).join(", ") || "none";
}

function lastStatus(status: number) {
  return (_session: SessionLog, exchanges: readonly Exchange[]): string | undefined =>
    exchanges.at(-1)?.response.status === status ? undefined : `expected the last response to be ${status}, got ${statuses(exchanges)}`;
}

function everyStatus(status: number, count: number) {
  return (_session: SessionLog, exchanges: readonly Exchange[]): string | undefined => {
    const fits = exchanges.length === count && exchanges.every((exchange) => exchange.response.status === status);
    return fits ? undefined : `expected ${count} responses of ${status}, got ${statuses(exchanges)}`;
  };
}

/** A 429 first, retried by the SDK, then the ordinary round trip. */
function rateLimitedRoundTrip(session: SessionLog, exchanges: readonly Exchange[]): string | undefined {
  if (exchanges[0]?.response.status !== 429) return `expected a 429 first, got ${statuses(exchanges)}`;
  return oneCallRoundTrip(session);
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
