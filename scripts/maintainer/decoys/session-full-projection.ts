// Decoy for step 05.6, in session.ts: the cache is never wired in, and the session projects the whole
// log on every deriveMessages() call, as it did after step 05.5. The messages are right; each one is
// just projected again, and again, for every model call.
import type { Message } from "../../../chapters/common/messages.ts";
import { deriveMessages } from "../../../chapters/05-session-log/projection.ts";
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";

export class Session extends ChapterSession {
  override deriveMessages(): Message[] {
    return deriveMessages(this.events); // DECOY: the full projection, every call
  }
}
