// Decoy for step p3: "redact" taken literally — a redacted event's message is left out of the
// model's history. A redacted tool result then answers no call, and a redacted assistant message
// leaves its tool results orphaned: DeepSeek rejects such a history (400).
import { deriveMessages } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { Message } from "../../../chapters/common/messages.ts";
import { exportTranscript } from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  const redacted = new Set(exportTranscript(events).flatMap((entry) => (entry.redaction ? [entry.id] : [])));
  return deriveMessages(events.filter((event) => !redacted.has(event.id))); // DECOY: dropped, not masked
}
