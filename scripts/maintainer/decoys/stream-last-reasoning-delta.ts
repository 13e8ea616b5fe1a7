// Decoy for step 05.8: each reasoning delta replaces the one before (as the SDK's .stream() helper does), so only the last is kept.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ lastReasoningOnly: true });
