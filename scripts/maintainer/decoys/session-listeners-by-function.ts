// Decoy for step 05.2: listeners are kept in a Set of functions. Subscribing the same function twice
// makes one subscription, not two, and either unsubscribe removes both.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { Listener, SessionOptions } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export class Session extends ChapterSession {
  // DECOY: keyed by the function itself instead of by subscription.
  readonly #listeners = new Set<Listener>();

  constructor(options: SessionOptions = {}) {
    super(options);
    // One chapter subscription fans out to our set, so delivery order, error handling and the
    // queue for nested appends stay the chapter's.
    super.subscribe((event: SessionEvent) => {
      for (const listener of [...this.#listeners]) {
        try {
          listener(event);
        } catch (error) {
          (options.onListenerError ?? console.error)(error, event);
        }
      }
    });
  }

  override subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
