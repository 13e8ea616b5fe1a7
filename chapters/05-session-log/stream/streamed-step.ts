// Step 05.8, past the book: one model call, streamed. The book's first reason for the log: a real run
// produces stream chunks, which must be kept, but sent to the model only waste tokens and add noise. So every chunk is logged the
// moment it arrives (`assistant/chunk`, which the projection skips), and only the message assembled
// from them (`assistant/message` citing their ids) is ever derived for the model. For one streamed
// calculator reply the step logs:
//   step/start, assistant/chunk × n, assistant/message { …, chunk_ids }, tool/call, tool/result, step/end
// A stream that ends early still leaves what the user saw: `assistant/message { interrupted: true }`.
import { toolCallOf, type AssistantMessage } from "../../common/messages.ts";
import type { StreamChunk } from "../events.ts";
import type { StreamedCall } from "../loop-types.ts";
import type { SessionLog } from "../session-types.ts";
import { assembleInterrupted, assembleReply } from "./stream-assembler.ts";

// The learner's 05.8 file holds both halves: the assembler (answered in stream-assembler.ts, which the
// demo and the crash repair use too) and the streamed call below.
export { assembleInterrupted, assembleReply } from "./stream-assembler.ts";

/**
 * Streams one reply into the log and returns it. If the stream ends early, the chunks received stay,
 * an interrupted message keeps the text already seen (none when there is nothing but whitespace and
 * tool-call fragments), and the stream's error is rethrown for the loop to close the step and turn.
 */
export async function streamReply({ session, client, turn, step, request, signal, attempts = 1 }: StreamedCall): Promise<AssistantMessage> {
  const messages = session.deriveMessages();
  for (let attempt = 1; ; attempt++) {
    // Each attempt keeps its own chunks: a retried call's message never cites an earlier attempt's.
    // Stryker disable next-line ArrayDeclaration: an entry that is not a chunk has no kind, so every assembler skips it.
    const chunks: StreamChunk[] = [];
    const chunkIds: number[] = [];
    try {
      for await (const chunk of client.stream({ ...request, messages }, { signal })) {
        chunkIds.push(session.append("assistant/chunk", { turn, step, attempt, chunk }).id);
        chunks.push(chunk);
        signal?.throwIfAborted();
      }
      const reply = assembleReply(chunks);
      logMessage(session, reply, chunkIds);
      return reply;
    } catch (error) {
      if (attempt < attempts && !signal?.aborted) continue;
      const seen = assembleInterrupted(chunks);
      if (seen !== null) logMessage(session, seen, chunkIds, true);
      throw error;
    }
  }
}

function logMessage(session: SessionLog, reply: AssistantMessage, chunkIds: number[], interrupted = false): void {
  session.append("assistant/message", {
    content: reply.content,
    reasoning_content: reply.reasoning_content ?? null,
    tool_calls: reply.tool_calls.map(toolCallOf),
    chunk_ids: chunkIds,
    ...(interrupted ? { interrupted: true as const } : {}),
  });
}
