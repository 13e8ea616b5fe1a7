// Step 05.6, past the book: incremental projection. The book's 对照官方 table says "官方使用增量投影，
// 每个派生视图节点只处理一次；教学版每次重新处理全部事件，长会话成本更高". Here each event is projected
// once, when it is committed, and the messages are kept beside the log, so deriving them before a
// model call no longer walks the whole log. The 05.3 projection (projection.ts) stays the reference:
// at every moment these messages equal `deriveMessages(session.events)`.
import type { Message } from "../common/messages.ts";
import type { SessionEvent } from "./events.ts";
import { deriveEventMessage } from "./projection.ts";

/**
 * The messages of a log, kept up to date one committed event at a time. The session feeds it from
 * its commit path, the one place every event passes, whoever commits it: `append`, an `append` made
 * inside a listener, or `fromLog`. A subscriber would be too late (a listener's own append reaches
 * it only after that listener returns) and would never hear a replayed log.
 */
export class MessageCache {
  readonly #messages: Message[] = [];
  /** How many events have been projected: the id the next one must have. */
  #projected = 0;

  /** Projects one committed event. Each event exactly once, in id order. */
  project(event: SessionEvent): void {
    // A gap or a repeat means the cache is fed from the wrong place: fail loudly, not drift quietly.
    if (event.id !== this.#projected) {
      throw new RangeError(
        `message cache: expected event #${this.#projected}, got #${event.id} (project every committed event once, in id order)`,
      );
    }
    const message = deriveEventMessage(event);
    if (message !== null) this.#messages.push(freezeMessage(message));
    this.#projected++;
  }

  /**
   * The messages so far. The array is new on every call, so a caller may push to it or sort it; the
   * messages in it are frozen, so no caller can change what the next one is given.
   */
  messages(): Message[] {
    return this.#messages.slice();
  }
}

// The projection built the message and its tool calls fresh, from data already checked when the
// event was committed: freezing them in place is enough (freezeJson would check and copy them again).
function freezeMessage(message: Message): Message {
  if (message.role === "assistant") {
    for (const call of message.tool_calls) Object.freeze(call);
    Object.freeze(message.tool_calls);
  }
  return Object.freeze(message);
}
