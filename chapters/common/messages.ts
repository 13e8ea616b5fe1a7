// The message shapes the model sees, as built in chapter 02, and the pieces a streamed reply arrives
// in. Field names stay snake_case because they travel to DeepSeek unchanged (`reasoning_content`,
// `tool_calls`, `tool_call_id`).

/** One tool call the model asked for. `arguments` is the raw JSON text the model wrote. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/**
 * A tool call with exactly its three fields. The object it is read from may carry more (the SDK's
 * `type` and `index`, or extra keys in a stored log), and neither the log's strict schema nor the
 * model should see them.
 */
export function toolCallOf(call: ToolCall): ToolCall {
  return { id: call.id, name: call.name, arguments: call.arguments };
}

export interface UserMessage {
  readonly role: "user";
  readonly content: string;
}

export interface AssistantMessage {
  readonly role: "assistant";
  /** DeepSeek sends `""` (not null) beside a tool call; null when there is no text at all. */
  readonly content: string | null;
  /** The thinking-mode trace; must be sent back on tool-call turns (see chapters/common/deepseek.ts). */
  readonly reasoning_content?: string | null;
  readonly tool_calls: readonly ToolCall[];
}

export interface ToolMessage {
  readonly role: "tool";
  readonly content: string;
  readonly tool_call_id: string;
}

export type Message = UserMessage | AssistantMessage | ToolMessage;

/**
 * One piece of a streamed reply, as it arrived: DeepSeekClient.stream yields them, and chapter 05 logs
 * each as an `assistant/chunk` event. A tool call arrives in fragments that share its `index`: the
 * first names it (`id`, `name`), later ones add `arguments` text.
 */
export type StreamChunk =
  | { kind: "reasoning"; text: string }
  | { kind: "text"; text: string }
  | { kind: "tool_call"; index: number; id?: string; name?: string; arguments: string }
  | { kind: "usage"; usage: { [key: string]: unknown } }
  | { kind: "finish"; reason: string }
  | { kind: "error"; message: string };
