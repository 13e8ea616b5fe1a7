/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page's script, bundled into the page by page.ts. It folds the log into the view model and draws
// each event: the log embedded in a stored page, or the events a live server pushes (Server-Sent
// Events, in id order). A reload starts from an empty view and is sent the whole log again.
import type { SessionEvent } from "../events.ts";
import { byId, drawEvent, text } from "./dom.ts";
import { labels, type Bilingual } from "./labels.ts";
import { installSelection } from "./select.ts";
import { addEvent, emptyTimeline } from "./view-model.ts";

let view = emptyTimeline();

/** Adds one event to the view and draws it; false when it cannot be added (the page then stops). */
function receive(event: SessionEvent): boolean {
  try {
    view = addEvent(view, event);
  } catch (error) {
    showStatus(labels.outOfOrder, "error", error instanceof Error ? error.message : String(error));
    return false;
  }
  drawEvent(view, event.id);
  // For scripts driving the page (the browser tests count what arrived, and in which order).
  document.dispatchEvent(new CustomEvent("timeline:event", { detail: { id: event.id } }));
  return true;
}

function showStatus(label: Bilingual, kind: string, detail = ""): void {
  byId("live").replaceChildren(text(label), detail === "" ? "" : ` — ${detail}`);
  byId("live").dataset.state = kind;
}

function followLive(url: string): void {
  document.body.classList.add("streaming");
  showStatus(labels.live, "streaming");
  // EventSource reconnects on its own and sends Last-Event-ID, so the server resumes after the last
  // event this page has; a reload makes a new EventSource without it, which gets the whole log.
  const source = new EventSource(url);
  source.onmessage = (message) => {
    if (!receive(JSON.parse(message.data) as SessionEvent)) source.close();
    else showStatus(labels.live, "streaming");
  };
  source.addEventListener("end", () => {
    source.close();
    document.body.classList.remove("streaming");
    showStatus(labels.liveEnded, "ended");
  });
  // CLOSED: the server refused to resume (a page left open from an earlier run); it will not retry.
  source.onerror = () => showStatus(source.readyState === EventSource.CLOSED ? labels.closed : labels.reconnecting, "reconnecting");
}

function drawStored(): void {
  const log = JSON.parse(byId("session-log").textContent ?? "[]") as SessionEvent[];
  for (const event of log) if (!receive(event)) break;
}

installSelection();
const liveURL = document.body.dataset.live;
if (liveURL === undefined) drawStored();
else followLive(liveURL);
