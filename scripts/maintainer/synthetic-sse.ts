// The model's side of a synthetic *streamed* reply, authored in DeepSeek's documented SSE format
// (../shared notes, deepseek.md): keep-alive comments while queued, a first delta with the role,
// reasoning deltas, answer deltas, tool-call fragments joined by `index` (only the first names the
// call), a finish chunk, usage on a `choices: []` chunk or on the finish chunk, then `data: [DONE]`.
// Each piece gets an arrival time, so the offline demo can replay it at a live model's pace.
// Used by make-synthetic-fixtures.ts; nothing here is recorded, and the fixtures' meta says so.
import { createHash } from "node:crypto";
import type { StreamPiece, StreamedResponse } from "../../fixtures/fixture.ts";

/** What one streamed reply says. */
export interface StreamedTurn {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly reasoning: string;
  readonly content?: string;
  readonly calls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly usage: Record<string, unknown>;
  /** Where usage arrives: its own chunk with `choices: []` (the default), or on the finish chunk. */
  readonly usageOn?: "own-chunk" | "finish-chunk";
  /** How the stream ends: finished, cut after this many reasoning deltas, or an error chunk there. */
  readonly ending?: { readonly how: "finished" } | { readonly how: "dropped" | "error"; readonly afterReasoningDeltas: number };
}

// The pace of a thinking model, roughly: queued for a while, then a token every few tens of ms.
const QUEUED_MS = 600;
const KEEP_ALIVE_EVERY_MS = 250;
const TOKEN_MS = 28;

/** The reply as a fixture's streamed response: one SSE event per piece, the last three arriving together. */
export function streamedResponse(turn: StreamedTurn): StreamedResponse {
  const jitter = random(turn.id);
  const pieces: StreamPiece[] = [];
  for (let at = 0; at < QUEUED_MS; at += KEEP_ALIVE_EVERY_MS) pieces.push({ at_ms: at, text: ": keep-alive\n\n" });
  let at = QUEUED_MS;
  const send = (text: string) => {
    at += Math.round(TOKEN_MS * (0.5 + jitter()));
    pieces.push({ at_ms: at, text });
  };
  const event = (choices: unknown[], usage?: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: turn.id, object: "chat.completion.chunk", created: turn.created, model: turn.model, system_fingerprint: "fp_synthetic", choices, ...(usage ? { usage } : {}) })}\n\n`;
  const delta = (fields: Record<string, unknown>, finish: string | null = null) => [
    { index: 0, delta: fields, logprobs: null, finish_reason: finish },
  ];

  send(event(delta({ role: "assistant", content: null, reasoning_content: "" })));
  const ending = turn.ending ?? { how: "finished" };
  const reasoning = tokens(turn.reasoning, jitter);
  const cut = ending.how === "finished" ? reasoning.length : ending.afterReasoningDeltas;
  for (const text of reasoning.slice(0, cut)) send(event(delta({ content: null, reasoning_content: text })));
  if (ending.how === "dropped") return { ...sse, stream: pieces, end: "dropped" };
  if (ending.how === "error") {
    const error = { message: "Internal Server Error", type: "internal_error", param: null, code: null };
    send(`data: ${JSON.stringify({ error })}\n\n`);
    return { ...sse, stream: pieces, end: "closed" };
  }
  for (const text of tokens(turn.content ?? "", jitter)) send(event(delta({ content: text, reasoning_content: null })));
  for (const [index, call] of (turn.calls ?? []).entries()) {
    // Only the first fragment names the call; the rest carry its index and a piece of the arguments.
    send(event(delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] })));
    for (const text of tokens(call.arguments, jitter)) send(event(delta({ tool_calls: [{ index, function: { arguments: text } }] })));
  }
  const finish = (turn.calls ?? []).length > 0 ? "tool_calls" : "stop";
  const onFinish = turn.usageOn === "finish-chunk";
  const last = [
    event(delta({ content: "", reasoning_content: null }, finish), onFinish ? turn.usage : undefined),
    onFinish ? "" : event([], turn.usage),
    "data: [DONE]\n\n",
  ];
  send(last.join(""));
  return { ...sse, stream: pieces, end: "closed" };
}

const sse = { status: 200, content_type: "text/event-stream; charset=utf-8", headers: {} };

/** Cuts text into token-sized deltas of 1–3 characters (never inside a character). */
function tokens(text: string, jitter: () => number): string[] {
  const characters = Array.from(text);
  const deltas: string[] = [];
  for (let i = 0; i < characters.length; ) {
    const size = 1 + Math.floor(jitter() * 3);
    deltas.push(characters.slice(i, i + size).join(""));
    i += size;
  }
  return deltas;
}

/** A repeatable stream of numbers in [0, 1) from a seed, so regenerating gives the same files. */
function random(seed: string): () => number {
  let counter = 0;
  return () => createHash("sha256").update(`${seed}/${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}
