// The model client from chapter 01, in the form chapter 05 needs: our `Message[]` in, one
// `AssistantMessage` out. The system prompt and tool specs travel beside the messages, not inside
// them — chapter 05 logs them in `request/header`, never as a message.
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { describeFailure, type FailedCall } from "./deepseek-errors.ts";
import { parseReply, scrubReply } from "./deepseek-reply.ts";
import { readStream } from "./deepseek-stream.ts";
import type { AssistantMessage, Message, StreamChunk, ToolCall } from "./messages.ts";
import { MissingApiKeyError, readSettings, type DeepSeekSettings, type Env } from "./settings.ts";
import type { ToolSpec } from "./tools.ts";

export { DeepSeekError, type DeepSeekErrorKind } from "./deepseek-errors.ts";

export interface ChatRequest {
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  readonly messages: readonly Message[];
}

/** What one call may be given besides the request: a signal that stops it (Ctrl-C). */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** What the agent loop needs from a model. DeepSeekClient is the real one; tests may pass fakes. */
export interface ChatClient {
  readonly model: string;
  chat(request: ChatRequest, options?: CallOptions): Promise<AssistantMessage>;
}

/**
 * A model that can also stream its reply: the chunks as they arrive. The iteration ends after the
 * finish chunk; an early end (dropped connection, error chunk, abort) makes it throw, and the chunks
 * already yielded stay with the caller.
 */
export interface StreamingChatClient extends ChatClient {
  stream(request: ChatRequest, options?: CallOptions): AsyncIterable<StreamChunk>;
}

export interface DeepSeekClientOptions extends Partial<DeepSeekSettings> {
  /** Where settings not given here are read from (see settings.ts); process.env unless given. */
  readonly env?: Env;
  /** How often the SDK retries 408/409/429/5xx and connection errors (the SDK's default is 2). */
  readonly maxRetries?: number;
  readonly fetch?: typeof globalThis.fetch;
}

// DeepSeek's thinking-mode trace is not in the SDK's types; on the wire it sits beside `content`.
type WireMessage = ChatCompletionMessageParam & { reasoning_content?: string | null };

export class DeepSeekClient implements StreamingChatClient {
  readonly model: string;
  readonly baseURL: string;
  /**
   * How long one HTTP answer may take. The SDK retries a timeout like a lost connection, so the
   * longest wait is (1 + maxRetries) × timeoutMs.
   */
  readonly timeoutMs: number;
  readonly #apiKey: string;
  readonly #openai: OpenAI;

  constructor(options: DeepSeekClientOptions = {}) {
    const settings = readSettings(options.env ?? process.env, options);
    if (settings.apiKey === undefined) throw new MissingApiKeyError();
    this.#apiKey = settings.apiKey;
    this.baseURL = settings.baseURL;
    this.model = settings.model;
    this.timeoutMs = settings.timeoutMs;
    this.#openai = new OpenAI({
      apiKey: this.#apiKey,
      baseURL: this.baseURL,
      timeout: this.timeoutMs,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      // The SDK would print a stream event it cannot parse to stderr as the server sent it, key and
      // escape sequences and all. Every failure reaches the learner as our DeepSeekError instead.
      logLevel: "off",
      // The SDK keeps the fetch it is given. Looking up globalThis.fetch on every call means a mock
      // server (MSW) started after this client was built still sees the request.
      fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    });
  }

  async chat(request: ChatRequest, options: CallOptions = {}): Promise<AssistantMessage> {
    try {
      const completion: unknown = await this.#openai.chat.completions.create(this.#body(request), { signal: options.signal });
      // What the server said may echo the request, key and all (a proxy, a test server): never pass it on.
      return scrubReply(parseReply(completion), this.#apiKey);
    } catch (error) {
      options.signal?.throwIfAborted();
      throw describeFailure(error, this.#call());
    }
  }

  /**
   * The same request as `chat`, streamed: the body is chat's plus `stream` and `stream_options` (usage
   * comes in a last chunk). Iterated by hand, not with the SDK's `.stream()` helper (see deepseek-stream.ts).
   */
  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamChunk> {
    let wire: AsyncIterable<unknown>;
    try {
      wire = await this.#openai.chat.completions.create(
        { ...this.#body(request), stream: true, stream_options: { include_usage: true } },
        { signal: options.signal },
      );
    } catch (error) {
      options.signal?.throwIfAborted();
      throw describeFailure(error, this.#call());
    }
    yield* readStream(wire, this.#call(), options.signal);
  }

  #body(request: ChatRequest) {
    const messages: WireMessage[] = [{ role: "system", content: request.system }, ...request.messages.map(toWire)];
    const tools = request.tools.map(toWireTool);
    return { model: this.model, messages, ...(tools.length > 0 ? { tools } : {}) };
  }

  /** What a failure report needs to know about this client's calls. */
  #call(): FailedCall {
    return { apiKey: this.#apiKey, baseURL: this.baseURL, timeoutMs: this.timeoutMs, tries: this.#openai.maxRetries + 1 };
  }
}

/** A message as the API takes it (the request body lists these after the system prompt). */
export function toWire(message: Message): WireMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "tool":
      return { role: "tool", content: message.content, tool_call_id: message.tool_call_id };
    case "assistant": {
      const hasCalls = message.tool_calls.length > 0;
      // Thinking mode: a tool-call turn's reasoning must go back in every later request, or the API
      // answers 400. "" stands in when the reply had none; on other turns it is sent if we have it.
      const reasoning = message.reasoning_content ?? (hasCalls ? "" : undefined);
      return {
        role: "assistant",
        content: message.content,
        ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
        ...(hasCalls ? { tool_calls: message.tool_calls.map(toWireCall) } : {}),
      };
    }
  }
}

function toWireCall(call: ToolCall) {
  return { id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } };
}

function toWireTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
