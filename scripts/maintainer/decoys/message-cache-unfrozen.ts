// Decoy for step 05.6: a new array on every call, but the messages in it are the cache's own,
// unfrozen objects. A caller that edits a message's content (or a tool call) changes it for every
// later call.
import type { Message } from "../../../chapters/common/messages.ts";
import { deriveEventMessage } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { MessageCache as ChapterCache } from "../../../chapters/05-session-log/message-cache.ts";

export class MessageCache {
  readonly #checked = new ChapterCache(); // the chapter's order check, so only the freezing is wrong
  readonly #messages: Message[] = [];

  project(event: SessionEvent): void {
    this.#checked.project(event);
    const message = deriveEventMessage(event);
    if (message !== null) this.#messages.push(message); // DECOY: not frozen
  }

  messages(): Message[] {
    return [...this.#messages];
  }
}
