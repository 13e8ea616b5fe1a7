// How the demo prints the log: ② one line per event, ③ one entry per message, as the book shows them.
// A streamed reply logs hundreds of chunk events; ② folds each run of them into one line that says
// how many there were and what they carried.
import type { AssistantMessage, Message } from "../../common/messages.ts";
import { clip } from "../../common/text.ts";
import { isEventOfType, type SessionEvent, type StreamChunk } from "../events.ts";
import { deriveEventMessage } from "../projection.ts";

// ── ② one line per event: #id  type  data ────────────────────────────────────────────────────

export function formatEvent(event: SessionEvent): string {
  return `${`#${event.id}`.padEnd(4)} ${event.type.padEnd(18)} ${compactJson(event.data)}`;
}

/** ②: one line per event, but one line per run of `assistant/chunk` events. */
export function formatLog(events: readonly SessionEvent[]): string[] {
  const lines: string[] = [];
  let run: SessionEvent<"assistant/chunk">[] = [];
  const endRun = () => {
    if (run.length > 0) lines.push(formatChunkRun(run));
    run = [];
  };
  for (const event of events) {
    if (isEventOfType(event, "assistant/chunk")) run.push(event);
    else {
      endRun();
      lines.push(formatEvent(event));
    }
  }
  endRun();
  return lines;
}

/** `#4–#57 assistant/chunk ×54 (reasoning 812 chars, text 40 chars, usage, finish stop)` */
export function formatChunkRun(run: readonly SessionEvent<"assistant/chunk">[]): string {
  const ids = run.length === 1 ? `#${run[0]?.id}` : `#${run[0]?.id}–#${run.at(-1)?.id}`;
  return `${ids} assistant/chunk ×${run.length} (${carried(run.map((event) => event.data.chunk)).join(", ")})`;
}

/** What a run of chunks carried, each kind once, in the order it first arrived; text counted in characters. */
function carried(chunks: readonly StreamChunk[]): string[] {
  const parts = new Map<string, { label: string; chars?: number }>();
  const add = (key: string, label: string, text?: string) => {
    const part = parts.get(key) ?? { label };
    if (text !== undefined) part.chars = (part.chars ?? 0) + Array.from(text).length;
    parts.set(key, part);
  };
  for (const chunk of chunks) {
    // An empty delta (`content: ""` beside a finish) carries nothing worth a mention.
    if (chunk.kind === "reasoning" || chunk.kind === "text") {
      if (chunk.text !== "") add(chunk.kind, chunk.kind, chunk.text);
    }
    // A call's first fragment names it; the later ones share its index.
    // What the model named is its text too: on one line, so that it cannot pass for a line of the log.
    else if (chunk.kind === "tool_call") add(`call ${chunk.index}`, `tool_call ${oneLine(chunk.name ?? "?", 40)}`, chunk.arguments);
    else if (chunk.kind === "finish") add("finish", `finish ${oneLine(chunk.reason, 40)}`);
    else if (chunk.kind === "error") add("error", `error ${JSON.stringify(oneLine(chunk.message, 40))}`);
    else add("usage", "usage");
  }
  return [...parts.values()].map(({ label, chars }) => (chars === undefined ? label : `${label} ${chars} chars`));
}

/** Compact JSON with long strings shortened, and the whole cut at `width`, so each event fits a line. */
export function compactJson(value: unknown, width = 120): string {
  const text = JSON.stringify(value, (key, v: unknown) => {
    if (key === "chunk_ids" && Array.isArray(v)) return idRanges(v as number[]);
    return typeof v === "string" ? oneLine(v, 32) : v;
  });
  return oneLine(text, width);
}

/** A message's chunk_ids, shown short: [4,5,6,7,9] as "#4–#7,#9". */
function idRanges(ids: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === (ids[j] ?? 0) + 1) j++;
    ranges.push(i === j ? `#${ids[i]}` : `#${ids[i]}–#${ids[j]}`);
    i = j + 1;
  }
  return ranges.join(",");
}

function oneLine(text: string, max: number): string {
  return clip(text.replace(/\n/g, "⏎"), max);
}

// ── ③ one entry per message, as the book prints them ──────────────────────────────────────────

/**
 * ③: one entry per message. A reply the stream cut short says so, and what it kept: the mark is on its
 * event (`interrupted`), not on the message the model is sent, so each reply is read beside its event.
 * One entry at a time, each printed before the next is made: the entries of a large log, each as long
 * as its message, are never all held at once.
 */
export function* formatMessages(messages: readonly Message[], events: readonly SessionEvent[]): Generator<string> {
  // The projection makes one message of each assistant/message that says anything, in the log's order:
  // each assistant message takes the next of those events.
  const replies = events.filter((event) => isEventOfType(event, "assistant/message") && deriveEventMessage(event) !== null);
  for (const message of messages) yield formatMessage(message, message.role === "assistant" && replies.shift()?.data.interrupted === true);
}

/** The first line is the message's; a multi-line text goes on below it, indented further. */
export function formatMessage(message: Message, interrupted = false): string {
  const text = (tag: string, body: string) => `[${tag}] ${body}`.trimEnd().replace(/\n(?=.)/g, "\n    ");
  switch (message.role) {
    case "user":
      return text("user", message.content);
    case "tool":
      return text("tool → 结果", message.content);
    case "assistant": {
      if (interrupted) return text("assistant（中断 / interrupted）", keptOf(message));
      // All of one reply's calls on one line: ③ shows as many entries as ④ counts messages.
      const calls = message.tool_calls.map((call) => `${call.name}(${call.arguments})`).join(", ");
      if (calls === "") return text("assistant", message.content ?? "");
      return text("assistant → 请求工具", message.content ? `${calls} — ${message.content}` : calls);
    }
  }
}

/** What an interrupted reply kept: the answer the user saw, or, when it had none yet, its reasoning. */
function keptOf({ content, reasoning_content }: AssistantMessage): string {
  if (content) return content;
  const reasoning = reasoning_content ?? "";
  const chars = Array.from(reasoning).length;
  return `只留下了思考内容（${chars} 个字符）/ only its reasoning was kept (${chars} chars): ${oneLine(reasoning, 80)}`;
}
