// Decoy for step p3: a redacted assistant message loses its tool calls along with their arguments,
// so the tool results that answered them pair with nothing.
import { deriveMessages } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { Message } from "../../../chapters/common/messages.ts";
import { exportTranscript } from "../../../solutions/05-session-log/redaction.ts";

export * from "../../../solutions/05-session-log/redaction.ts";

export function deriveRedactedMessages(events: readonly SessionEvent[]): Message[] {
  const masked = exportTranscript(events).map(({ redaction, ...event }) =>
    // DECOY: the calls go with the arguments.
    redaction && event.type === "assistant/message" ? { ...event, data: { ...event.data, tool_calls: [] } } : event,
  );
  return deriveMessages(masked as SessionEvent[]);
}
