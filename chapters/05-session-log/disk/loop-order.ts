// Beyond 5.5: the agent loop appends in one fixed order, and a crash can only stop it between two
// appends. So "a log a crash can leave" is exactly a prefix of that order: every turn before the last
// closed, the last one cut after any event. 05.7's repair closes only such a log; anything else (a turn
// number repeated, a step skipped, a call no reply asked for) was not written by this loop, and
// appending to it would only hide the damage. This file walks a log through the order and says where
// the loop stopped, or the first event the loop could not have written there.
//
// The order of turn n (the n-th turn/start of the log), as agent-loop.ts appends it:
//   turn/start {turn: n}, user/message, request/header, then steps 1, 2, 3, …, then turn/end {turn: n}.
// A step s:
//   step/start {turn: n, step: s},
//   assistant/chunk {turn: n, step: s, attempt} …   only when streamed; a retry starts a higher attempt,
//   assistant/message                               at most one; streamed, it cites every chunk of the
//                                                   latest attempt (chunk_ids) and is what they assemble to,
//   tool/call, tool/result                          for each call the message asked for, in its order,
//   step/end {turn: n, step: s}.
// turn/end follows a step/end. A turn cut before its first step can only be closed by repair, which
// says so with reason "interrupted", so that reason may also come where no step is open.
import { toolCallOf, type AssistantMessage } from "../../common/messages.ts";
import { isEventOfType, type EventData, type SessionEvent, type StreamChunk } from "../events.ts";
import { assembleInterrupted, assembleReply, StreamAssemblyError } from "../stream/stream-assembler.ts";

type Message = EventData<"assistant/message">;
type Call = Message["tool_calls"][number];

/** What a crash left open in the last turn; `undefined` fields are closed (or never began). */
export interface OpenTurn {
  readonly turn: number;
  readonly step: OpenStep | undefined;
  /** The turn's latest reply is a final answer (no tool calls, not interrupted): the turn had finished. */
  readonly answered: boolean;
}

export interface OpenStep {
  readonly turn: number;
  readonly step: number;
  /** Chunks of the step's latest attempt, while no assistant/message has been logged. */
  readonly chunks: readonly SessionEvent<"assistant/chunk">[];
  /** The step's assistant/message, once logged. */
  readonly reply: Message | undefined;
  /** A tool/call logged without its tool/result: it was running. */
  readonly running: Call | undefined;
  /** Calls the reply asked for that were never logged: they never started. */
  readonly notStarted: readonly Call[];
}

/** Where the loop stopped (`open` undefined: every turn is closed), or the first event it could not have written. */
export type LoopStop =
  | { readonly fits: true; readonly open: OpenTurn | undefined }
  | { readonly fits: false; readonly index: number; readonly why: string };

interface Walk {
  turns: number;
  /** What the loop appends next in the open turn. */
  phase: "turn/start" | "user/message" | "request/header" | "step" | "in step";
  steps: number;
  /** How the last closed step's reply ended it: the loop starts another step only after tool calls. */
  lastStep: "final answer" | "tool calls" | "no full reply";
  attempt: number;
  chunks: SessionEvent<"assistant/chunk">[];
  chunkIds: Set<number>;
  reply: Message | undefined;
  nextCall: number;
  running: Call | undefined;
}

export function whereTheLoopStopped(events: readonly SessionEvent[]): LoopStop {
  // Stryker disable next-line StringLiteral: equivalent, lastStep is read only once a step has ended, which sets it
  const walk: Walk = { turns: 0, phase: "turn/start", steps: 0, lastStep: "no full reply", ...freshStep() };
  for (const event of events) {
    const why = nextEvent(walk, event);
    if (why !== undefined) return { fits: false, index: event.id, why: `${event.type} ${why}` };
  }
  return { fits: true, open: walk.phase === "turn/start" ? undefined : openTurn(walk) };
}

function freshStep() {
  return { attempt: 0, chunks: [], chunkIds: new Set<number>(), reply: undefined, nextCall: 0, running: undefined };
}

function openTurn(walk: Walk): OpenTurn {
  const step =
    walk.phase === "in step"
      ? {
          turn: walk.turns,
          step: walk.steps,
          chunks: walk.reply === undefined ? walk.chunks : [],
          reply: walk.reply,
          running: walk.running,
          notStarted: walk.reply?.tool_calls.slice(walk.nextCall) ?? [],
        }
      : undefined;
  // walk.reply is the turn's latest reply: the open step's, or the last step's once it has ended.
  return { turn: walk.turns, step, answered: walk.steps > 0 && howItEnds(walk.reply) === "final answer" };
}

/** Moves the walk past `event`; returns why the loop could not have written it here, if it could not. */
function nextEvent(walk: Walk, event: SessionEvent): string | undefined {
  if (isEventOfType(event, "turn/start")) {
    if (walk.phase !== "turn/start") return `while turn ${walk.turns} is still open (a crash leaves only the last turn open)`;
    if (event.data.turn !== walk.turns + 1) return `says turn ${event.data.turn}, but it is turn ${walk.turns + 1} of the log`;
    Object.assign(walk, { turns: walk.turns + 1, phase: "user/message", steps: 0 });
    return undefined;
  }
  if (isEventOfType(event, "user/message")) return expect(walk, "user/message", "request/header");
  if (isEventOfType(event, "request/header")) return expect(walk, "request/header", "step");
  if (isEventOfType(event, "turn/end")) return endTurn(walk, event.data);
  if (isEventOfType(event, "step/start")) return startStep(walk, event.data);
  if (walk.phase !== "in step") return `outside any step (the loop logs it only between step/start and step/end)`;
  if (isEventOfType(event, "assistant/chunk")) return chunk(walk, event);
  if (isEventOfType(event, "assistant/message")) return reply(walk, event.data);
  if (isEventOfType(event, "tool/call")) return callStarts(walk, event.data);
  if (isEventOfType(event, "tool/result")) return callEnds(walk, event.data.call_id);
  if (isEventOfType(event, "step/end")) return endStep(walk, event.data);
  return "is not an event the agent loop writes";
}

function expect(walk: Walk, type: Walk["phase"], then: Walk["phase"]): string | undefined {
  if (walk.phase !== type) return `where the loop logs ${walk.phase === "in step" ? "the step's events" : walk.phase}`;
  walk.phase = then;
  return undefined;
}

function endTurn(walk: Walk, { turn, reason }: EventData<"turn/end">): string | undefined {
  if (walk.phase === "turn/start") return `for turn ${turn}, but no turn is open`;
  if (turn !== walk.turns) return `says turn ${turn}, but the open turn is ${walk.turns}`;
  if (walk.phase === "in step") return `while step ${walk.steps} is still open (the loop ends a step before its turn)`;
  if (walk.steps === 0 && reason !== "interrupted")
    return `"${reason}" before the turn's first step (only a repair closes a turn there, as "interrupted")`;
  walk.phase = "turn/start";
  return undefined;
}

function startStep(walk: Walk, { turn, step }: EventData<"step/start">): string | undefined {
  if (walk.phase !== "step") return `where the loop logs ${walk.phase === "in step" ? `step/end for step ${walk.steps}` : walk.phase}`;
  if (turn !== walk.turns || step !== walk.steps + 1)
    return `says turn ${turn} step ${step}, but the next is turn ${walk.turns} step ${walk.steps + 1}`;
  if (walk.steps > 0 && walk.lastStep !== "tool calls")
    return `after a step that ended with ${walk.lastStep} (the loop goes on only after tool calls)`;
  Object.assign(walk, { phase: "in step", steps: step, ...freshStep() });
  return undefined;
}

function chunk(walk: Walk, event: SessionEvent<"assistant/chunk">): string | undefined {
  const { turn, step, attempt } = event.data;
  if (walk.reply !== undefined) return "after the step's assistant/message (chunks come before the message built from them)";
  if (turn !== walk.turns || step !== walk.steps) return `says turn ${turn} step ${step}, inside turn ${walk.turns} step ${walk.steps}`;
  if (attempt < walk.attempt) return `of attempt ${attempt} after attempt ${walk.attempt} (a retry never goes back)`;
  if (attempt > walk.attempt) Object.assign(walk, { attempt, chunks: [] });
  walk.chunks.push(event);
  walk.chunkIds.add(event.id);
  return undefined;
}

function reply(walk: Walk, message: Message): string | undefined {
  if (walk.reply !== undefined) return `is the second reply in step ${walk.steps} (one model call, one message)`;
  const ids = message.tool_calls.map((call) => call.id);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated !== undefined) return `asks for tool call ${repeated} twice (a result could not tell them apart)`;
  const foreign = message.chunk_ids?.find((id) => !walk.chunkIds.has(id));
  if (foreign !== undefined) return `cites #${foreign}, which is not a chunk of step ${walk.steps}`;
  const unlike = unlikeItsChunks(message, walk.chunks);
  if (unlike !== undefined) return unlike;
  walk.reply = message;
  return undefined;
}

/**
 * Why a message is not what the loop logs after `chunks` (the step's latest attempt), if it is not. A
 * step without chunks was not streamed. A streamed step cites every chunk of its latest attempt, and
 * logs what they assemble to: the reply, once a finish chunk came; or, marked interrupted, the text seen.
 */
function unlikeItsChunks(message: Message, chunks: readonly SessionEvent<"assistant/chunk">[]): string | undefined {
  const cited = message.chunk_ids ?? [];
  if (message.chunk_ids === undefined && chunks.length === 0 && message.interrupted !== true) return undefined;
  if (cited.length !== chunks.length || chunks.some((event, index) => event.id !== cited[index])) {
    return `cites ${cited.length} of the ${chunks.length} chunks of the step's latest attempt (the loop cites every one, in order)`;
  }
  const logged = whatTheLoopLogs(
    chunks.map((event) => event.data.chunk),
    message.interrupted === true,
  );
  if (typeof logged === "string") return logged;
  if (message.content !== logged.content) return "has content that its chunks did not carry";
  if ((message.reasoning_content ?? null) !== (logged.reasoning_content ?? null))
    return "has reasoning_content that its chunks did not carry";
  if (callsOf(message) !== callsOf(logged)) return "asks for tool calls that its chunks did not carry";
  return undefined;
}

/** A message's tool calls as one JSON text: each call's three fields (toolCallOf), in one order, call after call. */
function callsOf(message: Pick<AssistantMessage, "tool_calls">): string {
  return JSON.stringify(message.tool_calls.map(toolCallOf));
}

/** The message streamReply logs for these chunks, or why it would log none. */
function whatTheLoopLogs(chunks: readonly StreamChunk[], interrupted: boolean): AssistantMessage | string {
  if (interrupted)
    return assembleInterrupted(chunks) ?? "is marked interrupted, but its chunks carried no text to keep (the loop then logs no message)";
  if (!chunks.some((chunk) => chunk.kind === "finish")) return "is not marked interrupted, but its chunks never finished (no finish chunk)";
  try {
    return assembleReply(chunks);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: assembleReply throws only StreamAssemblyError for chunks the log's schema passed; anything else is a bug, thrown on
    if (!(error instanceof StreamAssemblyError)) throw error;
    return `is not marked interrupted, but its chunks do not make a reply (${error.message})`;
  }
}

function callStarts(walk: Walk, { call_id, name, arguments: args }: EventData<"tool/call">): string | undefined {
  if (walk.running !== undefined) return `while call ${walk.running.id} still has no result (the loop runs calls one by one)`;
  const asked = walk.reply?.tool_calls[walk.nextCall];
  if (asked?.id !== call_id || asked.name !== name || asked.arguments !== args) {
    return `${call_id} is not what the reply asked for next (${asked === undefined ? "nothing more" : `call ${asked.id}`})`;
  }
  walk.running = asked;
  walk.nextCall++;
  return undefined;
}

function callEnds(walk: Walk, callId: string): string | undefined {
  if (walk.running?.id !== callId) return `for call ${callId}, which is not the call running (${walk.running?.id ?? "none"})`;
  walk.running = undefined;
  return undefined;
}

function endStep(walk: Walk, { turn, step }: EventData<"step/end">): string | undefined {
  if (turn !== walk.turns || step !== walk.steps)
    return `says turn ${turn} step ${step}, but the open step is turn ${walk.turns} step ${walk.steps}`;
  if (walk.running !== undefined) return `while call ${walk.running.id} still has no result`;
  const left = walk.reply?.tool_calls[walk.nextCall];
  if (left !== undefined) return `before call ${left.id} that the reply asked for was logged`;
  walk.lastStep = howItEnds(walk.reply);
  walk.phase = "step";
  return undefined;
}

function howItEnds(reply: Message | undefined): Walk["lastStep"] {
  if (reply === undefined || reply.interrupted === true) return "no full reply";
  return reply.tool_calls.length === 0 ? "final answer" : "tool calls";
}
