// Decoy for step 05.2: appends made inside a listener are queued, but each queued event goes to
// whoever is subscribed when its turn comes, not to those subscribed when it was appended. A
// listener that subscribes during a delivery then hears an event appended before it subscribed.
import type { EventData } from "../../../chapters/05-session-log/events.ts";
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import { reportListenerError, type Listener, type SessionOptions } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export class Session extends ChapterSession {
  readonly #listeners = new Set<{ readonly listener: Listener }>();
  readonly #undelivered: SessionEvent[] = [];
  #delivering = false;
  readonly #onListenerError: NonNullable<SessionOptions["onListenerError"]>;

  constructor(options: SessionOptions = {}) {
    super(options);
    this.#onListenerError = options.onListenerError ?? reportListenerError;
  }

  override append<T extends string>(type: T, data: EventData<T>): SessionEvent<T> {
    const event = super.append(type, data);
    this.#undelivered.push(event);
    if (this.#delivering) return event;
    this.#delivering = true;
    try {
      for (let next = this.#undelivered.shift(); next; next = this.#undelivered.shift()) this.#deliver(next);
    } finally {
      this.#delivering = false;
    }
    return event;
  }

  #deliver(event: SessionEvent): void {
    // DECOY: the audience is read now, at delivery, instead of being kept from the moment of append.
    for (const entry of [...this.#listeners]) {
      if (!this.#listeners.has(entry)) continue;
      try {
        entry.listener(event);
      } catch (error) {
        try {
          this.#onListenerError(error, event);
        } catch (handlerError) {
          reportListenerError(handlerError, event);
        }
      }
    }
  }

  override subscribe(listener: Listener): () => void {
    const entry = { listener };
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }
}
