// Decoy for step 05.8: each text delta is logged as an assistant/message, so the projection sends the fragments to the model.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ projectChunks: true });
