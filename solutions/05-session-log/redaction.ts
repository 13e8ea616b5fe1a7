// 练习3 (step p3): redaction over an append-only log. The log never changes what it holds, yet some
// of it must stop being shown — a pasted API key, personal data under a deletion request. So a
// redaction is itself an event: `log/redact { target_id, reason }`. Every view derived from the log
// (the model's messages, the export a UI or an auditor reads) applies it; the raw event stays as it
// was, and because the redaction is in the log, a replay reproduces the masking.
//
// (Physically erasing bytes for a legal deletion needs more than this: rewriting the stored log or
// encrypting each event's content with a key you can destroy. Masking in every view is the part the
// log itself can promise, and it keeps the record that something was removed, when, and why.)
import { isEventOfType } from "../../chapters/05-session-log/events.ts";
import type { JsonObject } from "../../chapters/05-session-log/json.ts";
import { deriveMessages } from "../../chapters/05-session-log/projection.ts";
import type { Session, SessionEvent } from "../../chapters/05-session-log/session.ts";
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
export function redact(session: Session, targetId: number, reason: string): SessionEvent<"log/redact"> {
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

/**
 * Target id → the redaction that applies, checking each one as a stored log may hold anything.
 * If an event is redacted twice, the later redaction wins (its reason is the one shown).
 */
function redactionsIn(events: readonly SessionEvent[]): Map<number, Redaction> {
  const redactions = new Map<number, Redaction>();
  for (const event of events) {
    if (!isEventOfType(event, "log/redact")) continue;
    checkRedaction(events, event.id, event.data.target_id);
    redactions.set(event.data.target_id, { by: event.id, reason: event.data.reason });
  }
  return redactions;
}

/** The log as every view should see it: redacted events replaced by masked copies. */
function applyRedactions(events: readonly SessionEvent[]): SessionEvent[] {
  const redactions = redactionsIn(events);
  return events.map((event) => {
    const redaction = redactions.get(event.id);
    return redaction === undefined ? event : { ...event, data: maskedData(event, redaction.reason) };
  });
}

/** A new data object with the content masked; ids, names and flags stay, so pairings hold. */
function maskedData(event: SessionEvent, reason: string): JsonObject {
  const marker = redactionMarker(reason);
  if (isEventOfType(event, "user/message")) return { ...event.data, content: marker };
  if (isEventOfType(event, "tool/result")) return { ...event.data, content: marker }; // call_id kept
  if (isEventOfType(event, "tool/call")) return { ...event.data, arguments: redactedArguments(reason) };
  if (isEventOfType(event, "assistant/message")) {
    const { content, reasoning_content, tool_calls } = event.data;
    // Masking must not change which messages exist. The projection drops a reply whose content is
    // null and whose reasoning is empty, so those stay as they are: there is nothing in them to hide.
    return {
      ...event.data,
      content: content === null ? null : marker,
      ...(reasoning_content ? { reasoning_content: marker } : {}),
      // The call ids stay, so the tool results that answer them still pair with a call.
      tool_calls: tool_calls.map((call) => ({ ...call, arguments: redactedArguments(reason) })),
    };
  }
  return event.data; // not reached: checkRedaction only lets redactable types through
}

/** What the model is sent: the chapter's projection over the redacted view. */
export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  return deriveMessages(applyRedactions(events));
}

/** Every event, masked where redacted; the redactions themselves are listed too, as the audit trail. */
export function exportTranscript(events: readonly SessionEvent[]): TranscriptEntry[] {
  const redactions = redactionsIn(events);
  return applyRedactions(events).map(({ id, type, ts, data }) => ({
    id,
    type,
    ts,
    data,
    redaction: redactions.get(id) ?? null,
  }));
}
