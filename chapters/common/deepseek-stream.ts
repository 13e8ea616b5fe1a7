// A streamed DeepSeek reply, read by hand: each SSE chunk the SDK parses becomes the StreamChunks it
// carries, handed on the moment it arrives (unless it may end in part of the API key). Not the SDK's `.stream()` helper: it keeps only the last
// `reasoning_content` delta. The chunks are assembled (and logged) by chapter 05's stream-assembler.ts.
import { APIError } from "openai";
import { z } from "zod";
import type { StreamChunk } from "./messages.ts";
import { DeepSeekError, describeFailure, type FailedCall } from "./deepseek-errors.ts";
import { publicURL } from "./settings.ts";
import { clip, KeyScrubber, keyMayContinue, mapStrings, scrubKey, scrubKeyAcross } from "./text.ts";
import { messageOf } from "./tools.ts";

const textOrNull = z.string().nullish();

const toolCallDelta = z.object({
  index: z.number().int().nonnegative(),
  id: textOrNull,
  function: z.object({ name: textOrNull, arguments: textOrNull }).nullish(),
});

// Lenient like deepseek-reply.ts: keys we do not read may be anything. `choices` may be empty (the
// usage chunk), and `usage` may ride on the finish chunk instead, so neither is assumed.
const wireChunkSchema = z.object({
  choices: z.array(
    z.object({
      delta: z.object({ content: textOrNull, reasoning_content: textOrNull, tool_calls: z.array(toolCallDelta).nullish() }).nullish(),
      finish_reason: textOrNull,
    }),
  ),
  usage: z.record(z.string(), z.unknown()).nullish(),
});

/** The StreamChunks one SSE chunk carries, in the order a reader meets them; bad_reply if it is malformed. */
export function chunksOf(wireChunk: unknown): StreamChunk[] {
  const parsed = wireChunkSchema.safeParse(wireChunk);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? z.core.toDotPath(issue.path) : "the chunk";
    // Stryker disable next-line OptionalChaining,StringLiteral: zod reports at least one issue whenever parsing fails
    throw new DeepSeekError(`DeepSeek's stream is malformed: ${where} ${clip(issue?.message ?? "is invalid", 80)}`, "bad_reply");
  }
  const chunks: StreamChunk[] = [];
  const choice = parsed.data.choices[0];
  const delta = choice?.delta;
  // "" is kept: an empty delta still says the field is there, as `content: ""` beside a tool call does.
  if (typeof delta?.reasoning_content === "string") chunks.push({ kind: "reasoning", text: delta.reasoning_content });
  if (typeof delta?.content === "string") chunks.push({ kind: "text", text: delta.content });
  for (const call of delta?.tool_calls ?? []) {
    chunks.push({
      kind: "tool_call",
      index: call.index,
      ...(call.id ? { id: call.id } : {}),
      ...(call.function?.name ? { name: call.function.name } : {}),
      arguments: call.function?.arguments ?? "",
    });
  }
  if (parsed.data.usage) chunks.push({ kind: "usage", usage: parsed.data.usage });
  if (choice?.finish_reason) chunks.push({ kind: "finish", reason: choice.finish_reason });
  return chunks;
}

/**
 * Reads the SDK's chunk stream into StreamChunks. Ends only after a finish chunk; otherwise it fails,
 * the chunks already yielded staying with the caller: an error chunk from the server is yielded as
 * `{ kind: "error" }` first; a dropped connection, or a stream that simply stops, is a "network"
 * DeepSeekError. An abort rethrows the signal's reason (the SDK itself ends an aborted stream quietly).
 */
export async function* readStream(wire: AsyncIterable<unknown>, call: FailedCall, signal?: AbortSignal): AsyncGenerator<StreamChunk> {
  const keyless = new KeylessStream(call.apiKey);
  const wireChunks = wire[Symbol.asyncIterator]();
  let finished = false;
  let done = false;
  try {
    while (!done) {
      const next = await unlessAborted(wireChunks.next(), signal);
      done = next.done === true;
      for (const chunk of done ? keyless.end() : keyless.push(chunksOf(next.value))) {
        if (chunk.kind === "finish") finished = true;
        yield chunk;
      }
    }
  } catch (error) {
    // The one APIError the SDK throws mid-stream is for a `data: {"error": …}` event (an HTTP failure
    // comes before the stream starts): the server's message is the stream's last string. What was held
    // back is text the server did send: it goes in the log before the failure.
    const rest = keyless.end(error instanceof APIError ? [{ kind: "error", message: error.message }] : []);
    yield* rest;
    signal?.throwIfAborted();
    const last = rest.at(-1);
    if (last?.kind === "error") throw new DeepSeekError(`DeepSeek sent an error mid-stream: ${last.message}`, "server");
    throw describeStreamFailure(error, call);
  } finally {
    // Stopped early (abort, error, or the caller stopped reading): the SDK then cancels the request.
    // Not awaited: a read still waiting on a stalled body would hold it up.
    if (!done) wireChunks.return?.().catch(() => {});
  }
  signal?.throwIfAborted();
  if (!finished) {
    throw new DeepSeekError(`the stream from DeepSeek at ${publicURL(call.baseURL)} ended before the reply was finished`, "network");
  }
}

/**
 * Keeps the key out of every string a stream hands on, however the server cuts it. The stream's strings,
 * whatever their field (a text, a tool call's id or name, usage's names and values, a finish reason, an
 * error), are read in the order they arrived as one text (scrubKeyAcross); a chunk waits while the
 * strings so far end in what may yet become the key. Each text that arrives in pieces (the reasoning,
 * the answer, each tool call's arguments) also goes through a KeyScrubber of its own, for a key cut
 * across its pieces with other chunks between them (the assembled message joins them); what that holds
 * back comes out with the text's next piece, or before the finish or error chunk, or at the end.
 */
class KeylessStream {
  #held: StreamChunk[] = [];
  readonly #scrubbers = new Map<string, KeyScrubber>();
  constructor(private readonly key: string) {}

  /** The chunks that can be handed on now, in order (maybe none); what may still be part of the key waits. */
  push(chunks: readonly StreamChunk[]): StreamChunk[] {
    this.#held.push(...chunks);
    return keyMayContinue(this.#held.flatMap(stringsOf).join(""), this.key) ? [] : this.#release();
  }

  /** Everything held, after the `last` chunks: the stream ended or broke off. */
  end(last: readonly StreamChunk[] = []): StreamChunk[] {
    this.#held.push(...last);
    return [...this.#release(), ...this.#textEnds()];
  }

  #release(): StreamChunk[] {
    const scrubbed = scrubKeyAcross(this.#held.flatMap(stringsOf), this.key);
    // Stryker disable next-line StringLiteral: stringsOf and withStrings walk the same strings in the same order, so one is always left
    const chunks = this.#held.map((chunk) => withStrings(chunk, () => scrubbed.shift() ?? ""));
    this.#held = [];
    return chunks.flatMap((chunk) => {
      switch (chunk.kind) {
        case "reasoning":
        case "text":
          return [{ ...chunk, text: this.#push(chunk.kind, chunk.text) }];
        case "tool_call":
          return [{ ...chunk, arguments: this.#push(`tool_call ${chunk.index}`, chunk.arguments) }];
        case "finish":
        case "error":
          return [...this.#textEnds(), chunk];
        default:
          return [chunk];
      }
    });
  }

  /** What the texts' scrubbers still hold, as chunks of their own. */
  *#textEnds(): Generator<StreamChunk> {
    for (const [stream, scrubber] of this.#scrubbers) {
      const text = scrubber.end();
      if (text === "") continue;
      const [kind, index] = stream.split(" ");
      if (kind === "tool_call") yield { kind: "tool_call", index: Number(index), arguments: text };
      else yield { kind: kind === "reasoning" ? "reasoning" : "text", text };
    }
  }

  #push(stream: string, text: string): string {
    const scrubber = this.#scrubbers.get(stream) ?? new KeyScrubber(this.key);
    this.#scrubbers.set(stream, scrubber);
    return scrubber.push(text);
  }
}

/** The strings the server sent in a chunk, in the order they came (usage: each name, then its value). */
function stringsOf(chunk: StreamChunk): string[] {
  const strings: string[] = [];
  withStrings(chunk, (text) => {
    strings.push(text);
    return text;
  });
  return strings;
}

/** The chunk with each string the server sent in it changed, one after another in the order they came. */
function withStrings(chunk: StreamChunk, change: (text: string) => string): StreamChunk {
  switch (chunk.kind) {
    case "reasoning":
    case "text":
      return { ...chunk, text: change(chunk.text) };
    case "tool_call": {
      const id = chunk.id === undefined ? {} : { id: change(chunk.id) };
      const name = chunk.name === undefined ? {} : { name: change(chunk.name) };
      return { ...chunk, ...id, ...name, arguments: change(chunk.arguments) };
    }
    case "usage":
      return { ...chunk, usage: mapStrings(chunk.usage, change) };
    case "finish":
      return { ...chunk, reason: change(chunk.reason) };
    case "error":
      return { ...chunk, message: change(chunk.message) };
  }
}

/**
 * `promise`, or the signal's reason as soon as it is aborted. The SDK's read of a stalled body does not
 * always notice an abort, and Ctrl-C must stop the stream at once.
 */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop);
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

function describeStreamFailure(error: unknown, call: FailedCall): DeepSeekError {
  if (error instanceof DeepSeekError || error instanceof SyntaxError) return describeFailure(error, call);
  const text = `the stream from DeepSeek at ${publicURL(call.baseURL)} broke off: ${messageOf(error)}`;
  return new DeepSeekError(scrubKey(text, call.apiKey), "network");
}
