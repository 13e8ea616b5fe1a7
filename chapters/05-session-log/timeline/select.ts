/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Selecting a message highlights the event it was projected from, and the reverse. Everything is a
// real button, so a keyboard works as a mouse does; ↑/↓ in the message list move the selection.

/**
 * Wires up selection once; it works for nodes drawn later too (the listeners sit on the document).
 * `showMessage(index)` draws a message not drawn yet (a long log's page draws a window of it).
 */
export function installSelection(showMessage: (index: number) => void = () => {}): void {
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const message = target?.closest("[data-message-index]");
    if (message && target?.closest(".select-message")) select(Number(message.getAttribute("data-message-index")), "event");
    const toMessage = target?.closest("[data-to-message]");
    if (toMessage) select(Number(toMessage.getAttribute("data-to-message")), "message");
  });
  document.addEventListener("keydown", (event) => {
    const button = event.target instanceof Element ? event.target.closest(".select-message") : null;
    if (button === null) return;
    if (event.key === "Escape") return select(null, "event");
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    const index = Number(button.closest("[data-message-index]")?.getAttribute("data-message-index")) + step;
    if (step !== 0) showMessage(index);
    const next = document.querySelector<HTMLElement>(`[data-message-index="${index}"] .select-message`);
    if (step === 0 || next === null) return;
    event.preventDefault();
    next.focus();
    select(index, "event");
  });
}

// The message selected, to select again when the page redraws what it shows.
let selected: number | null = null;

/** Selects message `index` and its event (null clears), and scrolls `reveal`'s side into view. */
export function select(index: number | null, reveal: "event" | "message"): void {
  selected = index;
  const [message, event] = highlight(index);
  (reveal === "event" ? event : message)?.scrollIntoView({ block: "nearest" });
}

/** Marks the selected message and its event again, if they are drawn; scrolls nothing. */
export function reselect(): void {
  highlight(selected);
}

function highlight(index: number | null): [Element, Element] | [] {
  for (const old of document.querySelectorAll(".selected")) old.classList.remove("selected");
  for (const old of document.querySelectorAll("[aria-pressed=true]")) old.setAttribute("aria-pressed", "false");
  if (index === null) return [];
  const message = document.querySelector(`[data-message-index="${index}"]`);
  const event = document.querySelector(`[data-event-id="${message?.getAttribute("data-from-event")}"]`);
  if (message === null || event === null) return [];
  message.classList.add("selected");
  event.classList.add("selected");
  message.querySelector(".select-message")?.setAttribute("aria-pressed", "true");
  return [message, event];
}
