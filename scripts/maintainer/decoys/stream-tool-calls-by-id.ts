// Decoy for step 05.8: tool-call fragments are joined by id (a fragment without one goes to the last id seen), so interleaved parallel calls get each other's arguments.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ toolCallsById: true });
