/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page's script, bundled into the page by page.ts. It folds the log into the view model and draws
// each event: the log embedded in a stored page, or the events a live server pushes (Server-Sent
// Events, in id order). A reload starts from an empty view and is sent the whole log again.
import type { SessionEvent } from "../events.ts";
import { drawRuns, drawStatus, showOnOpen } from "./dom.ts";
import { drawWindowNav, installWindow, placeEvent, showAddressed, showMessage } from "./dom-window.ts";
import { byId, text } from "./dom-helpers.ts";
import { labels, type Bilingual } from "./labels.ts";
import { installSelection } from "./select.ts";
import { addEvent, emptyTimeline } from "./view-model.ts";

const view = emptyTimeline();

/**
 * Adds one event to the view and draws it if it falls in the window drawn (a live page's window
 * follows the newest events); false when it cannot be added (the page then stops).
 */
function receive(event: SessionEvent, follow: boolean): boolean {
  try {
    addEvent(view, event);
  } catch (error) {
    showStatus(labels.outOfOrder, "error", error instanceof Error ? error.message : String(error));
    return false;
  }
  placeEvent(view, event.id, follow);
  return true;
}

/** The counts, the structure check's problems, and which part of a long log is drawn. */
function drawAll(): void {
  drawStatus(view);
  drawWindowNav();
}

function showStatus(label: Bilingual, kind: string, detail = ""): void {
  byId("live").replaceChildren(text(label), detail === "" ? "" : ` — ${detail}`);
  byId("live").dataset.state = kind;
}

// The structure check reads the whole log: while events stream in it runs at most every 100 ms.
let statusPending = false;
function drawStatusSoon(): void {
  if (statusPending) return;
  statusPending = true;
  setTimeout(() => {
    statusPending = false;
    drawAll();
  }, 100);
}

function followLive(url: string): void {
  document.body.classList.add("streaming");
  showStatus(labels.live, "streaming");
  // EventSource reconnects on its own and sends Last-Event-ID (the run's id and the last event's), so
  // the server resumes after the last event this page has; a reload gets the whole log.
  const source = new EventSource(url);
  source.onmessage = (message) => {
    const event = JSON.parse(message.data) as SessionEvent;
    if (!receive(event, true)) return source.close();
    drawRuns(view); // a chunk's text appears as it arrives
    showStatus(labels.live, "streaming");
    drawStatusSoon();
    // For scripts driving the page (the browser tests count what arrived, and in which order).
    document.dispatchEvent(new CustomEvent("timeline:event", { detail: { id: event.id } }));
  };
  source.addEventListener("end", () => {
    source.close();
    document.body.classList.remove("streaming");
    drawAll();
    showStatus(labels.liveEnded, "ended");
  });
  // The server on this port is serving another run now: this page's log is not that run's.
  source.addEventListener("other-run", () => {
    source.close();
    document.body.classList.remove("streaming");
    showStatus(labels.otherRun, "error");
  });
  // CLOSED: the server refused the stream; it will not retry.
  source.onerror = () => showStatus(source.readyState === EventSource.CLOSED ? labels.closed : labels.reconnecting, "reconnecting");
}

function drawStored(): void {
  const log = JSON.parse(byId("session-log").textContent ?? "[]") as SessionEvent[];
  for (const event of log) if (!receive(event, false)) break;
  drawAll();
  showAddressed();
}

installSelection(showMessage);
installWindow();
showOnOpen();
const liveURL = document.body.dataset.live;
if (liveURL === undefined) drawStored();
else followLive(liveURL);
