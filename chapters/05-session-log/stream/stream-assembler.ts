// Streaming, past the book's 5.5: a streamed reply arrives as chunks (events.ts `StreamChunk`), and the
// log keeps every one of them. The model is never sent chunks, only the message assembled from them.
// Two ways to assemble:
//   assembleReply        the stream finished: exactly the message a non-streamed call returns;
//   assembleInterrupted  the stream stopped early: only what the user already saw, or null.
import type { AssistantMessage, ToolCall } from "../../common/messages.ts";
import type { StreamChunk } from "../events.ts";
import { StreamAssemblyError } from "../loop-types.ts";

export { StreamAssemblyError } from "../loop-types.ts";

/**
 * The message a finished stream carries. Text and reasoning are the concatenation of their chunks (null
 * when none arrived: `""` only when an empty delta did, as the non-streamed reply would say). Tool calls
 * are put together by `index`, never by `id`: only a call's first fragment carries its id and name.
 */
export function assembleReply(chunks: readonly StreamChunk[]): AssistantMessage {
  return {
    role: "assistant",
    content: joinText(chunks, "text"),
    reasoning_content: joinText(chunks, "reasoning"),
    tool_calls: assembleToolCalls(chunks),
  };
}

/**
 * What an interrupted stream leaves: the text and reasoning the user already saw, each kept only when it
 * holds more than whitespace. Tool-call fragments are dropped (a half-written call cannot be run or
 * answered). Null when nothing is left to keep. `content` is `""` when only reasoning is kept: an
 * assistant message without tool calls must have text for the next request to be valid.
 */
export function assembleInterrupted(chunks: readonly StreamChunk[]): AssistantMessage | null {
  const text = keptText(joinText(chunks, "text"));
  const reasoning = keptText(joinText(chunks, "reasoning"));
  if (text === null && reasoning === null) return null;
  return { role: "assistant", content: text ?? "", reasoning_content: reasoning, tool_calls: [] };
}

function joinText(chunks: readonly StreamChunk[], kind: "text" | "reasoning"): string | null {
  let joined: string | null = null;
  for (const chunk of chunks) {
    if (chunk.kind === kind) joined = (joined ?? "") + chunk.text;
  }
  return joined;
}

function keptText(text: string | null): string | null {
  return text !== null && /\S/.test(text) ? text : null;
}

interface PartialCall {
  id?: string;
  name?: string;
  arguments: string;
}

function assembleToolCalls(chunks: readonly StreamChunk[]): ToolCall[] {
  const byIndex = new Map<number, PartialCall>();
  for (const chunk of chunks) {
    if (chunk.kind !== "tool_call") continue;
    const call = byIndex.get(chunk.index) ?? { arguments: "" };
    // The first fragment names the call; a later one repeating its id or name changes nothing.
    call.id ??= chunk.id;
    call.name ??= chunk.name;
    call.arguments += chunk.arguments;
    byIndex.set(chunk.index, call);
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([index, call]) => completeCall(index, call));
}

function completeCall(index: number, call: PartialCall): ToolCall {
  if (call.id === undefined || call.name === undefined) {
    const missing = call.id === undefined ? "id" : "name";
    throw new StreamAssemblyError(`the streamed tool call at index ${index} never said its ${missing}`);
  }
  return { id: call.id, name: call.name, arguments: call.arguments };
}
