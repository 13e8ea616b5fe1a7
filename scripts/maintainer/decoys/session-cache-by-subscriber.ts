// Decoy for step 05.6, in session.ts: the messages are kept by a subscriber the session registers on
// itself. A subscriber hears an event only when its delivery comes round, so an append made inside a
// listener is missing from deriveMessages() until that listener returns; and fromLog, which tells no
// listener, leaves it empty.
import type { Message } from "../../../chapters/common/messages.ts";
import { deriveEventMessage } from "../../../chapters/05-session-log/projection.ts";
import { freezeJson } from "../../../chapters/05-session-log/json.ts";
import { Session as ChapterSession } from "../../../chapters/05-session-log/session.ts";
import type { SessionOptions } from "../../../chapters/05-session-log/session-types.ts";

export class Session extends ChapterSession {
  readonly #messages: Message[] = [];
  #replaying = false;

  constructor(options: SessionOptions = {}) {
    super(options);
    // DECOY: fed by a subscriber, not by the commit path.
    this.subscribe((event) => {
      if (this.#replaying) return; // fromLog commits without telling any listener
      const message = deriveEventMessage(event);
      if (message !== null) this.#messages.push(freezeJson(message) as unknown as Message);
    });
  }

  override deriveMessages(): Message[] {
    return [...this.#messages];
  }

  static override fromLog(log: unknown, options: SessionOptions = {}): Session {
    const checked = ChapterSession.fromLog(log, options).events; // every rule is checked
    // Rebuild by appending with the stored timestamps, with listeners kept out as fromLog keeps them.
    let next = 0;
    const clock = options.clock ?? Date.now;
    const session: Session = new Session({
      ...options,
      clock: (): number => (session.#replaying ? checked[next]!.ts : clock()),
    });
    session.#replaying = true;
    for (; next < checked.length; next++) session.append(checked[next]!.type, checked[next]!.data);
    session.#replaying = false;
    return session;
  }
}
