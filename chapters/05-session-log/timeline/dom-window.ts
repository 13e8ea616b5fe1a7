/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page draws a window of WINDOW_SLICES slices of the timeline (slices.ts), never the whole log:
// the view model holds every event, the page only the few hundred near the screen. Scrolling near an
// edge of the window moves it by a slice; a link to an event, the jump box, the earlier/later buttons
// and ↑/↓ in the messages move it to wherever the event is. The messages shown are those of the
// events drawn. A small log fits in one window, and its page is drawn whole, as before.
import { drawEvent, drawRuns, markProblems } from "./dom.ts";
import { byId, text } from "./dom-helpers.ts";
import { windowLabel } from "./labels.ts";
import { reselect } from "./select.ts";
import { noSlices, sliceEvent, sliceIds, sliceOf } from "./slices.ts";
import type { EventView, TimelineView } from "./view-model.ts";

/** How many slices are drawn at once: the one on screen and one on each side. */
export const WINDOW_SLICES = 3;

const slices = noSlices();
const at = { from: 0, to: 0 };
let shown: TimelineView | undefined;

/**
 * Slices event `id`, which `view` has just gained, and draws it when its slice is in the window. The
 * window grows until it holds WINDOW_SLICES slices; then, with `follow` (a live page), it slides on to
 * show the newest events, and without it (a stored log) it stays on the first ones.
 */
export function placeEvent(view: TimelineView, id: number, follow: boolean): void {
  shown = view;
  const slice = sliceEvent(slices, view.events[id] as EventView);
  // A new slice joins a window not yet full; otherwise the reader may have moved the window back, and
  // the newest slices wait.
  if (slice === at.to && at.to - at.from < WINDOW_SLICES) at.to += 1;
  if (slice < at.to) drawEvent(view, id);
  else if (slice === at.to && follow) moveWindow(at.from + 1, anchorEvent());
}

/** Draws the slice holding event `id` (and one on each side) unless it is drawn; returns its node. */
export function showEvent(id: number): HTMLElement | null {
  const item = shown?.events[id];
  if (item === undefined) return null;
  const slice = sliceOf(slices, id);
  if (slice < at.from || slice >= at.to) moveWindow(slice - 1, null);
  return document.getElementById(`event-${id}`) ?? document.getElementById(`run-${item.run}`);
}

/** Draws the event message `index` came from, so the message is drawn too. */
export function showMessage(index: number): void {
  const message = shown?.messages[index];
  if (message !== undefined) showEvent(message.fromEvent);
}

/** Shows event `id` at the top of the screen and moves the focus to it. */
function jumpTo(id: number, focus: boolean): void {
  const node = showEvent(id);
  node?.scrollIntoView({ block: "start" });
  if (focus) node?.focus({ preventScroll: true });
  lastY = window.scrollY;
  alignMessages(id);
}

/** Scrolls the message list (its own scroller beside the timeline) to the first message from event `id` on. */
function alignMessages(id: number): void {
  const panel = document.querySelector(".messages");
  const first = [...byId("messages").children].find((node) => Number(node.getAttribute("data-from-event")) >= id);
  if (panel !== null && first !== undefined) panel.scrollTop += first.getBoundingClientRect().top - panel.getBoundingClientRect().top;
}

/** Redraws the window from slice `from`, keeping `anchor` (an event and where it was on screen) in place. */
function moveWindow(from: number, anchor: { id: number; top: number } | null): void {
  if (shown === undefined) return;
  const focused = focusedPart();
  const count = slices.starts.length;
  at.from = Math.max(0, Math.min(from, count - WINDOW_SLICES));
  at.to = Math.min(count, at.from + WINDOW_SLICES);
  byId("groups").replaceChildren();
  byId("messages").replaceChildren();
  const { first, end } = sliceIds(slices, at.from, at.to, shown.events.length);
  for (let id = first; id < end; id++) drawEvent(shown, id);
  drawRuns(shown);
  markProblems();
  reselect();
  drawWindowNav();
  const node = anchor && document.getElementById(`event-${anchor.id}`);
  if (anchor && node) window.scrollBy(0, node.getBoundingClientRect().top - anchor.top);
  lastY = window.scrollY;
  if (focused !== null) document.querySelector<HTMLElement>(focused)?.focus({ preventScroll: true });
}

/** What has the focus in the window, as a selector that finds it again once the window is redrawn. */
function focusedPart(): string | null {
  const part = document.activeElement?.closest("#groups [data-event-id], #messages [data-message-index]");
  if (!(part instanceof HTMLElement)) return null;
  const index = part.dataset.messageIndex;
  return index === undefined ? `#event-${part.dataset.eventId}` : `[data-message-index="${index}"] .select-message`;
}

/** The first event line at least partly on screen, and where it is. */
function anchorEvent(): { id: number; top: number } | null {
  for (const node of byId("groups").querySelectorAll<HTMLElement>(".entries > .event, .step-events > .event")) {
    const box = node.getBoundingClientRect();
    if (box.bottom > 0) return { id: Number(node.dataset.eventId), top: box.top };
  }
  return null;
}

/** Which events are drawn, of how many, and whether there is more either way. */
export function drawWindowNav(): void {
  const events = shown?.events.length ?? 0;
  const { first, end } = sliceIds(slices, at.from, at.to, events);
  byId("window").hidden = slices.starts.length <= WINDOW_SLICES;
  byId("window-range").replaceChildren(text(windowLabel(first, end - 1, events)));
  (byId("earlier") as HTMLButtonElement).disabled = at.from === 0;
  (byId("later") as HTMLButtonElement).disabled = at.to >= slices.starts.length;
}

// The scroll position last seen, so the window moves the way the reader scrolls (and not at all when
// the scroll was the window keeping its anchor in place).
let lastY = 0;

function followScroll(): void {
  const down = window.scrollY > lastY;
  const up = window.scrollY < lastY;
  lastY = window.scrollY;
  const box = byId("groups").getBoundingClientRect();
  if (down && box.bottom < 2 * window.innerHeight && at.to < slices.starts.length) moveWindow(at.from + 1, anchorEvent());
  if (up && box.top > -window.innerHeight && at.from > 0) moveWindow(at.from - 1, anchorEvent());
}

/** Wires up scrolling, the window's buttons and jump box, links to events, and an address's #event-N. */
export function installWindow(): void {
  let scheduled = false;
  const onScroll = () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      followScroll();
    });
  };
  window.addEventListener("scroll", onScroll, { passive: true });
  const firstOf = (slice: number) => slices.starts[slice];
  byId("earlier").addEventListener("click", () => jumpTo(firstOf(at.from - 1) ?? 0, false));
  byId("later").addEventListener("click", () => jumpTo(firstOf(at.to) ?? 0, false));
  const input = byId("jump-to") as HTMLInputElement;
  const jump = () => input.value !== "" && jumpTo(Number(input.value), true);
  byId("jump").addEventListener("click", jump);
  input.addEventListener("keydown", (event) => event.key === "Enter" && jump());
  // A link to an event not drawn: draw it first, and the browser then scrolls to it as usual.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href^='#event-']") : null;
    if (link !== null) showEvent(Number(link.getAttribute("href")?.slice("#event-".length)));
  });
  window.addEventListener("hashchange", showAddressed);
}

/** Shows the event the address names (`page.html#event-123`), if any. */
export function showAddressed(): void {
  const id = /^#event-(\d+)$/.exec(window.location.hash)?.[1];
  if (id !== undefined) jumpTo(Number(id), true);
}
