// Decoy for step 05.2: the event's data is copied and frozen at the top level only (a spread and an
// Object.freeze). Nested objects and arrays are still the caller's: they can be changed through the
// event, and the caller changing its input afterwards rewrites the log.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { EventData } from "../../../chapters/05-session-log/events.ts";
import type { JsonObject } from "../../../chapters/05-session-log/json-value.ts";

export class Session extends ChapterSession {
  /** By id: the events as this decoy stores them. */
  readonly #shallow = new Map<number, SessionEvent>();
  #view: { readonly from: readonly SessionEvent[]; readonly size: number; readonly to: readonly SessionEvent[] } | undefined;

  override append<T extends string>(type: T, data: EventData<T>): SessionEvent<T> {
    const checked = super.append(type, data); // validation, id, ts and listeners as in the chapter
    // DECOY: a shallow copy, shallowly frozen; everything below the top level is the caller's.
    const event = Object.freeze({ ...checked, data: Object.freeze({ ...(data as JsonObject) }) }) as SessionEvent<T>;
    this.#shallow.set(event.id, event);
    return event;
  }

  override get events(): readonly SessionEvent[] {
    const from = super.events;
    if (this.#view?.from !== from || this.#view.size !== this.#shallow.size) {
      const to = Object.freeze(from.map((event) => this.#shallow.get(event.id) ?? event));
      this.#view = { from, size: this.#shallow.size, to };
    }
    return this.#view.to;
  }
}
