// Decoy for step 05.7: the writer catches its own failure and only prints it. Nothing more reaches the
// file, but the session's owner never hears of it: the run goes on calling the model and reports the
// log as saved. Containment (one listener's failure does not break the others) turned into silence.
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function attachLogFile(session: SessionLog, file: string): () => void {
  const quiet: SessionLog = {
    append: (type, data) => session.append(type, data),
    get events() {
      return session.events;
    },
    deriveMessages: () => session.deriveMessages(),
    subscribe: (listener) =>
      session.subscribe((event) => {
        try {
          listener(event);
        } catch (error) {
          console.error(`[log file] ${(error as Error).message}`); // DECOY: printed, never thrown
        }
      }),
  };
  return answer.attachLogFile(quiet, file);
}
