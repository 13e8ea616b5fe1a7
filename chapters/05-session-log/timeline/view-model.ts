// The timeline's view model: a fold over the log. `addEvent(view, event)` adds one event to the view,
// so a stored log (fold every event) and a live one (fold each event as it arrives) are drawn by the
// same code. Nothing here is stored beside the log: it is all derived from it.
// The fold extends the view in place: a fold that copied the view for every event (the first version
// did) costs time proportional to the log for each event, and 10,000 events took minutes to draw.
import type { Message } from "../../common/messages.ts";
import { isEventOfType } from "../events.ts";
import { checkLogStructure, type LogProblem } from "../invariants.ts";
import { deriveEventMessage } from "../projection.ts";
import type { SessionEvent } from "../events.ts";
import { addChunk, endRun, foldRuns, noRuns, type ChunkRuns } from "./chunk-runs.ts";

/** Why an event never reaches the model: the projection's reasons (5.4), one code each. */
export type HiddenReason =
  | "turn-boundary"
  | "step-boundary"
  | "request-header" // sent as the system prompt and tool specs, not as a message
  | "carried-by-assistant" // a tool/call: its request already rides on the assistant message
  | "empty-reply" // an assistant/message with no text, no reasoning and no call
  | "stream-chunk" // an assistant/chunk: the message built from the chunks is what the model sees
  | "not-in-projection"; // a type the projection does not know

/** What makes an event stand out as something that went wrong. */
export type Alert =
  | { readonly kind: "tool-error" }
  | { readonly kind: "max_steps" | "error" | "interrupted"; readonly message: string | null };

export interface EventView {
  readonly event: SessionEvent;
  /** Where it is drawn: `groups[group].entries[entry]` (the event itself, or the step holding it). */
  readonly group: number;
  readonly entry: number;
  /** Milliseconds since its turn's `turn/start`; null outside a turn. */
  readonly sinceTurnStart: number | null;
  /** Index in `messages` of the message it projects to, or null with the reason it has none. */
  readonly message: number | null;
  readonly hidden: HiddenReason | null;
  /** tool/call ↔ tool/result with the same call_id. */
  readonly pairedWith: number | null;
  /** For a tool/call: the assistant/message whose tool_calls carry it to the model. */
  readonly carriedBy: number | null;
  readonly alert: Alert | null;
  /** For a chunk: the run it belongs to (`runs.byFirst`); for a message: the runs folded under it. */
  readonly run: number | null;
  readonly foldedRuns: readonly number[];
}

/** What a group lists: an event between steps, or a step with the events inside it. */
export type Entry =
  | { readonly kind: "event"; readonly id: number }
  | { readonly kind: "step"; readonly step: number; readonly ids: number[] };

/** A turn (turn/start … turn/end), or a run of events outside any turn (turn null). */
export interface GroupView {
  readonly turn: number | null;
  readonly startTs: number | null;
  readonly entries: Entry[];
  end: { readonly reason: string; readonly message: string | null } | null;
}

export interface MessageView {
  readonly index: number;
  readonly fromEvent: number;
  readonly message: Message;
}

/** The timeline so far. Only addEvent changes it; everything else reads it. */
export interface TimelineView {
  readonly events: EventView[];
  readonly groups: GroupView[];
  readonly messages: MessageView[];
  readonly runs: ChunkRuns;
  // Fold state: the step events go into, calls still waiting for a result, and who carried each call.
  openStep: { readonly group: number; readonly entry: number } | null;
  readonly pendingCalls: Map<string, number>;
  readonly carriers: Map<string, number>;
}

/** An event arrived out of id order: a timeline, like the log, has no gaps and no repeats. */
export class TimelineOrderError extends Error {
  override readonly name = "TimelineOrderError";
  constructor(
    readonly expected: number,
    readonly got: number,
  ) {
    super(`event #${got} arrived where #${expected} was expected: a timeline takes the events in id order, without gaps or repeats`);
  }
}

export function emptyTimeline(): TimelineView {
  return { events: [], groups: [], messages: [], runs: noRuns(), openStep: null, pendingCalls: new Map(), carriers: new Map() };
}

export function deriveTimeline(events: readonly SessionEvent[]): TimelineView {
  const view = emptyTimeline();
  for (const event of events) addEvent(view, event);
  return view;
}

/** Adds `event` to `view` and returns its EventView; an earlier event it pairs with is updated too. */
export function addEvent(view: TimelineView, event: SessionEvent): EventView {
  if (event.id !== view.events.length) throw new TimelineOrderError(view.events.length, event.id);
  const { group, entry } = place(view, event);
  const projected = deriveEventMessage(event);
  if (projected !== null) view.messages.push({ index: view.messages.length, fromEvent: event.id, message: projected });
  const startTs = view.groups[group]?.startTs ?? null;
  endRun(view.runs, event);
  const run = isEventOfType(event, "assistant/chunk") ? addChunk(view.runs, event).first : null;
  const runOf = (id: number) => view.events[id]?.run ?? undefined;
  const item: EventView = {
    event,
    group,
    entry,
    sinceTurnStart: startTs === null ? null : event.ts - startTs,
    message: projected === null ? null : view.messages.length - 1,
    hidden: projected === null ? hiddenReason(event) : null,
    pairedWith: pairCall(view, event),
    carriedBy: isEventOfType(event, "tool/call") ? (view.carriers.get(event.data.call_id) ?? null) : null,
    alert: alertOf(event),
    run,
    foldedRuns: isEventOfType(event, "assistant/message") ? foldRuns(view.runs, event, runOf) : [],
  };
  view.events.push(item);
  return item;
}

/**
 * The structure check (invariants.ts) of everything folded so far. It reads the whole log, so the
 * page runs it when it draws the problem list (once for a stored log, a few times a second live),
 * never once per event: that alone made drawing a log take time proportional to its length squared.
 */
export function problemsOf(view: TimelineView): LogProblem[] {
  return checkLogStructure(view.events.map((item) => item.event));
}

// ── where an event goes: a new turn, a step, or the current group between steps ─────────────────

function place(view: TimelineView, event: SessionEvent): { group: number; entry: number } {
  if (isEventOfType(event, "turn/start")) {
    view.groups.push({ turn: event.data.turn, startTs: event.ts, entries: [{ kind: "event", id: event.id }], end: null });
    view.openStep = null;
    return { group: view.groups.length - 1, entry: 0 };
  }
  const group = currentGroup(view.groups);
  // A step/start inside an open step, or a turn/end, is drawn outside it (findLogProblems reports the open step).
  const at = view.openStep;
  if (at !== null && !isEventOfType(event, "step/start") && !isEventOfType(event, "turn/end")) {
    const step = (view.groups[at.group] as GroupView).entries[at.entry] as Entry & { kind: "step" };
    step.ids.push(event.id);
    if (isEventOfType(event, "step/end")) view.openStep = null;
    return at;
  }
  const target = view.groups[group] as GroupView;
  const entry: Entry = isEventOfType(event, "step/start")
    ? { kind: "step", step: event.data.step, ids: [event.id] }
    : { kind: "event", id: event.id };
  if (isEventOfType(event, "turn/end")) target.end = { reason: event.data.reason, message: event.data.message ?? null };
  target.entries.push(entry);
  const placed = { group, entry: target.entries.length - 1 };
  view.openStep = entry.kind === "step" ? placed : null;
  return placed;
}

/** The last group while its turn is open, or else a new group for events outside any turn. */
function currentGroup(groups: GroupView[]): number {
  const last = groups.at(-1);
  if (last === undefined || last.end !== null) groups.push({ turn: null, startTs: null, entries: [], end: null });
  return groups.length - 1;
}

// ── the projection's reasons, pairs and alerts ───────────────────────────────────────────────────

/** Why deriveEventMessage gave `event` no message: it decides, this only names the reason. */
function hiddenReason(event: SessionEvent): HiddenReason {
  switch (event.type) {
    case "turn/start":
    case "turn/end":
      return "turn-boundary";
    case "step/start":
    case "step/end":
      return "step-boundary";
    case "request/header":
      return "request-header";
    case "tool/call":
      return "carried-by-assistant";
    case "assistant/message":
      return "empty-reply";
    case "assistant/chunk":
      return "stream-chunk";
    default:
      return "not-in-projection";
  }
}

function alertOf(event: SessionEvent): Alert | null {
  if (isEventOfType(event, "tool/result") && event.data.is_error) return { kind: "tool-error" };
  if (isEventOfType(event, "turn/end") && event.data.reason !== "completed") {
    return { kind: event.data.reason, message: event.data.message ?? null };
  }
  // The stream stopped early: the message holds only what had arrived.
  if (isEventOfType(event, "assistant/message") && event.data.interrupted) return { kind: "interrupted", message: null };
  return null;
}

/**
 * Remembers calls and who carried them; returns the call a result answers (whose view is updated to
 * point back at the result), or null.
 */
function pairCall(view: TimelineView, event: SessionEvent): number | null {
  if (isEventOfType(event, "assistant/message")) for (const call of event.data.tool_calls) view.carriers.set(call.id, event.id);
  if (isEventOfType(event, "tool/call")) view.pendingCalls.set(event.data.call_id, event.id);
  if (!isEventOfType(event, "tool/result")) return null;
  const callId = view.pendingCalls.get(event.data.call_id);
  if (callId === undefined) return null;
  view.pendingCalls.delete(event.data.call_id);
  const call = view.events[callId] as EventView;
  view.events[callId] = { ...call, pairedWith: event.id };
  return callId;
}
