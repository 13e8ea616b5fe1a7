// Decoy for step 05.3: projects tool/call too, so the model is shown every call twice — once on the
// assistant message that asked for it, once more as a message of its own.
import type { Message } from "../../../chapters/common/messages.ts";
import { isEventOfType } from "../../../chapters/05-session-log/events.ts";
import { deriveEventMessage as chapterEventMessage } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export function deriveMessages(events: readonly SessionEvent[]): Message[] {
  return events.flatMap((event) => deriveEventMessage(event) ?? []);
}

export function deriveEventMessage(event: SessionEvent): Message | null {
  if (isEventOfType(event, "tool/call")) {
    // DECOY: tool/call becomes an assistant message; the book keeps it in the log only.
    const { call_id, name, arguments: args } = event.data;
    return {
      role: "assistant",
      content: null,
      reasoning_content: null,
      tool_calls: [{ id: call_id, name, arguments: args }],
    };
  }
  return chapterEventMessage(event);
}
