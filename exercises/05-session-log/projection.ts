// Step 05.3 — the projection (book §5.4 "哪些事件进模型，哪些只进日志").
// The log keeps everything that happened; the model is shown only three kinds of event:
//   user/message      → { role: "user", content }
//   assistant/message → { role: "assistant", content, reasoning_content, tool_calls }
//                       (reasoning_content is null when the event has none; the reply is dropped
//                        when content is null and it has neither reasoning nor a tool call)
//   tool/result       → { role: "tool", content, tool_call_id: call_id }
// Every other event (turn/step boundaries, request/header, tool/call, unknown types) → null.
// Given: `isEventOfType(event, "tool/result")` (chapters/05-session-log/events.ts) narrows `event.data`,
// and `toolCallOf` (chapters/common/messages.ts) copies a tool call's three fields (and no more).
// Run: npx vitest exercises/05-session-log/05.3-projection.test.ts
import { toolCallOf, type Message } from "../../chapters/common/messages.ts";
import { isEventOfType, type SessionEvent } from "../../chapters/05-session-log/events.ts";
import { todo } from "./todo.ts";

/** Every message the model should see, in log order. */
export function deriveMessages(events: readonly SessionEvent[]): Message[] {
  return todo(
    "05.3",
    `deriveMessages：把 ${events.length} 条事件投影成发给模型的消息`,
    `deriveMessages: project ${events.length} events into model messages`,
  );
}

/** The message one event becomes, or null when the event stays in the log only. */
export function deriveEventMessage(event: SessionEvent): Message | null {
  return todo(
    "05.3",
    `deriveEventMessage：决定一条 ${event.type} 事件变成什么`,
    `deriveEventMessage: decide what the ${event.type} event becomes`,
  );
}
