// The model client from chapter 01, in the form chapter 05 needs: our `Message[]` in, one
// `AssistantMessage` out. The system prompt and tool specs travel beside the messages, not inside
// them — chapter 05 logs them in `request/header`, never as a message.
import OpenAI, { APIConnectionError, APIError } from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { AssistantMessage, Message, ToolCall } from "./messages.ts";
import type { ToolSpec } from "./tools.ts";

export interface ChatRequest {
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  readonly messages: readonly Message[];
}

/** What the agent loop needs from a model. DeepSeekClient is the real one; tests may pass fakes. */
export interface ChatClient {
  readonly model: string;
  chat(request: ChatRequest): Promise<AssistantMessage>;
}

export const DEFAULT_BASE_URL = "https://api.deepseek.com";
export const DEFAULT_MODEL = "deepseek-flash";

export interface DeepSeekClientOptions {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly model?: string;
  /** How often the SDK retries 408/409/429/5xx and connection errors (the SDK's default is 2). */
  readonly maxRetries?: number;
  readonly fetch?: typeof globalThis.fetch;
}

export class MissingApiKeyError extends Error {
  override readonly name = "MissingApiKeyError";
  constructor() {
    super(
      "DEEPSEEK_API_KEY is not set. Export your DeepSeek API key (https://platform.deepseek.com/api_keys) " +
        "to call the live model, or run offline on recorded traffic: npm run demo -- --offline",
    );
  }
}

/** Why a call failed, in the words a learner needs to fix it (the demo explains each one). */
export type DeepSeekErrorKind =
  | "authentication" // 401: wrong or revoked key
  | "insufficient_balance" // 402: top up the account
  | "rate_limit" // 429: too many requests in flight
  | "server" // 5xx: DeepSeek is failing or overloaded
  | "bad_request" // 400/422: we sent something the API refuses
  | "network" // no HTTP answer at all
  | "empty_reply" // 200, but no message in it
  | "other";

/**
 * Every failure of `chat` is one of these. Its message is built by us and scrubbed of the key; the
 * SDK's error is deliberately not kept as `cause`, because its body and headers are not ours to vouch for.
 */
export class DeepSeekError extends Error {
  override readonly name = "DeepSeekError";
  constructor(
    message: string,
    readonly kind: DeepSeekErrorKind,
    readonly status?: number,
  ) {
    super(message);
  }
}

// DeepSeek's thinking-mode trace is not in the SDK's types; on the wire it sits beside `content`.
type WireMessage = ChatCompletionMessageParam & { reasoning_content?: string | null };

export class DeepSeekClient implements ChatClient {
  readonly model: string;
  readonly baseURL: string;
  readonly #apiKey: string;
  readonly #openai: OpenAI;

  constructor(options: DeepSeekClientOptions = {}) {
    const apiKey = options.apiKey ?? nonEmpty(process.env.DEEPSEEK_API_KEY);
    if (apiKey === undefined || apiKey === "") throw new MissingApiKeyError();
    this.#apiKey = apiKey;
    this.baseURL = options.baseURL ?? nonEmpty(process.env.DEEPSEEK_BASE_URL) ?? DEFAULT_BASE_URL;
    this.model = options.model ?? nonEmpty(process.env.DEEPSEEK_MODEL) ?? DEFAULT_MODEL;
    this.#openai = new OpenAI({
      apiKey,
      baseURL: this.baseURL,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      // The SDK keeps the fetch it is given. Looking up globalThis.fetch on every call means a mock
      // server (MSW) started after this client was built still sees the request.
      fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    });
  }

  async chat(request: ChatRequest): Promise<AssistantMessage> {
    const messages: WireMessage[] = [
      { role: "system", content: request.system },
      ...request.messages.map(toWire),
    ];
    const tools = request.tools.map(toWireTool);
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await this.#openai.chat.completions.create({
        model: this.model,
        messages,
        ...(tools.length > 0 ? { tools } : {}),
      });
    } catch (error) {
      throw this.#describe(error);
    }
    return fromWire(completion);
  }

  /** Turns whatever the SDK threw into a DeepSeekError whose message holds no part of the key. */
  #describe(error: unknown): DeepSeekError {
    const scrub = (text: string) => text.split(this.#apiKey).join("[redacted]").replace(MASKED_KEY, "****");
    if (error instanceof APIConnectionError) {
      return new DeepSeekError(scrub(`could not reach DeepSeek at ${publicURL(this.baseURL)}: ${error.message}`), "network");
    }
    if (error instanceof APIError && error.status !== undefined) {
      const type = error.type ? ` (${error.type})` : "";
      // error.message is "<status> <body's error.message>"; DeepSeek's 401 body echoes a masked key.
      const text = `DeepSeek API error ${error.status}${type}: ${error.message.replace(/^\d{3} /, "")}`;
      return new DeepSeekError(scrub(text), kindOf(error.status), error.status);
    }
    const text = error instanceof Error ? error.message : String(error);
    return new DeepSeekError(scrub(`DeepSeek call failed: ${text}`), "other");
  }
}

/**
 * A key as an API echoes it back masked: DeepSeek's 401 says `****abcd` (the last four characters),
 * others `sk-ab****wxyz`. Even those few characters are part of the key, so they are scrubbed too.
 */
const MASKED_KEY = /[\w-]*\*{3,}[\w-]*/g;

/**
 * A URL fit to print or save: without `user:password@` and without the query string, either of
 * which may carry a secret (a proxy's password, an `?api_key=`), and without a `#fragment`. The
 * rest is kept as written, up to what URL parsing normalises (a lower-case host, for one).
 */
export function publicURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a valid URL)";
  }
  const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  // new URL() gives a bare origin the path "/"; keep the form the user wrote.
  return url.endsWith("/") || parsed.pathname !== "/" ? shown : shown.slice(0, -1);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function kindOf(status: number): DeepSeekErrorKind {
  if (status === 401) return "authentication";
  if (status === 402) return "insufficient_balance";
  if (status === 429) return "rate_limit";
  if (status >= 500) return "server";
  if (status === 400 || status === 422) return "bad_request";
  return "other";
}

function toWire(message: Message): WireMessage {
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

function fromWire(completion: OpenAI.ChatCompletion): AssistantMessage {
  const message = completion.choices?.[0]?.message;
  if (message === undefined) {
    throw new DeepSeekError("DeepSeek replied without a message (the response has no choices)", "empty_reply");
  }
  const tool_calls: ToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type !== "function") continue; // DeepSeek only has function tools
    tool_calls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  const content = message.content ?? null;
  const reasoning_content = readReasoning(message);
  if (content === null && reasoning_content === null && tool_calls.length === 0) {
    throw new DeepSeekError("DeepSeek replied with an empty message (no content, reasoning or tool calls)", "empty_reply");
  }
  return { role: "assistant", content, reasoning_content, tool_calls };
}

/** The SDK's type does not know `reasoning_content`, so read it as the unknown it is. */
function readReasoning(message: object): string | null {
  const value: unknown = "reasoning_content" in message ? message.reasoning_content : undefined;
  return typeof value === "string" ? value : null;
}
