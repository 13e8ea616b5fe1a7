// Decoy for step 05.2: an append made inside a listener is delivered at once, in the middle of the
// delivery of the event that caused it. Listeners later in the list then hear event N+1 before
// event N.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { Listener, SessionOptions } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { EventData } from "../../../chapters/05-session-log/events.ts";

export class Session extends ChapterSession {
  readonly #listeners = new Set<{ readonly listener: Listener }>();
  readonly #onListenerError: NonNullable<SessionOptions["onListenerError"]>;

  constructor(options: SessionOptions = {}) {
    super(options);
    this.#onListenerError = options.onListenerError ?? ((error) => console.error(error));
  }

  override append<T extends string>(type: T, data: EventData<T>): SessionEvent<T> {
    const event = super.append(type, data);
    // DECOY: no queue — a nested append runs this loop for its event before we finish ours.
    for (const entry of [...this.#listeners]) {
      try {
        entry.listener(event);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
    return event;
  }

  override subscribe(listener: Listener): () => void {
    const entry = { listener };
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }
}
