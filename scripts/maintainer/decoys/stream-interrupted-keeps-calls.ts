// Decoy for step 05.8: the interrupted message keeps the half-written tool calls, which the model would then wait to see answered.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ interruptedKeepsCalls: true });
