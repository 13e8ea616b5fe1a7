// Decoy for step 05.7: the writer checks the file once, when it is attached, and then writes blindly.
// Two sessions attached to the same (new) file both pass that check, and their events interleave.
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import * as answer from "../../../chapters/05-session-log/disk/log-file.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function attachLogFile(session: SessionLog, file: string): () => void {
  answer.attachLogFile(session, file)(); // checks the file and writes the events so far
  const fd = openSync(file, "a");
  const unsubscribe = session.subscribe((event) => {
    // DECOY: no look at the file's size: whatever another writer added, this one appends after it.
    writeSync(fd, `${JSON.stringify(event)}\n`);
    fsyncSync(fd);
  });
  let open = true;
  return () => {
    if (open) unsubscribe(), closeSync(fd);
    open = false;
  };
}
