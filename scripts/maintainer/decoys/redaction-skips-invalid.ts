// Decoy for step p3: a redaction in a stored log that cannot apply (a target after it, an unknown id,
// a boundary) is quietly ignored instead of reported, so a corrupted log looks fine.
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { Message } from "../../../chapters/common/messages.ts";
import * as answer from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  return answer.deriveRedactedMessages(withoutBadRedactions(events));
}

export function exportTranscript(events: readonly SessionEvent[]): answer.TranscriptEntry[] {
  return answer.exportTranscript(withoutBadRedactions(events));
}

// DECOY: each redaction the answer refuses is turned into an event no view reads, then retried.
function withoutBadRedactions(events: readonly SessionEvent[]): readonly SessionEvent[] {
  let current = events;
  for (;;) {
    try {
      answer.exportTranscript(current);
      return current;
    } catch (error) {
      if (!(error instanceof answer.RedactionError)) throw error;
      const bad = error.redactionId;
      current = current.map((event) => (event.id === bad ? { ...event, type: "log/ignored" } : event));
    }
  }
}
