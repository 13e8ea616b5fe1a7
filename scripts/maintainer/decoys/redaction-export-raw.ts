// Decoy for step p3: only the model's projection is masked. The export a UI or an auditor reads
// marks the event as redacted but still shows what it said.
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { exportTranscript as answerTranscript, type TranscriptEntry } from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

export function exportTranscript(events: readonly SessionEvent[]): TranscriptEntry[] {
  // DECOY: the raw data goes out, masked or not.
  return answerTranscript(events).map((entry) => ({ ...entry, data: events[entry.id]!.data }));
}
