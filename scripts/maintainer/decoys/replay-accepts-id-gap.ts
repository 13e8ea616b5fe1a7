// Decoy for step 05.4: replay only checks that ids go up, not that each id equals its index. A log
// with a gap (0, 1, 3), or one numbered from 1, is accepted (and quietly renumbered), so an event
// lost from the middle of a saved log goes unnoticed.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { SessionOptions } from "../../../chapters/05-session-log/session-types.ts";

export class Session extends ChapterSession {
  static override fromLog(events: unknown, options: SessionOptions = {}): ChapterSession {
    if (!Array.isArray(events)) return super.fromLog(events, options);
    // DECOY: "each id is larger than the previous one" instead of "id === index".
    let previous = -1;
    const renumbered = events.map((stored: unknown, index) => {
      if (typeof stored !== "object" || stored === null) return stored;
      const { id } = stored as { id?: unknown };
      if (typeof id !== "number" || id <= previous) return stored; // let the chapter report it
      previous = id;
      return { ...stored, id: index };
    });
    return super.fromLog(renumbered, options);
  }
}
