// A streamed DeepSeek reply, read by hand: each SSE chunk the SDK parses becomes the StreamChunks it
// carries, handed on the moment it arrives. Not the SDK's `.stream()` helper: it keeps only the last
// `reasoning_content` delta. The chunks are assembled (and logged) by chapter 05's stream-assembler.ts.
import { APIError } from "openai";
import { z } from "zod";
import type { StreamChunk } from "./messages.ts";
import { DeepSeekError, describeFailure, type FailedCall } from "./deepseek-errors.ts";
import { publicURL } from "./settings.ts";
import { clip, KeyScrubber, scrubEveryString, scrubKey } from "./text.ts";
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
  const scrub = (text: string) => scrubKey(text, call.apiKey);
  const keyless = new KeylessText(call.apiKey);
  const wireChunks = wire[Symbol.asyncIterator]();
  let finished = false;
  let done = false;
  try {
    while (!done) {
      const next = await unlessAborted(wireChunks.next(), signal);
      done = next.done === true;
      for (const chunk of done ? [] : chunksOf(next.value)) {
        if (chunk.kind === "finish") {
          finished = true;
          yield* keyless.rest();
        }
        yield keyless.of(chunk);
      }
    }
  } catch (error) {
    // What was held back is text the server did send: it belongs in the log before the failure.
    yield* keyless.rest();
    signal?.throwIfAborted();
    // The SDK throws an APIError without a status for a `data: {"error": …}` event.
    if (error instanceof APIError && error.status === undefined) {
      const message = scrub(error.message);
      yield { kind: "error", message };
      throw new DeepSeekError(`DeepSeek sent an error mid-stream: ${message}`, "server");
    }
    throw describeStreamFailure(error, call);
  } finally {
    // Stopped early (abort, error, or the caller stopped reading): the SDK then cancels the request.
    // Not awaited: a read still waiting on a stalled body would hold it up.
    if (!done) wireChunks.return?.().catch(() => {});
  }
  yield* keyless.rest();
  signal?.throwIfAborted();
  if (!finished) {
    throw new DeepSeekError(`the stream from DeepSeek at ${publicURL(call.baseURL)} ended before the reply was finished`, "network");
  }
}

/**
 * Keeps the key out of every string a stream hands on. Every string of a chunk, whatever its field (an
 * id, a name, usage, a finish reason), is scrubbed whole; the texts that arrive in pieces — the
 * reasoning, the answer, each tool call's arguments — each go through a KeyScrubber of their own, which
 * holds back an end that may still become the key or a masked echo of it until a later chunk says.
 * `rest()` gives what is still held, as chunks of their own, when the stream ends or breaks off.
 */
class KeylessText {
  readonly #scrubbers = new Map<string, KeyScrubber>();
  constructor(private readonly key: string) {}

  of(chunk: StreamChunk): StreamChunk {
    switch (chunk.kind) {
      case "reasoning":
      case "text":
        return { ...scrubEveryString(chunk, this.key), text: this.#push(chunk.kind, chunk.text) };
      case "tool_call":
        return { ...scrubEveryString(chunk, this.key), arguments: this.#push(`tool_call ${chunk.index}`, chunk.arguments) };
      default:
        return scrubEveryString(chunk, this.key);
    }
  }

  *rest(): Generator<StreamChunk> {
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

/**
 * `promise`, or the signal's reason as soon as it is aborted. The SDK's read of a stalled body does not
 * always notice an abort, and Ctrl-C must stop the stream at once.
 */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

function describeStreamFailure(error: unknown, call: FailedCall): DeepSeekError {
  if (error instanceof DeepSeekError || error instanceof SyntaxError || error instanceof APIError) return describeFailure(error, call);
  const text = `the stream from DeepSeek at ${publicURL(call.baseURL)} broke off: ${messageOf(error)}`;
  return new DeepSeekError(scrubKey(text, call.apiKey), "network");
}
