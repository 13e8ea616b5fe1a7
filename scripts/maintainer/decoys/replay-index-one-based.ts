// Decoy for step 05.4: the error counts entries from 1 ("the 4th event") while ids count from 0, so
// the index it reports points at the entry after the broken one.
import { ReplayError, type SessionOptions } from "../../../chapters/05-session-log/session-types.ts";
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";

export class Session extends ChapterSession {
  static override fromLog(events: unknown, options: SessionOptions = {}): ChapterSession {
    try {
      return super.fromLog(events, options);
    } catch (error) {
      if (!(error instanceof ReplayError)) throw error;
      // DECOY: a human count instead of the index.
      throw new ReplayError(error.index + 1, error.code, error.detail);
    }
  }
}
