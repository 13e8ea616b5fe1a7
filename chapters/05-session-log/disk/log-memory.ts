// What a loaded log costs in memory, and how much of it this process gives one log (05.7's reader).
// A loaded log lives in memory, every event of it (the demo, the timeline and repair need the whole
// session), and what an event costs there is not what it costs on disk: a packed chunk takes about 40
// bytes in its row (log-rows.ts) and about 200 as an event, while a long message costs about what its
// line does. So the reader counts, line by line, the larger of the two, and refuses the log at the line
// where the count passes the limit: a sentence, before the process runs out of memory (which ends it with
// V8's native stack, and a file of a few MB can do it).
import { getHeapStatistics } from "node:v8";
import { LogMemoryError } from "./log-file-types.ts";

/** About what one event costs in memory, however short its line (measured: 208 bytes a packed chunk event). */
export const EVENT_BYTES = 200;

/** A JSON array is one JSON text, parsed whole: its bytes, the text as a string and its events at once. */
export const ARRAY_COST_PER_BYTE = 3;

/** What a line of `bytes` bytes holding `events` events costs once loaded: the larger of the two. */
export function lineCost(bytes: number, events: number): number {
  return Math.max(bytes, events * EVENT_BYTES);
}

/**
 * The most one loaded log may cost: a quarter of the heap this process has left. The demo holds a log
 * twice (the loaded session and ④'s replay of it), and each needs room while it is built. Node's heap
 * is about 4 GiB on a 64-bit machine with 16 GB or more, less with less; `--max-old-space-size` sets it.
 */
export function memoryForALog(): number {
  const { heap_size_limit, used_heap_size } = getHeapStatistics();
  return Math.floor((heap_size_limit - used_heap_size) / 4);
}

/**
 * The refusal. `estimate`: what the whole log would take (for JSONL, what the lines read so far cost,
 * scaled to the file's size); `events`: how many the lines read by `line` held (a JSON array: undefined,
 * refused by its size before it is parsed). It names a heap that would take the log: four times the
 * estimate and what this process already uses, in steps of 512 MiB.
 */
export function tooMuchMemory(source: string, line: number | undefined, events: number | undefined, estimate: number, limit: number) {
  const heap = Math.ceil((4 * estimate + getHeapStatistics().used_heap_size) / 2 ** 29) * 512;
  const counted =
    events === undefined
      ? `a JSON array is parsed whole, its text and its events in memory at once: about ${ARRAY_COST_PER_BYTE} times its size, ${mib(estimate)} MiB`
      : `by this line it holds ${events} events; at that rate the whole log would take about ${mib(estimate)} MiB in memory (an event takes about ${EVENT_BYTES} bytes, never less than its line)`;
  const detail =
    `the log would take more memory than a loaded log may have here: ${counted}, over the limit of ${mib(limit)} MiB ` +
    `(a quarter of the heap this process has left). The file is not damaged: read it with a larger heap, e.g. NODE_OPTIONS=--max-old-space-size=${heap}`;
  return new LogMemoryError(source, line, { events, estimate, limit, heap }, detail);
}

/** Bytes in MiB, to a tenth. */
export const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
