// 练习3 (step p3): redaction over an append-only log. The log never changes what it holds, yet some
// of it must stop being shown — a pasted API key, personal data under a deletion request. So a
// redaction is itself an event: `log/redact { target_id, reason }`. Every view derived from the log
// (the model's messages, the export a UI or an auditor reads) applies it; the raw event stays as it
// was, and because the redaction is in the log, a replay reproduces the masking.
//
// (Physically erasing bytes for a legal deletion needs more than this: rewriting the stored log or
// encrypting each event's content with a key you can destroy. Masking in every view is the part the
// log itself can promise, and it keeps the record that something was removed, when, and why.)
import { isEventOfType, type EventData } from "../../chapters/05-session-log/events.ts";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import { deriveMessages } from "../../chapters/05-session-log/projection.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import type { Message } from "../../chapters/common/messages.ts";
import {
  redactedArguments,
  RedactionError,
  redactionMarker,
  type Redaction,
  type TranscriptEntry,
} from "../../exercises/05-session-log/given/redaction.ts";

// Given to the learner, so shared with the stub: the `log/redact` type and its schema, the error,
// the markers and the export line.
export * from "../../exercises/05-session-log/given/redaction.ts";

// Only events whose content someone typed or a tool returned. Boundaries, the request header and
// redactions are the skeleton of the record: masking them would hide *that* something happened,
// which is the part an audit needs to keep.
const redactableTypes: ReadonlySet<string> = new Set(["user/message", "assistant/message", "tool/call", "tool/result"]);

// ── writing: check first, then append ──────────────────────────────────────────────────────────

/** Appends a redaction of event `targetId`, or throws RedactionError and appends nothing. */
export function redact(session: SessionLog, targetId: number, reason: string): SessionEvent<"log/redact"> {
  const events = session.events;
  checkRedaction(events, events.length, targetId); // the id the redaction is about to get
  return session.append("log/redact", { target_id: targetId, reason });
}

function checkRedaction(events: readonly SessionEvent[], redactionId: number, targetId: number): void {
  const target = Number.isInteger(targetId) ? events[targetId] : undefined;
  if (target === undefined) {
    throw new RedactionError("UNKNOWN_TARGET", redactionId, targetId, "no event in the log has this id");
  }
  if (targetId >= redactionId) {
    throw new RedactionError("TARGET_NOT_EARLIER", redactionId, targetId, "the target must come before the redaction");
  }
  if (!redactableTypes.has(target.type)) {
    throw new RedactionError("NOT_REDACTABLE", redactionId, targetId, `"${target.type}" events cannot be redacted`);
  }
}

// ── reading: every view applies the redactions ─────────────────────────────────────────────────

/** One event's masked data, and the latest redaction that masked anything in it. */
interface Masked {
  readonly data: JsonObject;
  readonly redaction: Redaction;
}

/**
 * Event id → its masked data, applying every redaction in log order (so if an event is redacted
 * twice, the later reason is the one shown), and checking each one, as a stored log may hold anything.
 */
function maskedEvents(events: readonly SessionEvent[]): Map<number, Masked> {
  const masked = new Map<number, Masked>();
  const mask = (target: SessionEvent, redaction: Redaction, change: (data: JsonObject) => JsonObject) => {
    const data = masked.get(target.id)?.data ?? target.data;
    masked.set(target.id, { data: change(data), redaction });
  };
  for (const event of events) {
    if (!isEventOfType(event, "log/redact")) continue;
    const { target_id, reason } = event.data;
    checkRedaction(events, event.id, target_id);
    const target = events[target_id]!;
    const redaction = { by: event.id, reason };
    mask(target, redaction, (data) => maskedData(target.type, data, reason));
    // The same arguments are logged twice: in the assistant message that asked for a call (which
    // is what the model is sent) and in the tool/call event. Redacting either masks both.
    if (isEventOfType(target, "tool/call")) {
      const asking = askingMessage(events, target);
      if (asking !== undefined) {
        mask(asking, redaction, (data) => maskCallArguments(data, target.data.call_id, reason));
      }
    }
    if (isEventOfType(target, "assistant/message")) {
      for (const answering of callsAskedBy(events, target)) {
        mask(answering, redaction, (data) => maskedData("tool/call", data, reason));
      }
    }
  }
  return masked;
}

/** The tool/call events that carry out the calls `message` asked for (those it is the asking message of). */
function callsAskedBy(events: readonly SessionEvent[], message: SessionEvent<"assistant/message">): SessionEvent[] {
  const ids = new Set(message.data.tool_calls.map((call) => call.id));
  const calls: SessionEvent[] = [];
  for (const event of events.slice(message.id + 1)) {
    // A later turn may reuse a call id: only the calls this very message asked for.
    if (isEventOfType(event, "tool/call") && ids.has(event.data.call_id) && askingMessage(events, event) === message) {
      calls.push(event);
    }
  }
  return calls;
}

/** The latest assistant/message before `call` whose tool_calls carry its call id. */
function askingMessage(events: readonly SessionEvent[], call: SessionEvent<"tool/call">): SessionEvent | undefined {
  for (let id = call.id - 1; id >= 0; id--) {
    const event = events[id]!;
    if (isEventOfType(event, "assistant/message") && event.data.tool_calls.some((c) => c.id === call.data.call_id)) {
      return event;
    }
  }
  return undefined;
}

/** The log as every view should see it: redacted events replaced by masked copies. */
function applyRedactions(events: readonly SessionEvent[], masked: Map<number, Masked>): SessionEvent[] {
  return events.map((event) => {
    const change = masked.get(event.id);
    return change === undefined ? event : { ...event, data: change.data };
  });
}

/** A new data object with the content masked; ids, names and flags stay, so pairings hold. */
function maskedData(type: string, data: JsonObject, reason: string): JsonObject {
  const marker = redactionMarker(reason);
  if (type === "user/message" || type === "tool/result") return { ...data, content: marker }; // call_id kept
  if (type === "tool/call") return { ...data, arguments: redactedArguments(reason) };
  if (type === "assistant/message") {
    const { content, reasoning_content, tool_calls } = data as EventData<"assistant/message">;
    // Masking must not change which messages exist. The projection drops a reply whose content is
    // null and whose reasoning is empty, so those stay as they are: there is nothing in them to hide.
    return {
      ...data,
      content: content === null ? null : marker,
      ...(reasoning_content ? { reasoning_content: marker } : {}),
      // The call ids stay, so the tool results that answer them still pair with a call.
      tool_calls: tool_calls.map((call) => ({ ...call, arguments: redactedArguments(reason) })),
    };
  }
  // checkRedaction lets only the types above through; a type added there without a rule here must
  // fail loudly rather than come back unmasked.
  throw new Error(`maskedData: no masking rule for "${type}"`);
}

/** An assistant message's data with one call's arguments masked, everything else as it was. */
function maskCallArguments(data: JsonObject, callId: string, reason: string): JsonObject {
  const { tool_calls } = data as EventData<"assistant/message">;
  return {
    ...data,
    tool_calls: tool_calls.map((call) => (call.id === callId ? { ...call, arguments: redactedArguments(reason) } : call)),
  };
}

/** What the model is sent: the chapter's projection over the redacted view. */
export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  return deriveMessages(applyRedactions(events, maskedEvents(events)));
}

/**
 * Every event, masked where redacted, with the latest redaction that masked anything in it; the
 * redactions themselves are listed too, as the audit trail.
 */
export function exportTranscript(events: readonly SessionEvent[]): TranscriptEntry[] {
  const masked = maskedEvents(events);
  return applyRedactions(events, masked).map(({ id, type, ts, data }) => ({
    id,
    type,
    ts,
    data,
    redaction: masked.get(id)?.redaction ?? null,
  }));
}
