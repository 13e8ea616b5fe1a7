// Decoy for step 05.4: replay checks the shape of each entry (id, type, ts, JSON data) but not a
// known type's data against its schema, so a hand-edited or corrupted `user/message` whose content
// is a number comes back as if it were fine — and breaks the projection later.
import { eventSchemas, type EventSchemas } from "../../chapters/05-session-log/events.ts";
import { Session as ChapterSession, type SessionOptions } from "../../chapters/05-session-log/session.ts";

export { ReplayError, type Listener, type SessionEvent, type SessionOptions } from "../../chapters/05-session-log/session.ts";

/** Every built-in type mapped to "no schema": the chapter then accepts any JSON object for it. */
const noSchemas: EventSchemas = Object.fromEntries(Object.keys(eventSchemas).map((type) => [type, undefined]));

export class Session extends ChapterSession {
  static override fromLog(events: readonly unknown[], options: SessionOptions = {}): ChapterSession {
    // DECOY: known types are not re-checked on replay.
    return super.fromLog(events, { ...options, schemas: { ...noSchemas, ...options.schemas } });
  }
}
