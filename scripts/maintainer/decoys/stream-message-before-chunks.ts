// Decoy for step 05.8: the chunks are collected in memory and logged after the message, so nothing is in the log while the reply streams.
import { wrongStream } from "./wrong-stream.ts";

export const { assembleReply, assembleInterrupted, streamReply } = wrongStream({ messageBeforeChunks: true });
