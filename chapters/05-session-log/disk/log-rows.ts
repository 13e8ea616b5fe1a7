// Rows on disk: how the chapter's writer (log-writer.ts) turns events into lines, and how the reader
// turns a line back into events. Most lines are one event (jsonl.ts), but a streamed reply logs hundreds
// of `assistant/chunk` events that repeat the same keys, type, turn, step and attempt; written one per
// line, the repetition is most of the file. So the chunks the writer writes together (one group, see
// log-writer.ts) go into one packed row, which is still one JSON value on one line (`jq` reads it):
//
//   {"packed":"assistant/chunk","id":7,"ts":1764660000000,"dt":[0,0,1],"turn":1,"step":1,"attempt":1,
//    "chunks":[{"kind":"text","text":"先"},{"kind":"text","text":"算"},{"kind":"text","text":"乘法"}]}
//
// is events #7, #8, #9: ids count on from `id`, each ts is the previous one plus its `dt` (the first's
// dt is 0), and each chunk is kept exactly as it was logged. Only the exact shape packs (data with the
// keys turn, step, attempt, chunk, in that order); anything else is written as its own line, so an
// unusual event loses compression, never data. Unpacking gives the very same events: the same ids,
// timestamps and data, key order included, so replay and the writer's byte check are unchanged.
import type { EventData, SessionEvent } from "../events.ts";
import { lineOf } from "./jsonl.ts";

type ChunkEvent = SessionEvent<"assistant/chunk">;
type ChunkData = EventData<"assistant/chunk">;

/** A row of two or more chunk events of one attempt, as one JSON object. */
interface PackedRow {
  readonly packed: "assistant/chunk";
  readonly id: number;
  readonly ts: number;
  readonly dt: readonly number[];
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  readonly chunks: readonly ChunkData["chunk"][];
}

const PACKED_KEYS = ["packed", "id", "ts", "dt", "turn", "step", "attempt", "chunks"];
const CHUNK_KEYS = ["turn", "step", "attempt", "chunk"];

/** The lines for `events`, in order: each run of packable chunks of one attempt as one row, the rest one per line. */
export function rowsOf(events: readonly SessionEvent[]): Buffer {
  const lines: Buffer[] = [];
  let run: ChunkEvent[] = [];
  const endRun = () => {
    if (run.length === 1) lines.push(lineOf(run[0] as ChunkEvent));
    else if (run.length > 1) lines.push(Buffer.from(`${JSON.stringify(pack(run))}\n`));
    run = [];
  };
  for (const event of events) {
    const last = run.at(-1);
    if (!isPackable(event)) {
      endRun();
      lines.push(lineOf(event));
      continue;
    }
    if (last !== undefined && !sameAttempt(last, event)) endRun();
    run.push(event);
  }
  endRun();
  return Buffer.concat(lines);
}

function isPackable(event: SessionEvent): event is ChunkEvent {
  return event.type === "assistant/chunk" && sameKeys(Object.keys(event.data), CHUNK_KEYS);
}

function sameAttempt(a: ChunkEvent, b: ChunkEvent): boolean {
  return a.data.turn === b.data.turn && a.data.step === b.data.step && a.data.attempt === b.data.attempt;
}

function pack(run: readonly ChunkEvent[]): PackedRow {
  const first = run[0] as ChunkEvent;
  const { turn, step, attempt } = first.data;
  const dt = run.map((event, index) => event.ts - (run[index - 1] ?? first).ts);
  return { packed: "assistant/chunk", id: first.id, ts: first.ts, dt, turn, step, attempt, chunks: run.map((event) => event.data.chunk) };
}

/**
 * The entries one parsed line holds: a packed row's events, or the line's value itself (which replay
 * then checks as an event). A value with a `packed` key is never an event (an event has id, type, ts and
 * data only), so there is no guessing; a packed row of the wrong shape is the reason returned instead.
 */
export function entriesOfRow(value: unknown): { readonly entries: readonly unknown[] } | { readonly why: string } {
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, "packed")) return { entries: [value] };
  const row = value as Record<string, unknown>;
  const { id, ts, dt, turn, step, attempt, chunks } = row;
  if (row.packed !== "assistant/chunk" || !sameKeys(Object.keys(row), PACKED_KEYS)) {
    return { why: `a packed row is {${PACKED_KEYS.join(", ")}} with packed "assistant/chunk"` };
  }
  if (typeof id !== "number" || typeof ts !== "number" || !isNumbers(dt) || !Array.isArray(chunks) || dt.length !== chunks.length) {
    return { why: "a packed row needs a number id and ts, a number array dt, and a chunks array as long as dt" };
  }
  // Each event is made with its keys in the writer's order; replay checks ids, timestamps and shapes as usual.
  let time = ts;
  const entries = (chunks as readonly unknown[]).map((chunk, index) => {
    time += dt[index] as number;
    return { id: id + index, type: "assistant/chunk", ts: time, data: { turn, step, attempt, chunk } };
  });
  return { entries };
}

function isNumbers(value: unknown): value is readonly number[] {
  return Array.isArray(value) && value.every((item) => typeof item === "number");
}

function sameKeys(keys: readonly string[], expected: readonly string[]): boolean {
  return keys.length === expected.length && keys.every((key, index) => key === expected[index]);
}
