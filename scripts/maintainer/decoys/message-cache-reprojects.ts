// Decoy for step 05.6: the "cache" keeps the events and projects all of them again on every call —
// the 05.3 cost under a new name. The messages are right and safe to hand out; they are just new
// objects every time, so nothing was projected once.
import type { Message } from "../../../chapters/common/messages.ts";
import { deriveMessages } from "../../../chapters/05-session-log/projection.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import { freezeJson } from "../../../chapters/05-session-log/json.ts";
import { MessageCache as ChapterCache } from "../../../chapters/05-session-log/message-cache.ts";

export class MessageCache {
  readonly #checked = new ChapterCache(); // the chapter's order check, so only the projecting is wrong
  readonly #events: SessionEvent[] = [];

  project(event: SessionEvent): void {
    this.#checked.project(event);
    this.#events.push(event);
  }

  messages(): Message[] {
    // DECOY: every event projected again, on every call.
    return deriveMessages(this.#events).map((message) => freezeJson(message) as unknown as Message);
  }
}
