// Decoy for step 05.2: `events` hands out a fresh, unfrozen copy of the log on every read. Callers
// can push into it or replace entries, and every read costs a full copy — the book's cached
// snapshot (§5.3 point 2) is gone.
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";

export class Session extends ChapterSession {
  override get events(): readonly SessionEvent[] {
    // DECOY: a new mutable array each time instead of the cached frozen snapshot.
    return [...super.events];
  }
}
