// The model client from chapter 01, in the form chapter 05 needs: our `Message[]` in, one
// `AssistantMessage` out. The system prompt and tool specs travel beside the messages, not inside
// them — chapter 05 logs them in `request/header`, never as a message.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { AssistantMessage, Message, ToolCall } from "./messages.ts";
import { messageOf, type ToolSpec } from "./tools.ts";

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
/** Thinking mode can think for a minute or more: generous, but not the SDK's 10 minutes × 3 tries. */
export const THINKING_TIMEOUT_MS = 120_000;

export interface DeepSeekClientOptions {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly model?: string;
  /** How often the SDK retries 408/409/429/5xx and connection errors (the SDK's default is 2). */
  readonly maxRetries?: number;
  /**
   * Milliseconds to wait for one HTTP answer (the SDK's default is 10 minutes). The SDK retries a
   * timeout like a lost connection, so the longest wait is (1 + maxRetries) × timeout.
   */
  readonly timeout?: number;
  readonly fetch?: typeof globalThis.fetch;
}

export class MissingApiKeyError extends Error {
  override readonly name = "MissingApiKeyError";
  constructor() {
    super(
      "DEEPSEEK_API_KEY is not set (or is blank). Export your DeepSeek API key (https://platform.deepseek.com/api_keys) " +
        "to call the live model, or run offline on recorded traffic: npm run demo -- --offline",
    );
  }
}

/**
 * A setting the client cannot work with (the key, DEEPSEEK_BASE_URL, the timeout). Thrown when the
 * client is built, before anything is sent; the message names the setting and never shows a secret.
 */
export class DeepSeekConfigError extends Error {
  override readonly name = "DeepSeekConfigError";
}

/** Why a call failed, in the words a learner needs to fix it (the demo explains each one). */
export type DeepSeekErrorKind =
  | "authentication" // 401: wrong or revoked key
  | "insufficient_balance" // 402: top up the account
  | "rate_limit" // 429: too many requests in flight
  | "server" // 5xx: DeepSeek is failing or overloaded
  | "bad_request" // 400/422: we sent something the API refuses
  | "network" // no HTTP answer at all
  | "timeout" // connected (or trying to), but no answer within the timeout
  | "empty_reply" // 200, but no message in it
  | "bad_reply" // 200, but not in DeepSeek's documented shape (a field missing or of the wrong type)
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
    // An option given wins over the environment; either way the value is trimmed, since a key or URL
    // read from a file or pasted into a shell often brings a "\r" or a space along.
    this.#apiKey = checkApiKey(setting(options.apiKey ?? process.env.DEEPSEEK_API_KEY));
    this.baseURL = checkBaseURL(setting(options.baseURL ?? process.env.DEEPSEEK_BASE_URL) ?? DEFAULT_BASE_URL);
    this.model = setting(options.model ?? process.env.DEEPSEEK_MODEL) ?? DEFAULT_MODEL;
    if (options.timeout !== undefined) checkTimeout(options.timeout);
    this.#openai = new OpenAI({
      apiKey: this.#apiKey,
      baseURL: this.baseURL,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
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
    try {
      const completion = await this.#openai.chat.completions.create({
        model: this.model,
        messages,
        ...(tools.length > 0 ? { tools } : {}),
      });
      return fromWire(completion);
    } catch (error) {
      throw this.#describe(error);
    }
  }

  /** Turns whatever the SDK threw into a DeepSeekError whose message holds no part of the key. */
  #describe(error: unknown): DeepSeekError {
    const scrub = (text: string) => scrubKey(text, this.#apiKey);
    // Our own errors about the reply quote what the server sent, which could hold the key too.
    if (error instanceof DeepSeekError) return new DeepSeekError(scrub(error.message), error.kind, error.status);
    const where = publicURL(this.baseURL);
    // A timeout is a kind of connection error to the SDK, so it is asked about first.
    if (error instanceof APIConnectionTimeoutError) {
      const tries = this.#openai.maxRetries + 1;
      const text = `no answer from DeepSeek at ${where} within ${this.#openai.timeout} ms (${tries} ${tries === 1 ? "try" : "tries"})`;
      return new DeepSeekError(scrub(text), "timeout");
    }
    if (error instanceof APIConnectionError) {
      return new DeepSeekError(scrub(`could not reach DeepSeek at ${where}: ${error.message}`), "network");
    }
    if (error instanceof APIError && error.status !== undefined) {
      const type = error.type ? ` (${error.type})` : "";
      const text = `DeepSeek API error ${error.status}${type}: ${errorBody(error, scrub)}`;
      return new DeepSeekError(scrub(text), errorKindFor(error.status), error.status);
    }
    return new DeepSeekError(scrub(`DeepSeek call failed: ${messageOf(error)}`), "other");
  }
}

/**
 * A key as an API echoes it back masked: DeepSeek's 401 says `****abcd` (the last four characters),
 * others `sk-ab****wxyz`. Even those few characters are part of the key, so they are scrubbed too.
 */
const MASKED_KEY = /[\w-]*\*{3,}[\w-]*/g;

/**
 * Takes the key out of a text that may hold it: the whole key, an echo masked with `*`, and (for a
 * key long enough that its start says something about it) the first 8 characters and what follows.
 * The key here is the trimmed one the server received, so an echo of it is found.
 */
function scrubKey(text: string, key: string): string {
  const clean = text.split(key).join("[redacted]").replace(MASKED_KEY, "****");
  if (key.length < 16) return clean;
  return clean.replace(new RegExp(`${escapeRegExp(key.slice(0, 8))}[\\w-]*`, "g"), "[redacted]");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The SDK's note for an error response with an empty body. */
const NO_BODY = "status code (no body)";

/**
 * What an error response said. The SDK's message is "<status> <what the body said>": a JSON body's
 * `error.message`, or else the raw body text — which, from a proxy, can be a whole HTML page. That is
 * flattened and cut (after scrubbing, so a cut can't leave half a key behind) to keep one short line.
 */
function errorBody(error: APIError, scrub: (text: string) => string): string {
  const said = error.message.replace(/^\d{3} /, "");
  // The SDK keeps a JSON body's `error` object; without one, `said` is the raw body.
  if (error.error !== undefined || said === NO_BODY) return said;
  return `non-JSON body: ${clip(scrub(said).replace(/\s+/g, " ").trim(), 160)}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

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

/** A setting as text: trimmed, and blank counts as not set. */
function setting(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/**
 * fetch trims the Authorization header, so the server sees (and may echo) the trimmed key; that is
 * the key we keep, send and scrub. A space or line break still inside it is a copy-paste accident
 * no API key has, and sending it would fail in ways that are hard to read.
 */
function checkApiKey(key: string | undefined): string {
  if (key === undefined) throw new MissingApiKeyError();
  const at = key.search(/[^\x21-\x7e]/);
  if (at >= 0) {
    throw new DeepSeekConfigError(
      `DEEPSEEK_API_KEY has a space, line break or other character no API key contains (at position ${at + 1}); ` +
        "copy the key again from https://platform.deepseek.com/api_keys",
    );
  }
  return key;
}

/** The base URL must be one the SDK can append "/chat/completions" to and fetch can send to. */
function checkBaseURL(url: string): string {
  const problem = baseURLProblem(url);
  if (problem !== undefined) throw new DeepSeekConfigError(problem);
  return url;
}

function baseURLProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not echoed: a string that is no URL may be a secret pasted into the wrong variable.
    return "DEEPSEEK_BASE_URL is not a valid URL; it should look like https://api.deepseek.com";
  }
  const shown = publicURL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `DEEPSEEK_BASE_URL (${shown}) must start with http:// or https://`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return `DEEPSEEK_BASE_URL (${shown}) has user:password@ in it; fetch refuses to send a request to a URL with credentials, so take them out of the URL`;
  }
  if (/[?#]/.test(url)) {
    return `DEEPSEEK_BASE_URL (${shown}) has a query string or #fragment; the SDK appends /chat/completions to the base URL as text, so the path would end up inside the query. Remove everything from the ? or #`;
  }
  return undefined;
}

function checkTimeout(ms: number): void {
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new DeepSeekConfigError(`timeout must be a whole number of milliseconds above 0, not ${ms}`);
  }
}

function errorKindFor(status: number): DeepSeekErrorKind {
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

/**
 * The SDK parses the JSON but checks none of it, so a proxy or a changed API can hand us any shape.
 * Each field the loop relies on is checked, and a bad one is named by its path. A tool call is never
 * dropped: the model would then wait for a result that no one sends.
 */
function fromWire(completion: unknown): AssistantMessage {
  // A 200 that is not a completion at all (a proxy's login page, say) is a bad reply, not an empty one.
  if (!isRecord(completion)) throw badReply("the response", "a JSON object", completion);
  const choices = completion.choices;
  if (!Array.isArray(choices)) throw badReply("choices", "an array", choices);
  if (choices.length === 0) {
    throw new DeepSeekError("DeepSeek replied without a message (the response has no choices)", "empty_reply");
  }
  const choice: unknown = choices[0];
  if (!isRecord(choice)) throw badReply("choices[0]", "an object", choice);
  const message = choice.message;
  if (!isRecord(message)) throw badReply("choices[0].message", "an object", message);
  const content = message.content ?? null;
  if (content !== null && typeof content !== "string") throw badReply("choices[0].message.content", "a string or null", content);
  const tool_calls = readToolCalls(message.tool_calls, "choices[0].message.tool_calls");
  const reasoning_content = readReasoning(message.reasoning_content);
  // The same rule as the projection's: with no text, no reasoning ("" is none) and no call, there
  // is nothing to log or send back.
  if (content === null && !reasoning_content && tool_calls.length === 0) {
    throw new DeepSeekError("DeepSeek replied with an empty message (no content, reasoning or tool calls)", "empty_reply");
  }
  return { role: "assistant", content, reasoning_content, tool_calls };
}

function readToolCalls(calls: unknown, path: string): ToolCall[] {
  if (calls === undefined || calls === null) return [];
  if (!Array.isArray(calls)) throw badReply(path, "an array", calls);
  return calls.map((call: unknown, i) => readToolCall(call, `${path}[${i}]`));
}

function readToolCall(call: unknown, path: string): ToolCall {
  if (!isRecord(call)) throw badReply(path, "an object", call);
  if (typeof call.id !== "string") throw badReply(`${path}.id`, "a string", call.id);
  if (call.type !== "function") throw badReply(`${path}.type`, '"function"', call.type);
  const fn = call.function;
  if (!isRecord(fn)) throw badReply(`${path}.function`, "an object with name and arguments", fn);
  if (typeof fn.name !== "string") throw badReply(`${path}.function.name`, "a string", fn.name);
  if (typeof fn.arguments !== "string") throw badReply(`${path}.function.arguments`, "a string (JSON text)", fn.arguments);
  return { id: call.id, name: fn.name, arguments: fn.arguments };
}

function badReply(path: string, expected: string, found: unknown): DeepSeekError {
  return new DeepSeekError(`DeepSeek's reply is malformed: ${path} should be ${expected}, but is ${shapeOf(found)}`, "bad_reply");
}

/** What was found instead, without printing a value that may be long. */
function shapeOf(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(clip(value, 40));
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** DeepSeek's thinking trace: absent or null means none; anything else but text is a bad reply. */
function readReasoning(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw badReply("choices[0].message.reasoning_content", "a string or null", value);
  return value;
}
