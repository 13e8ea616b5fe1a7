// 5.4: the projection. The log records everything that happened; the model is shown only three kinds
// of event, turned into messages. Everything else — turn and step boundaries, the request header,
// `tool/call` (its request already rides on the assistant message) — stays in the log only.
import { toolCallOf, type AssistantMessage, type Message } from "../common/messages.ts";
import { isEventOfType } from "./events.ts";
import type { SessionEvent } from "./events.ts";

export function deriveMessages(events: readonly SessionEvent[]): Message[] {
  const messages: Message[] = [];
  for (const event of events) {
    const message = deriveEventMessage(event);
    if (message !== null) messages.push(message);
  }
  return messages;
}

export function deriveEventMessage(event: SessionEvent): Message | null {
  if (isEventOfType(event, "user/message")) {
    return { role: "user", content: event.data.content };
  }
  if (isEventOfType(event, "assistant/message")) {
    return deriveAssistantMessage(event);
  }
  if (isEventOfType(event, "tool/result")) {
    return { role: "tool", content: event.data.content, tool_call_id: event.data.call_id };
  }
  return null;
}

function deriveAssistantMessage(event: SessionEvent<"assistant/message">): AssistantMessage | null {
  const { content, reasoning_content = null, tool_calls } = event.data;
  // A reply with no text, no reasoning and no call says nothing; sending it would only confuse the
  // model. An empty string is still a reply, so only null counts as "no text".
  if (content === null && !reasoning_content && tool_calls.length === 0) return null;
  return {
    role: "assistant",
    content,
    reasoning_content,
    tool_calls: tool_calls.map(toolCallOf),
  };
}
