/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Draws a run of stream chunks (chunk-runs.ts) as one entry: a count, and the reasoning, answer and
// tool-call text growing as each chunk arrives. When the message built from the run arrives, the run
// folds under that message's event, closed; opening it shows the text, and the chunk events one by one.
import type { ChunkRun } from "./chunk-runs.ts";
import { h, text } from "./dom-helpers.ts";
import { chunkEventsLabel, runLabel } from "./labels.ts";
import type { EventView, TimelineView } from "./view-model.ts";

/** The parts of a drawn run that each chunk changes, so a chunk is drawn without searching the page. */
interface RunParts {
  readonly count: Text;
  readonly reasoning: Text;
  readonly answer: Text;
  readonly tools: Text;
  readonly end: HTMLElement;
}
const drawn = new Map<number, RunParts>();

// Runs that gained chunks since they were last drawn.
const pending = new Set<number>();

/**
 * Notes chunk event `item` for its run (whose entry goes at the end of `list()` when it is new). The
 * text is drawn by drawRuns, once per batch of chunks: a stored log draws each run once, not per chunk.
 */
export function drawChunk(view: TimelineView, item: EventView, list: () => HTMLElement): void {
  const first = item.run ?? -1;
  // Not drawn, or drawn before the window moved and since taken off the page.
  if (!drawn.get(first)?.end.isConnected) newRunNode(view.runs.byFirst.get(first) as ChunkRun, list());
  pending.add(first);
}

/** Draws what the runs noted by drawChunk carry now: their count, text, and how they ended. */
export function drawRuns(view: TimelineView): void {
  for (const first of pending) {
    const run = view.runs.byFirst.get(first);
    const parts = drawn.get(first);
    if (run === undefined || parts === undefined) continue;
    parts.count.data = String(run.ids.length);
    parts.reasoning.data = run.reasoning;
    parts.answer.data = run.text;
    parts.tools.data = run.tools;
    if (run.finish !== null) parts.end.textContent = `finish_reason: ${run.finish}`;
    if (run.error !== null) parts.end.replaceChildren(h("strong", { class: "alert" }, `error: ${run.error}`));
  }
  pending.clear();
}

function newRunNode(run: ChunkRun, list: HTMLElement): RunParts {
  const parts: RunParts = {
    count: document.createTextNode("0"),
    reasoning: document.createTextNode(""),
    answer: document.createTextNode(""),
    tools: document.createTextNode(""),
    end: h("span", { class: "run-end" }),
  };
  const node = h(
    "details",
    { class: "chunk-run", id: `run-${run.first}`, "data-run": run.first, "data-attempt": run.attempt, open: "" },
    h(
      "summary",
      {},
      h("code", { class: "event-type" }, "assistant/chunk"),
      " × ",
      h("span", { class: "run-count" }, parts.count),
      " ",
      h("span", { class: "run-state" }, text(runLabel(run.attempt, false))),
      " ",
      parts.end,
    ),
    h("pre", { class: "growing reasoning" }, parts.reasoning),
    h("pre", { class: "growing answer" }, parts.answer),
    h("pre", { class: "growing tools" }, parts.tools),
    h("details", { class: "chunk-events", "data-run": run.first }, h("summary", {}, text(chunkEventsLabel))),
  );
  list.append(h("li", { class: "run-entry" }, node));
  drawn.set(run.first, parts);
  return parts;
}

/** Moves run `first` under `messageNode` (the event of the message that cites it), closed. */
export function foldRun(first: number, messageNode: HTMLElement): void {
  const node = document.getElementById(`run-${first}`) as HTMLDetailsElement | null;
  if (node === null) return;
  const entry = node.parentElement;
  messageNode.append(node);
  if (entry?.classList.contains("run-entry")) entry.remove();
  node.open = false;
  node.classList.add("folded");
  const attempt = Number(node.dataset.attempt);
  node.querySelector(".run-state")?.replaceChildren(text(runLabel(attempt, true)));
}

/** Draws each chunk event of the run `details` belongs to, the first time it is opened. */
export function showChunkEvents(view: TimelineView, details: HTMLDetailsElement, eventNode: (item: EventView) => HTMLElement): void {
  const run = view.runs.byFirst.get(Number(details.dataset.run));
  if (run === undefined) return;
  const list = h("ol", { class: "chunk-list" });
  for (const id of run.ids) list.append(eventNode(view.events[id] as EventView));
  details.append(list);
}
