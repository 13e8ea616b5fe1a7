// Decoy for step 05.8: a stream that fails is rethrown with no message: the text the user already saw is lost.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ dropInterrupted: true });
