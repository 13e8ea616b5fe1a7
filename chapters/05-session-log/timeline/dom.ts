/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Draws the view model into the page one event at a time, touching only what that event changed, so
// the same calls draw a stored log (every event in a row) and a live one (each event as it arrives).
import type { Message } from "../../common/messages.ts";
import type { LogProblem } from "../invariants.ts";
import {
  carriedByLabel,
  countLabel,
  endLabel,
  hiddenLabels,
  labels,
  notSentLabel,
  pairLabel,
  roleLabels,
  sentAsLabel,
  stepLabel,
  turnLabel,
} from "./labels.ts";
import { byId, h, text } from "./dom-helpers.ts";
import { drawChunk, drawRuns, foldRun, showChunkEvents } from "./dom-chunks.ts";

export { drawRuns };
import { problemsOf, type EventView, type GroupView, type MessageView, type TimelineView } from "./view-model.ts";

// These problems are what any log looks like halfway through a turn; while a live run goes on the
// page shows them muted (see page.css), and as errors once the log is complete.
const OPEN_PROBLEMS = new Set(["OPEN_TURN", "OPEN_STEP", "UNANSWERED_TOOL_CALL"]);

/**
 * Draws event `id`, which `view` has just gained, and updates what it changed elsewhere on the page.
 * Every lookup is by element id, never a search of the page, so each event costs the same however
 * long the log already is. The summary and the problem list are drawn by drawStatus, less often.
 */
export function drawEvent(view: TimelineView, id: number): void {
  current = view;
  const item = view.events[id] as EventView;
  if (item.run !== null) {
    drawChunk(view, item, () => entryList(view, item));
    return;
  }
  const node = eventNode(item);
  entryList(view, item).append(node);
  for (const run of item.foldedRuns) foldRun(run, node);
  if (item.pairedWith !== null) redrawBadges(view.events[item.pairedWith] as EventView);
  drawGroupHead(view.groups[item.group] as GroupView, item.group);
  if (item.message !== null) {
    byId("messages").append(messageNode(view.messages[item.message] as MessageView, item.alert !== null));
  }
}

/** The counts and the structure check's problems, for everything drawn so far. */
export function drawStatus(view: TimelineView): void {
  drawRuns(view);
  drawProblems(problemsOf(view));
  byId("summary").replaceChildren(text(countLabel(view.events.length, view.messages.length)));
}

// The view the page draws, for content drawn only when a reader opens it (see showOnOpen).
let current: TimelineView | undefined;

// ── the timeline: group (turn) → step → event ──────────────────────────────────────────────────

function entryList(view: TimelineView, item: EventView): HTMLElement {
  const group = document.getElementById(`group-${item.group}`) ?? byId("groups").appendChild(groupNode(item.group));
  const entries = group.querySelector(":scope > .entries") as HTMLElement;
  const entry = view.groups[item.group]?.entries[item.entry];
  if (entry?.kind !== "step") return entries;
  const stepId = `group-${item.group}-entry-${item.entry}`;
  const step = document.getElementById(stepId) ?? entries.appendChild(stepNode(entry.step, item.entry, stepId));
  return step.querySelector(":scope > .step-events") as HTMLElement;
}

function groupNode(group: number): HTMLElement {
  return h(
    "section",
    { class: "group", id: `group-${group}`, "data-group": group, "aria-labelledby": `group-${group}-title` },
    h("h3", { id: `group-${group}-title` }),
    h("ol", { class: "entries" }),
  );
}

function stepNode(step: number, entry: number, id: string): HTMLElement {
  return h(
    "li",
    { class: "step", id, "data-entry": entry },
    h("div", { class: "step-title" }, text(stepLabel(step))),
    h("ol", { class: "step-events" }),
  );
}

function drawGroupHead(group: GroupView, index: number): void {
  const title = group.turn === null ? labels.outsideTurn : turnLabel(group.turn);
  const end = group.end && h("span", { class: `end end-${group.end.reason}` }, text(endLabel(group.end.reason)));
  byId(`group-${index}-title`).replaceChildren(text(title), end ?? "");
}

export function eventNode(item: EventView): HTMLElement {
  const { id, type } = item.event;
  const since = item.sinceTurnStart === null ? "" : `+${item.sinceTurnStart} ms`;
  return h(
    "li",
    { class: "event", id: `event-${id}`, "data-event-id": id, "data-type": type, tabindex: -1 },
    h(
      "div",
      { class: "event-head" },
      h("span", { class: "event-id" }, `#${id}`),
      h("code", { class: "event-type" }, type),
      h("span", { class: "since" }, since),
      h("span", { class: "badges" }, ...badges(item)),
    ),
    // The data is written out only when opened: most never are, and a large log has many events.
    h("details", { class: "event-data", "data-show": id }, h("summary", {}, text(labels.data))),
  );
}

/** Fills a closed part of the page the first time it is opened (event data, a run's chunk events). */
export function showOnOpen(): void {
  document.addEventListener(
    "toggle",
    (event) => {
      const details = event.target;
      // Only the summary inside: not drawn yet.
      if (!(details instanceof HTMLDetailsElement) || !details.open || details.childElementCount > 1 || current === undefined) return;
      const item = current.events[Number(details.dataset.show)];
      if (details.classList.contains("event-data") && item) details.append(h("pre", {}, JSON.stringify(item.event.data, null, 2)));
      if (details.classList.contains("chunk-events")) showChunkEvents(current, details, eventNode);
    },
    true, // toggle does not bubble; listening on the way down sees every details element
  );
}

function redrawBadges(item: EventView): void {
  document
    .getElementById(`event-${item.event.id}`)
    ?.querySelector(".badges")
    ?.replaceChildren(...badges(item));
}

function badges(item: EventView): Node[] {
  const { alert, event } = item;
  const out: Node[] = [];
  if (item.message !== null) {
    const attributes = { type: "button", class: "to-message", "data-to-message": item.message };
    out.push(h("button", attributes, text(sentAsLabel(item.message))));
  }
  if (item.hidden !== null) {
    const why = item.carriedBy === null ? hiddenLabels[item.hidden] : carriedByLabel(item.carriedBy);
    out.push(h("span", { class: "hidden-reason", "data-reason": item.hidden }, text(notSentLabel(why))));
  }
  if (event.type === "tool/call" || event.type === "tool/result") {
    out.push(
      item.pairedWith === null
        ? h("span", { class: "pair" }, text(labels.noResult))
        : h("a", { class: "pair", href: `#event-${item.pairedWith}` }, text(pairLabel(event.type, item.pairedWith))),
    );
  }
  if (alert?.kind === "tool-error") out.push(h("strong", { class: "alert" }, text(labels.toolError)));
  if (alert !== null && alert.kind !== "tool-error") {
    const message = alert.message === null ? "" : `: ${alert.message}`;
    out.push(h("strong", { class: "alert" }, text(endLabel(alert.kind)), message));
  }
  return out;
}

// ── the messages the model saw ───────────────────────────────────────────────────────────────────

/** `erred`: the event it came from is an is_error result, which the message itself does not say. */
function messageNode({ index, fromEvent, message }: MessageView, erred: boolean): HTMLElement {
  const role = roleLabels[message.role] ?? [message.role, message.role];
  const classes = `message role-${message.role}${erred ? " erred" : ""}`;
  const button = {
    type: "button",
    class: "select-message",
    "aria-controls": `event-${fromEvent}`,
    "aria-pressed": "false",
  };
  return h(
    "li",
    { class: classes, "data-message-index": index, "data-from-event": fromEvent },
    h(
      "button",
      button,
      h("span", { class: "message-index" }, `messages[${index}]`),
      " ",
      text(role),
      h("span", { class: "from" }, ` ← #${fromEvent}`),
    ),
    messageBody(message),
  );
}

function messageBody(message: Message): HTMLElement {
  const body = h("div", { class: "message-body" });
  if (message.role === "assistant") {
    if (message.reasoning_content) {
      body.append(h("details", { class: "reasoning" }, h("summary", {}, "reasoning_content"), h("pre", {}, message.reasoning_content)));
    }
    for (const call of message.tool_calls) {
      body.append(h("pre", { class: "tool-call" }, `${call.name}(${call.arguments})  [${call.id}]`));
    }
    if (message.content !== null && message.content !== "") body.append(h("pre", {}, message.content));
    return body;
  }
  body.append(h("pre", {}, message.content));
  if (message.role === "tool") body.append(h("div", { class: "call-id" }, `tool_call_id: ${message.tool_call_id}`));
  return body;
}

// ── the structure check ──────────────────────────────────────────────────────────────────────────

// The problems drawn last: the events they are about are marked again whenever the window is redrawn.
let problemsShown: readonly LogProblem[] = [];

function drawProblems(problems: readonly LogProblem[]): void {
  problemsShown = problems;
  markProblems();
  const items = problems.map((problem) => {
    const open = OPEN_PROBLEMS.has(problem.code);
    return h(
      "li",
      { class: open ? "problem open-problem" : "problem", "data-problem-code": problem.code },
      h("a", { href: `#event-${problem.index}` }, `#${problem.index}`),
      ` ${problem.code} `,
      `${problem.zh} / ${problem.message}`,
    );
  });
  const heading = h("h2", {}, text(problems.length === 0 ? labels.noProblems : labels.problems));
  byId("problems").replaceChildren(heading, ...(items.length === 0 ? [] : [h("ul", {}, ...items)]));
  byId("problems").classList.toggle("clean", problems.length === 0);
}

/** Marks each drawn event the structure check's problems are about. */
export function markProblems(): void {
  for (const marked of document.querySelectorAll(".has-problem")) marked.classList.remove("has-problem", "open-problem");
  for (const problem of problemsShown) {
    const classes = OPEN_PROBLEMS.has(problem.code) ? ["has-problem", "open-problem"] : ["has-problem"];
    document.getElementById(`event-${problem.index}`)?.classList.add(...classes);
  }
}
