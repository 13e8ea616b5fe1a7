// Decoy for step 05.3: the assistant message loses its reasoning_content — the chapter-02 message
// shape, which DeepSeek rejects (400) on the request after a tool-call turn in thinking mode.
import type { Message } from "../../../chapters/common/messages.ts";
import { deriveEventMessage as chapterEventMessage } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export function deriveMessages(events: readonly SessionEvent[]): Message[] {
  return events.flatMap((event) => deriveEventMessage(event) ?? []);
}

export function deriveEventMessage(event: SessionEvent): Message | null {
  const message = chapterEventMessage(event);
  if (message?.role !== "assistant") return message;
  // DECOY: reasoning_content is not carried into the message.
  const { reasoning_content: _dropped, ...withoutReasoning } = message;
  return withoutReasoning;
}
