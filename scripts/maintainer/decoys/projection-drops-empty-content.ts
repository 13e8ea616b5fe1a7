// Decoy for step 05.3: tests the reply's text for truthiness, so an assistant message whose content
// is "" (and that has no reasoning or tool call) is dropped as if it said nothing.
import type { Message } from "../../../chapters/common/messages.ts";
import { isEventOfType } from "../../../chapters/05-session-log/events.ts";
import { deriveEventMessage as chapterEventMessage } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export function deriveMessages(events: readonly SessionEvent[]): Message[] {
  return events.flatMap((event) => deriveEventMessage(event) ?? []);
}

export function deriveEventMessage(event: SessionEvent): Message | null {
  if (isEventOfType(event, "assistant/message")) {
    const { content, reasoning_content, tool_calls } = event.data;
    // DECOY: `!content` treats "" like null; only null means "no text".
    if (!content && !reasoning_content && tool_calls.length === 0) return null;
  }
  return chapterEventMessage(event);
}
