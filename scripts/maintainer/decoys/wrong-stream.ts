// The 05.8 decoys' streamed step: the chapter's assembler and streamReply rewritten without their
// helpers, so that each plausible mistake is one switch. Every switch off, it logs what the chapter
// logs; each stream-*.ts decoy turns on exactly one.
import type { StreamChunk } from "../../../chapters/05-session-log/events.ts";
import { StreamAssemblyError, type StreamedCall } from "../../../chapters/05-session-log/loop-types.ts";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";
import { toolCallOf, type AssistantMessage, type ToolCall } from "../../../chapters/common/messages.ts";

export interface StreamMistakes {
  /** Each reasoning delta replaces the last, as the SDK's `.stream()` helper does. */
  readonly lastReasoningOnly?: boolean;
  /** Fragments keyed by id; one without an id goes to the last id seen. */
  readonly toolCallsById?: boolean;
  /** Each text delta is logged as an assistant/message instead of an assistant/chunk. */
  readonly projectChunks?: boolean;
  /** Chunks collected in memory and logged after the message. */
  readonly messageBeforeChunks?: boolean;
  /** A failed stream is rethrown with no interrupted message. */
  readonly dropInterrupted?: boolean;
  /** The message cites every chunk of the step, earlier attempts' too. */
  readonly citeAllAttempts?: boolean;
  /** The interrupted message keeps the tool calls assembled so far. */
  readonly interruptedKeepsCalls?: boolean;
}

export function wrongStream(mistakes: StreamMistakes) {
  function join(chunks: readonly StreamChunk[], kind: "text" | "reasoning"): string | null {
    let joined: string | null = null;
    for (const chunk of chunks) {
      if (chunk.kind !== kind) continue;
      joined = kind === "reasoning" && mistakes.lastReasoningOnly ? chunk.text : (joined ?? "") + chunk.text;
    }
    return joined;
  }

  function toolCalls(chunks: readonly StreamChunk[]): ToolCall[] {
    const calls = new Map<string | number, { id?: string; name?: string; arguments: string; index: number }>();
    let lastId = "";
    for (const chunk of chunks) {
      if (chunk.kind !== "tool_call") continue;
      lastId = chunk.id ?? lastId;
      const key = mistakes.toolCallsById ? lastId : chunk.index;
      const call = calls.get(key) ?? { arguments: "", index: chunk.index };
      call.id ??= chunk.id;
      call.name ??= chunk.name;
      call.arguments += chunk.arguments;
      calls.set(key, call);
    }
    return [...calls.values()]
      .sort((a, b) => a.index - b.index)
      .map((call) => {
        if (call.id === undefined || call.name === undefined)
          throw new StreamAssemblyError(`the streamed tool call at index ${call.index} never said its id`);
        return { id: call.id, name: call.name, arguments: call.arguments };
      });
  }

  function assembleReply(chunks: readonly StreamChunk[]): AssistantMessage {
    return {
      role: "assistant",
      content: join(chunks, "text"),
      reasoning_content: join(chunks, "reasoning"),
      tool_calls: toolCalls(chunks),
    };
  }

  function assembleInterrupted(chunks: readonly StreamChunk[]): AssistantMessage | null {
    const kept = (text: string | null) => (text !== null && /\S/.test(text) ? text : null);
    const text = kept(join(chunks, "text"));
    const reasoning = kept(join(chunks, "reasoning"));
    let calls: ToolCall[] = [];
    if (mistakes.interruptedKeepsCalls) {
      try {
        calls = toolCalls(chunks);
      } catch {
        calls = [];
      }
    }
    if (text === null && reasoning === null && calls.length === 0) return null;
    return { role: "assistant", content: text ?? "", reasoning_content: reasoning, tool_calls: calls };
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

  async function streamReply({ session, client, turn, step, request, signal, attempts = 1 }: StreamedCall): Promise<AssistantMessage> {
    const messages = session.deriveMessages();
    const stepChunkIds: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const chunks: StreamChunk[] = [];
      const chunkIds: number[] = [];
      const log = (chunk: StreamChunk) => {
        if (mistakes.projectChunks) {
          if (chunk.kind === "text") session.append("assistant/message", { content: chunk.text, tool_calls: [] });
          return;
        }
        const id = session.append("assistant/chunk", { turn, step, attempt, chunk }).id;
        chunkIds.push(id);
        stepChunkIds.push(id);
      };
      const cite = () => (mistakes.citeAllAttempts ? [...stepChunkIds] : chunkIds);
      try {
        for await (const chunk of client.stream({ ...request, messages }, { signal })) {
          if (!mistakes.messageBeforeChunks) log(chunk);
          chunks.push(chunk);
          signal?.throwIfAborted();
        }
        const reply = assembleReply(chunks);
        if (mistakes.messageBeforeChunks) {
          const first = session.events.length + 1;
          logMessage(
            session,
            reply,
            chunks.map((_, i) => first + i),
          );
          chunks.forEach(log);
        } else logMessage(session, reply, cite());
        return reply;
      } catch (error) {
        if (attempt < attempts && !signal?.aborted) continue;
        if (mistakes.messageBeforeChunks) chunks.forEach(log);
        const seen = mistakes.dropInterrupted ? null : assembleInterrupted(chunks);
        if (seen !== null) logMessage(session, seen, cite(), true);
        throw error;
      }
    }
  }

  return { assembleReply, assembleInterrupted, streamReply };
}
