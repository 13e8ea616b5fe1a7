// Decoy for step 05.6: the cache projects each event once and freezes the messages, but messages()
// hands out its own array. A caller that pushes to (or empties, or sorts) what it was given changes
// what every later call returns, and so what the model is sent next.
import type { Message } from "../../../chapters/common/messages.ts";
import { deriveEventMessage } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { freezeJson } from "../../../chapters/05-session-log/json.ts";
import { MessageCache as ChapterCache } from "../../../chapters/05-session-log/message-cache.ts";

export class MessageCache {
  readonly #checked = new ChapterCache(); // the chapter's order check, so only the array is wrong
  readonly #messages: Message[] = [];

  project(event: SessionEvent): void {
    this.#checked.project(event);
    const message = deriveEventMessage(event);
    if (message !== null) this.#messages.push(freezeJson(message) as unknown as Message);
  }

  messages(): Message[] {
    return this.#messages; // DECOY: the cache's own array, not a copy
  }
}
