// Decoy for step 05.7: a careful writer that stops and throws WRITE_FAILED when the disk refuses a
// write, but leaves the part of the line it did write in the file. The next reader calls that a torn
// line, and repair tells of a crash that never happened, about a run that stopped on purpose.
import { carefulWriter } from "./careful-writer.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export const attachLogFile = carefulWriter({ flushes: true, takesBack: false }); // DECOY: takesBack: false
