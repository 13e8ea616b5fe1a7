// Step p3 — 练习3 (book, end of chapter: "更高一层的删除或遮蔽机制").
// The log never changes an event, yet some content must stop being shown (a pasted key, personal
// data). Build redaction as an appended event, `log/redact { target_id, reason }` (given):
//   redact(session, targetId, reason)  checks, then appends; a bad target throws RedactionError
//     (codes: RedactionRule) and appends nothing. Redactable: user/message, assistant/message,
//     tool/call, tool/result. Not: boundaries, request/header, another redaction.
//   deriveRedactedMessages(events)      the chapter's projection, with redacted content masked.
//   exportTranscript(events)            every event for a UI/export, masked where redacted.
// Both views re-check every redaction in a stored log (a target after its redaction is an error
// there too). Masking replaces text with redactionMarker(reason) and call arguments with
// redactedArguments(reason); ids stay, so a tool result still pairs with its call. A call's
// arguments are logged twice, in the tool/call event and in the tool_calls entry (same id) of the
// assistant message that asked for it: redacting either one masks both. The raw events never
// change. Uses the chapter's Session, so it does not depend on your steps 05.1–05.5.
// Run: npx vitest exercises/05-session-log/p3-redaction.test.ts
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import type { Message } from "../../chapters/common/messages.ts";
import type { TranscriptEntry } from "./given/redaction.ts";
import { todo } from "./todo.ts";

// Given (in given/redaction.ts): the log/redact type and redactionSchemas, RedactionError and its
// RedactionRule codes, redactionMarker and redactedArguments, and the export line TranscriptEntry.
export * from "./given/redaction.ts";

/** Appends a redaction of event `targetId`, or throws RedactionError and appends nothing. */
export function redact(session: SessionLog, targetId: number, reason: string): SessionEvent<"log/redact"> {
  return todo(
    "p3",
    `redact：先检查事件 #${targetId} 能不能遮蔽，再追加 log/redact`,
    `redact: check that event #${targetId} can be redacted, then append log/redact`,
  );
}

/**
 * What the model is sent: the chapter's projection (chapters/05-session-log/projection.ts) over the
 * log with redacted events masked. Throws RedactionError for a redaction that cannot apply.
 * Masking rules: user/message and tool/result content → the marker; tool/call arguments →
 * redactedArguments, and so are the arguments of the tool_calls entry with the same id in the
 * latest assistant/message before it; assistant/message: content → the marker unless null,
 * reasoning_content → the marker unless empty or null (masking must not add or drop a message), each
 * tool call's arguments → redactedArguments (id and name kept), and so are the arguments of the
 * tool/call events that carry out those calls. Redactions apply in log order, so if an event is
 * redacted twice, the later reason shows.
 */
export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  return todo(
    "p3",
    `deriveRedactedMessages：投影 ${events.length} 条事件，被遮蔽的内容换成标记`,
    `deriveRedactedMessages: project ${events.length} events, masking the redacted ones`,
  );
}

/**
 * Every event, masked where redacted, with `redaction` set on masked ones (the latest redaction that
 * masked anything in it: the assistant message of a redacted tool/call shows that one, and so does
 * a tool/call whose asking message was redacted); redactions are listed too.
 */
export function exportTranscript(events: readonly SessionEvent[]): TranscriptEntry[] {
  return todo(
    "p3",
    `exportTranscript：列出 ${events.length} 条事件，被遮蔽的内容换成标记`,
    `exportTranscript: list ${events.length} events, masking the redacted ones`,
  );
}
