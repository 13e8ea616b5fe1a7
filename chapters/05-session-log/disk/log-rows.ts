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
//
// A row holds 1 to CHUNK_GROUP chunks of consecutive ids; a row the writer cannot have written (more
// chunks, none, a chunk that is not a chunk) is refused by its line before its events are made, so a
// damaged or hand-made line cannot turn a few bytes into millions of events.
import { checkEventData, EventDataError } from "../event-schemas.ts";
import type { EventData, SessionEvent } from "../events.ts";
import { lineOf } from "./jsonl.ts";

/** The most chunk events in one row: the writer writes chunks in groups of this many (log-writer.ts). */
export const CHUNK_GROUP = 64;

type ChunkEvent = SessionEvent<"assistant/chunk">;
type ChunkData = EventData<"assistant/chunk">;

/** A row of two to CHUNK_GROUP chunk events of one attempt, with consecutive ids, as one JSON object. */
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

/**
 * The lines for `events`, in order: each run of packable chunks of one attempt as rows of at most
 * CHUNK_GROUP, the rest one per line. A row's ids count on from its first, so a gap in the ids ends the
 * row: the event after it is never given the id the row would count to.
 */
export function rowsOf(events: readonly SessionEvent[]): Buffer {
  const lines: Buffer[] = [];
  let run: ChunkEvent[] = [];
  const endRun = () => {
    if (run.length > 1) lines.push(Buffer.from(`${JSON.stringify(pack(run))}\n`));
    else if (run.length === 1) lines.push(lineOf(run[0] as ChunkEvent));
    run = [];
  };
  for (const event of events) {
    if (!isPackable(event)) {
      endRun();
      lines.push(lineOf(event));
      continue;
    }
    if (!joinsRow(run, event)) endRun();
    run.push(event);
  }
  endRun();
  return Buffer.concat(lines);
}

function isPackable(event: SessionEvent): event is ChunkEvent {
  return event.type === "assistant/chunk" && sameKeys(Object.keys(event.data), CHUNK_KEYS);
}

/** Whether `event` goes in the row of `run`: the same attempt, the very next id, and room left in the row. */
function joinsRow(run: readonly ChunkEvent[], event: ChunkEvent): boolean {
  const last = run.at(-1);
  // Stryker disable next-line BooleanLiteral: joining or ending an empty run is the same: ending one writes nothing.
  if (last === undefined) return true;
  const sameAttempt = last.data.turn === event.data.turn && last.data.step === event.data.step && last.data.attempt === event.data.attempt;
  return sameAttempt && event.id === last.id + 1 && run.length < CHUNK_GROUP;
}

function pack(run: readonly ChunkEvent[]): PackedRow {
  const first = run[0] as ChunkEvent;
  const { turn, step, attempt } = first.data;
  const dt = run.map((event, index) => event.ts - (run[index - 1] ?? first).ts);
  return { packed: "assistant/chunk", id: first.id, ts: first.ts, dt, turn, step, attempt, chunks: run.map((event) => event.data.chunk) };
}

/** What one parsed line holds: its entries, or why it is not a row the writer writes, or the chunk that is not a chunk. */
export type RowEntries =
  | { readonly entries: readonly unknown[] }
  | { readonly why: string }
  | { readonly chunk: number; readonly error: EventDataError };

/**
 * The entries one parsed line holds: a packed row's events, or the line's value itself (which replay
 * then checks as an event). A value with a `packed` key is never an event (an event has id, type, ts and
 * data only), so there is no guessing; a packed row of the wrong shape or size is the reason returned
 * instead, and each chunk is checked as it is unpacked: the first one that is not a chunk is returned
 * (its position in the row, from 0, and what is wrong with it), before any later one is unpacked.
 */
export function entriesOfRow(value: unknown): RowEntries {
  // null, a string or a number is an event to replay's eyes (and refused there), never a row.
  if (!(value instanceof Object) || !Object.hasOwn(value, "packed")) return { entries: [value] };
  const row = value as Record<string, unknown>;
  const { id, ts, dt, turn, step, attempt, chunks } = row;
  if (row.packed !== "assistant/chunk" || !sameKeys(Object.keys(row), PACKED_KEYS)) {
    return { why: `a packed row is {${PACKED_KEYS.join(", ")}} with packed "assistant/chunk"` };
  }
  // Counted before anything is made of them: the writer never groups more, nor writes an empty row.
  if (!Array.isArray(chunks) || chunks.length < 1 || chunks.length > CHUNK_GROUP) {
    const found = Array.isArray(chunks) ? `${chunks.length} chunks` : "no chunks array";
    return { why: `a packed row holds 1 to ${CHUNK_GROUP} chunks (the most the writer groups), this one has ${found}` };
  }
  if (typeof id !== "number" || typeof ts !== "number" || !isNumbers(dt) || dt.length !== chunks.length) {
    return { why: "a packed row needs a number id and ts, a number array dt, and a chunks array as long as dt" };
  }
  // Each event is made with its keys in the writer's order; replay checks ids, timestamps and JSON as usual.
  const entries: unknown[] = [];
  let time = ts;
  for (const [index, chunk] of (chunks as readonly unknown[]).entries()) {
    const data = { turn, step, attempt, chunk };
    try {
      checkEventData("assistant/chunk", data);
    } catch (error) {
      // Stryker disable next-line ConditionalExpression: checkEventData throws nothing else; anything else would be a bug, rethrown.
      if (error instanceof EventDataError) return { chunk: index, error };
      throw error;
    }
    time += dt[index] as number;
    entries.push({ id: id + index, type: "assistant/chunk", ts: time, data });
  }
  return { entries };
}

function isNumbers(value: unknown): value is readonly number[] {
  return Array.isArray(value) && value.every((item) => typeof item === "number");
}

function sameKeys(keys: readonly string[], expected: readonly string[]): boolean {
  return keys.length === expected.length && keys.every((key, index) => key === expected[index]);
}
