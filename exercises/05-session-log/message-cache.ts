// Step 05.6 (challenge, past the book) — incremental projection. The book's 对照官方 table:
// "官方使用增量投影，每个派生视图节点只处理一次；教学版每次重新处理全部事件，长会话成本更高".
// Your 05.3 deriveMessages walks the whole log on every call, and the agent loop calls it before
// every model request: the longer the session, the more each step costs. Here each event is
// projected once, when it is committed, and the messages are kept beside the log.
//
// MessageCache
//   project(event)  projects one committed event with your deriveEventMessage and keeps the message
//                   (if any), frozen, in order. Events come once each, in id order: an event whose id
//                   is not the next one (a gap or a repeat) is refused with a RangeError whose message
//                   says "expected event #N, got #M", and nothing changes.
//   messages()      every message so far. A caller may push to, sort or edit what it gets, and the
//                   next call must not show it: return a new array each call, of messages frozen
//                   once in project() (tool_calls and each call too), or a frozen array. Never
//                   project again here and never read the log: each message is projected once, and
//                   later calls hand out that same object.
//
// Then wire it into YOUR session.ts (see the guide): one `new MessageCache()` per Session, fed in the
// one private method that both append and fromLog commit through (make one if each pushes to the
// log itself), and `deriveMessages()` returns its messages(). Not a subscriber: a listener's own
// append would reach it late, and fromLog tells no listener at all.
// Given: your deriveEventMessage (05.3, ./projection.ts).
// Run: npx vitest exercises/05-session-log/05.6-incremental.test.ts (then `npm run bench`)
import type { Message } from "../../chapters/common/messages.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import { deriveEventMessage } from "./projection.ts";
import { todo } from "./todo.ts";

export class MessageCache {
  /** Projects one committed event. Each event exactly once, in id order. */
  project(event: SessionEvent): void {
    return todo(
      "05.6",
      `MessageCache.project：把事件 #${event.id} 投影一次，留下它的消息`,
      `MessageCache.project(event #${event.id}): project it once, keep its message`,
    );
  }

  /** Every message so far; what the caller does with the result never changes a later one. */
  messages(): Message[] {
    return todo(
      "05.6",
      "MessageCache.messages()：交出到目前为止的消息，调用方改不了它们",
      "MessageCache.messages(): the messages so far, safe to hand out",
    );
  }
}
