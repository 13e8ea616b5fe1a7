// Decoy for step p3: redacting an assistant message masks its tool_calls entries, but the tool/call
// events that log the same arguments are left as they were, so the export still shows them.
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { exportTranscript as answerTranscript, type TranscriptEntry } from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

export function exportTranscript(events: readonly SessionEvent[]): TranscriptEntry[] {
  const named = new Set(events.filter((event) => event.type === "log/redact").map((event) => event.data["target_id"]));
  // DECOY: a tool/call is masked only when a redaction names it; its asking message's redaction is ignored.
  return answerTranscript(events).map((entry, index) =>
    entry.type === "tool/call" && !named.has(entry.id) ? { ...events[index]!, redaction: null } : entry,
  );
}
