// Decoy for step p3: a redacted tool/call is masked where it is logged, but its arguments still
// reach the model, riding in the tool_calls entry of the assistant message that asked for the call.
import { deriveMessages } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { Message } from "../../../chapters/common/messages.ts";
import { exportTranscript } from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  const named = new Set(events.filter((event) => event.type === "log/redact").map((event) => event.data["target_id"]));
  // DECOY: only the events a redaction names are masked; "tool/call is not a message" ends the thought.
  const view = exportTranscript(events).map(({ redaction: _redaction, ...entry }, index) =>
    entry.type === "assistant/message" && !named.has(entry.id) ? events[index]! : entry,
  );
  return deriveMessages(view as SessionEvent[]);
}
