// Decoy for step p3: the redaction overwrites the logged event's content in place. The chapter's
// log is deep-frozen, so this throws a TypeError instead of silently rewriting history.
import type { JsonObject } from "../../../chapters/05-session-log/json-value.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { Message } from "../../../chapters/common/messages.ts";
import * as answer from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

function maskInPlace(events: readonly SessionEvent[]): void {
  for (const event of events) {
    if (event.type !== "log/redact") continue;
    const { target_id, reason } = event.data as { target_id: number; reason: string };
    const target = events[target_id];
    // DECOY: writes into the raw event.
    if (target && "content" in target.data) (target.data as { content: unknown } & JsonObject).content = answer.redactionMarker(reason);
  }
}

export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  maskInPlace(events);
  return answer.deriveRedactedMessages(events);
}

export function exportTranscript(events: readonly SessionEvent[]): answer.TranscriptEntry[] {
  maskInPlace(events);
  return answer.exportTranscript(events);
}
