// Step 05.8 (challenge, past the book) — stream chunks: kept in the log, never sent to the model.
// The first of the three problems the book opens with: "一次真实运行会产生大量过程记录：流式分片、生命周期边界、压缩动作。
// 它们要留存，但发给模型只会浪费 token、制造噪音。" A streamed reply arrives as chunks (StreamChunk in
// chapters/05-session-log/events.ts): reasoning text, answer text, tool-call fragments, usage, finish, error.
//
// assembleReply(chunks)        the message a FINISHED stream carries, exactly what the non-streamed call
//                              returns: content and reasoning_content are their chunks joined (null when
//                              none arrived, "" when only an empty one did); tool calls are put together
//                              by `index` (only the first fragment says id and name), in index order. A
//                              call that never said its id or name: throw StreamAssemblyError naming it.
// assembleInterrupted(chunks)  what an INTERRUPTED stream leaves: the text and the reasoning seen so far,
//                              each kept only if it holds more than whitespace; tool-call fragments are
//                              dropped. null when nothing is kept. content is "" when only reasoning is.
// streamReply(call)            one streamed model call, logged:
//   derive the messages from the log, then client.stream({ ...request, messages }, { signal }) and, as
//   each chunk arrives, append assistant/chunk { turn, step, attempt, chunk } (attempt counts from 1);
//   when the stream ends, append assistant/message { content, reasoning_content, tool_calls, chunk_ids }
//   (the ids of this attempt's chunk events) and return the reply. Never send chunks to the model.
//   If the stream fails (a dropped connection, an error chunk, the signal aborted):
//     - attempts left and the signal not aborted: call again, attempt + 1, with new chunks of its own;
//     - else append what the user saw, assistant/message { …, chunk_ids, interrupted: true } (skip it
//       when assembleInterrupted says null), and rethrow the error. The loop closes the step and turn.
// Run: npx vitest exercises/05-session-log/05.8-streamed-step.test.ts
// Given: the StreamChunk type, the StreamedCall options and StreamAssemblyError, and toolCallOf (a
// tool call with exactly its three fields, as the log's schema wants).
import type { StreamChunk } from "../../chapters/05-session-log/events.ts";
import { StreamAssemblyError, type StreamedCall } from "../../chapters/05-session-log/loop-types.ts";
import { toolCallOf, type AssistantMessage } from "../../chapters/common/messages.ts";
import { todo } from "./todo.ts";

export function assembleReply(chunks: readonly StreamChunk[]): AssistantMessage {
  return todo(
    "05.8",
    `assembleReply：把 ${chunks.length} 个分片拼成非流式调用会返回的消息`,
    `assembleReply: join ${chunks.length} chunks into the message a non-streamed call returns`,
  );
}

export function assembleInterrupted(chunks: readonly StreamChunk[]): AssistantMessage | null {
  return todo(
    "05.8",
    `assembleInterrupted：从 ${chunks.length} 个分片里留下用户已经看到的内容，或者返回 null`,
    `assembleInterrupted: keep what the user saw of ${chunks.length} chunks, or null`,
  );
}

export async function streamReply(call: StreamedCall): Promise<AssistantMessage> {
  return todo(
    "05.8",
    `streamReply：第 ${call.step} 步的每个分片一到就记进日志，最后记下引用它们的消息`,
    `streamReply: log each chunk of step ${call.step} as it arrives, then the message citing them`,
  );
}
