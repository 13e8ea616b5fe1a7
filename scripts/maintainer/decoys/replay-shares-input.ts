// Decoy for step 05.4: replay checks every entry but then keeps the caller's own data objects
// instead of frozen copies. Whoever parsed the log can still change the session's history, and the
// replayed data is not frozen.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { SessionOptions } from "../../../chapters/05-session-log/session-types.ts";
import type { JsonObject } from "../../../chapters/05-session-log/json-value.ts";

export class Session extends ChapterSession {
  /** The replayed events as this decoy keeps them, by position. */
  #replayed: readonly SessionEvent[] = [];
  #view: { readonly from: readonly SessionEvent[]; readonly to: readonly SessionEvent[] } | undefined;

  static override fromLog(events: unknown, options: SessionOptions = {}): Session {
    const checked = ChapterSession.fromLog(events, options).events; // every rule is checked
    // Rebuild by appending with the stored timestamps, so the next append gets the next id.
    let replaying = true;
    let next = 0;
    const clock = options.clock ?? Date.now;
    const session = new Session({ ...options, clock: () => (replaying ? checked[next]!.ts : clock()) });
    for (; next < checked.length; next++) session.append(checked[next]!.type, checked[next]!.data);
    replaying = false;
    // DECOY: the caller's own data objects, neither copied nor frozen.
    session.#replayed = checked.map((event, index) => Object.freeze({ ...event, data: (events as { data: JsonObject }[])[index]!.data }));
    return session;
  }

  override get events(): readonly SessionEvent[] {
    const from = super.events;
    if (this.#view?.from !== from) {
      this.#view = { from, to: Object.freeze(from.map((event, index) => this.#replayed[index] ?? event)) };
    }
    return this.#view.to;
  }
}
