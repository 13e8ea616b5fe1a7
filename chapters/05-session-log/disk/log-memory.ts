// What a loaded log costs in memory, and how much of it this process gives one log (05.7's reader).
// A loaded log lives in memory, every event of it (the demo, the timeline and repair need the whole
// session), and what an event costs there is not what it costs on disk: a packed chunk takes about 40
// bytes in its row (log-rows.ts) and up to 240 as an event, while a long message costs about what its
// line does. So the reader counts, line by line, the larger of the two, and refuses the log at the line
// where the count passes the limit: a sentence, before the process runs out of memory (which ends it with
// V8's native stack, and a file of a few MB can do it). An event is a frozen object of its own, and so is
// its data (Session's promise), so a packed chunk can never cost in memory as little as in its row.
import { getHeapStatistics } from "node:v8";
import { LogMemoryError } from "./log-file-types.ts";

/**
 * About what one event costs in memory as the demo holds it, however short its line: a chunk event is its
 * frozen object (56 bytes), its timestamp (16), its frozen data (56), its chunk (40) and the chunk's text
 * (about 40), and a slot in the log, in the log's snapshot, and in ④'s new session and its snapshot (32).
 */
export const EVENT_BYTES = 240;

/** What a chunk event costs less when its chunk repeats one already read: the chunk and its text are shared (log-reader.ts's shareChunk). */
export const SHARED_CHUNK_BYTES = 80;

/** A JSON array is one JSON text, parsed whole: its bytes, the text as a string and its events at once. */
export const ARRAY_COST_PER_BYTE = 3;

/** What a line of `bytes` bytes holding `events` events, `shared` of them with a repeated chunk, costs once loaded: the larger. */
export function lineCost(bytes: number, events: number, shared: number): number {
  return Math.max(bytes, events * EVENT_BYTES - shared * SHARED_CHUNK_BYTES);
}

/** A loaded log may cost one HEAP_SHARE-th of the heap this process has left (see memoryForALog). */
const HEAP_SHARE = 7;

/**
 * The most one loaded log may cost: a seventh of the heap this process has left. Reading and replaying
 * it leaves garbage the collector frees only later, Node and tsx take about 100 MB of their own, and
 * the workbook's goal is that a loaded log's process stays under 1 GB (docs/benchmarks.md, `npm run
 * bench`): Node's heap is about 4 GiB on a 64-bit machine with 16 GB or more, and a seventh of that,
 * about 590 MiB of events, is what fits that goal. `--max-old-space-size` sets the heap.
 */
export function memoryForALog(): number {
  const { heap_size_limit, used_heap_size } = getHeapStatistics();
  return Math.floor((heap_size_limit - used_heap_size) / HEAP_SHARE);
}

/**
 * The refusal. `estimate`: what the whole log would take (for JSONL, what the lines read so far cost,
 * scaled to the file's size); `events`: how many the lines read by `line` held (a JSON array: undefined,
 * refused by its size before it is parsed). It names a heap that would take the log: HEAP_SHARE times
 * the estimate and what this process already uses, in steps of 512 MiB.
 */
export function tooMuchMemory(source: string, line: number | undefined, events: number | undefined, estimate: number, limit: number) {
  const heap = Math.ceil((HEAP_SHARE * estimate + getHeapStatistics().used_heap_size) / 2 ** 29) * 512;
  const counted =
    events === undefined
      ? `a JSON array is parsed whole, its text and its events in memory at once: about ${ARRAY_COST_PER_BYTE} times its size, ${mib(estimate)} MiB`
      : `by this line it holds ${events} events; at that rate the whole log would take about ${mib(estimate)} MiB in memory (an event takes about ${EVENT_BYTES} bytes, ${EVENT_BYTES - SHARED_CHUNK_BYTES} when its chunk repeats one already read, never less than its line)`;
  const detail =
    `the log would take more memory than a loaded log may have here: ${counted}, over the limit of ${mib(limit)} MiB ` +
    `(a seventh of the heap this process has left). The file is not damaged: read it with a larger heap, e.g. NODE_OPTIONS=--max-old-space-size=${heap}`;
  return new LogMemoryError(source, line, { events, estimate, limit, heap }, detail);
}

/** Bytes in MiB, to a tenth. */
export const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
