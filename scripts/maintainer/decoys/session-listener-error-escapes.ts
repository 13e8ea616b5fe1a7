// Decoy for step 05.2: listeners are called bare, as in the book's Python sketch. A listener that
// throws makes `append` throw (although the event is already committed) and the listeners after it
// never hear the event.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { Listener } from "../../../chapters/05-session-log/session-types.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { EventData } from "../../../chapters/05-session-log/events.ts";

export class Session extends ChapterSession {
  readonly #listeners: { readonly listener: Listener }[] = [];

  override append<T extends string>(type: T, data: EventData<T>): SessionEvent<T> {
    const event = super.append(type, data); // validated and committed by the chapter
    // DECOY: no try/catch, so one failing listener escapes append and stops the rest.
    for (const { listener } of [...this.#listeners]) listener(event);
    return event;
  }

  override subscribe(listener: Listener): () => void {
    const entry = { listener };
    this.#listeners.push(entry);
    return () => {
      const index = this.#listeners.indexOf(entry);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }
}
