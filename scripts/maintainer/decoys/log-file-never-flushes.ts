// Decoy for step 05.7: a careful writer that writes each line with writeSync and never calls fsyncSync.
// The line is in the file by the time append returns, so a killed process loses nothing, and every
// test that reads the file back passes; but until the system gets round to flushing it, the line is
// only in memory, and a power loss takes events that append had acknowledged.
import { carefulWriter } from "./careful-writer.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export const attachLogFile = carefulWriter({ flushes: false, takesBack: true }); // DECOY: flushes: false
