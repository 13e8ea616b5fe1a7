// A long log cannot be drawn whole: 100,000 events are millions of page elements, and a browser takes
// most of a minute to lay them out. So the page draws a window of a few slices (dom-window.ts), and
// this file cuts the timeline into those slices as events arrive: runs of consecutive events of about
// SLICE_ROWS lines each, cut where a reader would cut (a new turn, else a new step, else between calls).
// A slice is a range of event ids, so every event is in exactly one slice and any event can be shown.
import type { EventView } from "./view-model.ts";

/** About how many lines of the timeline a slice holds. */
export const SLICE_ROWS = 60;

/** Where each slice starts (an event id), in order, and how many lines the last slice has so far. */
export interface Slices {
  readonly starts: number[];
  rows: number;
  /** The last event sliced, to see where its entry ends. */
  last: EventView | null;
}

export function noSlices(): Slices {
  return { starts: [], rows: 0, last: null };
}

/**
 * Puts `item`, the event just added to the view, into a slice (a new one after the last, if this is a
 * place to cut) and returns the slice's index. Costs the same for every event.
 */
export function sliceEvent(slices: Slices, item: EventView): number {
  if (cutsBefore(slices, item)) {
    slices.starts.push(item.event.id);
    slices.rows = 0;
  }
  slices.rows += rowsOf(item);
  slices.last = item;
  return slices.starts.length - 1;
}

/**
 * A slice grows to SLICE_ROWS lines before a new turn, and to twice that before a new step or anywhere
 * a cut leaves no run of chunks apart from its message. So a slice holds at most about 2 × SLICE_ROWS
 * lines, however long one turn or one step is.
 */
function cutsBefore(slices: Slices, item: EventView): boolean {
  const last = slices.last;
  if (last === null) return true;
  if (rowsOf(item) === 0) return false; // a chunk stays with the run it joins
  const newEntry = item.group !== last.group || item.entry !== last.entry;
  const apart = item.foldedRuns.length === 0; // a message stays with the runs of chunks it folds
  const factor = item.entry === 0 && newEntry ? 1 : newEntry || apart ? 2 : Number.POSITIVE_INFINITY;
  return slices.rows >= SLICE_ROWS * factor;
}

/** A chunk joining its run draws no line of its own: the run is one line, however many chunks it has. */
function rowsOf(item: EventView): number {
  return item.run !== null && item.run !== item.event.id ? 0 : 1;
}

/** The slice event `id` is in (a binary search of the starts). */
export function sliceOf(slices: Slices, id: number): number {
  let low = 0;
  let high = slices.starts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((slices.starts[middle] ?? 0) <= id) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The event ids of slices `from` (inclusive) to `to` (exclusive), of a log of `events` events. */
export function sliceIds(slices: Slices, from: number, to: number, events: number): { first: number; end: number } {
  return { first: slices.starts[from] ?? events, end: slices.starts[to] ?? events };
}
