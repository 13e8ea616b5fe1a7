// The timeline's view model: a pure fold over the log. `addEvent(view, event)` returns the view with
// one more event, so a stored log (fold every event) and a live one (fold each event as it arrives)
// are drawn by the same code. Nothing here is stored beside the log: it is all derived from it.
import type { Message } from "../../common/messages.ts";
import { isEventOfType } from "../events.ts";
import { findLogProblems, type LogProblem } from "../invariants.ts";
import { deriveEventMessage } from "../projection.ts";
import type { SessionEvent } from "../events.ts";

/** Why an event never reaches the model: the projection's reasons (5.4), one code each. */
export type HiddenReason =
  | "turn-boundary"
  | "step-boundary"
  | "request-header" // sent as the system prompt and tool specs, not as a message
  | "carried-by-assistant" // a tool/call: its request already rides on the assistant message
  | "empty-reply" // an assistant/message with no text, no reasoning and no call
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
}

/** What a group lists: an event between steps, or a step with the events inside it. */
export type Entry =
  | { readonly kind: "event"; readonly id: number }
  | { readonly kind: "step"; readonly step: number; readonly ids: readonly number[] };

/** A turn (turn/start … turn/end), or a run of events outside any turn (turn null). */
export interface GroupView {
  readonly turn: number | null;
  readonly startTs: number | null;
  readonly entries: readonly Entry[];
  readonly end: { readonly reason: string; readonly message: string | null } | null;
}

export interface MessageView {
  readonly index: number;
  readonly fromEvent: number;
  readonly message: Message;
}

export interface TimelineView {
  readonly events: readonly EventView[];
  readonly groups: readonly GroupView[];
  readonly messages: readonly MessageView[];
  /** The structure check (invariants.ts) over the whole log so far. */
  readonly problems: readonly LogProblem[];
  // Fold state: the step events go into, calls still waiting for a result, and who carried each call.
  readonly openStep: { readonly group: number; readonly entry: number } | null;
  readonly pendingCalls: ReadonlyMap<string, number>;
  readonly carriers: ReadonlyMap<string, number>;
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
  return {
    events: [],
    groups: [],
    messages: [],
    problems: [],
    openStep: null,
    pendingCalls: new Map(),
    carriers: new Map(),
  };
}

export function deriveTimeline(events: readonly SessionEvent[]): TimelineView {
  return events.reduce(addEvent, emptyTimeline());
}

/** The view with `event` added. `view` is left as it was (the fold is pure). */
export function addEvent(view: TimelineView, event: SessionEvent): TimelineView {
  if (event.id !== view.events.length) throw new TimelineOrderError(view.events.length, event.id);
  const placed = place(view, event);
  const projected = deriveEventMessage(event);
  const messages =
    projected === null ? view.messages : [...view.messages, { index: view.messages.length, fromEvent: event.id, message: projected }];
  const group = placed.groups[placed.group];
  const startTs = group?.startTs ?? null;
  const eventView: EventView = {
    event,
    group: placed.group,
    entry: placed.entry,
    sinceTurnStart: startTs === null ? null : event.ts - startTs,
    message: projected === null ? null : messages.length - 1,
    hidden: projected === null ? hiddenReason(event) : null,
    pairedWith: null,
    carriedBy: isEventOfType(event, "tool/call") ? (view.carriers.get(event.data.call_id) ?? null) : null,
    alert: alertOf(event),
  };
  const paired = pairCalls(view, [...view.events, eventView]);
  // The structure check reads the whole log; running invariants.ts again per event keeps one
  // implementation of it, at a cost (linear per event) that logs of hundreds of events never notice.
  const problems = findLogProblems(paired.events.map((item) => item.event));
  return { ...paired, groups: placed.groups, openStep: placed.openStep, messages, problems };
}

// ── where an event goes: a new turn, a step, or the current group between steps ─────────────────

type Placement = Pick<TimelineView, "groups" | "openStep"> & { readonly group: number; readonly entry: number };

function place(view: TimelineView, event: SessionEvent): Placement {
  if (isEventOfType(event, "turn/start")) {
    const group: GroupView = {
      turn: event.data.turn,
      startTs: event.ts,
      entries: [{ kind: "event", id: event.id }],
      end: null,
    };
    return { groups: [...view.groups, group], openStep: null, group: view.groups.length, entry: 0 };
  }
  const { groups, group } = currentGroup(view.groups);
  // A step/start inside an open step, or a turn/end, is drawn outside it (findLogProblems reports the open step).
  const joinsStep = view.openStep !== null && !isEventOfType(event, "step/start") && !isEventOfType(event, "turn/end");
  return joinsStep && view.openStep !== null ? addToStep(groups, view.openStep, event) : addEntry(groups, group, event);
}

function addToStep(groups: readonly GroupView[], at: { group: number; entry: number }, event: SessionEvent): Placement {
  const target = groups[at.group] as GroupView;
  const step = target.entries[at.entry] as Entry & { kind: "step" };
  const entries = replaceAt(target.entries, at.entry, { ...step, ids: [...step.ids, event.id] });
  const openStep = isEventOfType(event, "step/end") ? null : at;
  return { groups: replaceAt(groups, at.group, { ...target, entries }), openStep, ...at };
}

function addEntry(groups: readonly GroupView[], group: number, event: SessionEvent): Placement {
  const target = groups[group] as GroupView;
  const entry: Entry = isEventOfType(event, "step/start")
    ? { kind: "step", step: event.data.step, ids: [event.id] }
    : { kind: "event", id: event.id };
  const end = isEventOfType(event, "turn/end") ? { reason: event.data.reason, message: event.data.message ?? null } : target.end;
  const at = { group, entry: target.entries.length };
  const groupsAfter = replaceAt(groups, group, { ...target, entries: [...target.entries, entry], end });
  return { groups: groupsAfter, openStep: entry.kind === "step" ? at : null, ...at };
}

/** The last group while its turn is open, or else a new group for events outside any turn. */
function currentGroup(groups: readonly GroupView[]): { groups: readonly GroupView[]; group: number } {
  const last = groups.at(-1);
  if (last !== undefined && last.end === null) return { groups, group: groups.length - 1 };
  const outside: GroupView = { turn: null, startTs: null, entries: [], end: null };
  return { groups: [...groups, outside], group: groups.length };
}

function replaceAt<T>(items: readonly T[], index: number, item: T): readonly T[] {
  return items.map((old, i) => (i === index ? item : old));
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
    default:
      return "not-in-projection";
  }
}

function alertOf(event: SessionEvent): Alert | null {
  if (isEventOfType(event, "tool/result") && event.data.is_error) return { kind: "tool-error" };
  if (isEventOfType(event, "turn/end") && event.data.reason !== "completed") {
    return { kind: event.data.reason, message: event.data.message ?? null };
  }
  return null;
}

/** Remembers calls and who carried them; a result is paired with the call waiting for it (both views change). */
function pairCalls(view: TimelineView, events: readonly EventView[]): Pick<TimelineView, "events" | "pendingCalls" | "carriers"> {
  const added = events.at(-1) as EventView;
  const { event } = added;
  if (isEventOfType(event, "assistant/message")) {
    const carriers = new Map(view.carriers);
    for (const call of event.data.tool_calls) carriers.set(call.id, event.id);
    return { events, pendingCalls: view.pendingCalls, carriers };
  }
  if (isEventOfType(event, "tool/call")) {
    return {
      events,
      pendingCalls: new Map(view.pendingCalls).set(event.data.call_id, event.id),
      carriers: view.carriers,
    };
  }
  const callId = isEventOfType(event, "tool/result") ? view.pendingCalls.get(event.data.call_id) : undefined;
  if (!isEventOfType(event, "tool/result") || callId === undefined)
    return { events, pendingCalls: view.pendingCalls, carriers: view.carriers };
  const pendingCalls = new Map(view.pendingCalls);
  pendingCalls.delete(event.data.call_id);
  const call = events[callId] as EventView;
  const paired = replaceAt(events, callId, { ...call, pairedWith: event.id });
  return {
    events: replaceAt(paired, event.id, { ...added, pairedWith: callId }),
    pendingCalls,
    carriers: view.carriers,
  };
}
