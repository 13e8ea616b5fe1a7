// Decoy for step 05.8: a retried call's message cites every chunk of the step, the failed attempt's too.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ citeAllAttempts: true });
