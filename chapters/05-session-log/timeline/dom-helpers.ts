/// <reference lib="dom" />
// The page's three small drawing helpers, shared by dom.ts and dom-chunks.ts.
import type { Bilingual } from "./labels.ts";

/** The two languages side by side; the English one is marked so it can be styled and read out as English. */
export function text([zh, en]: Bilingual): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(h("span", { class: "zh" }, zh), " ", h("span", { class: "en", lang: "en" }, en));
  return fragment;
}

export function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no element #${id}`);
  return element;
}

export function h(tag: string, attributes: Readonly<Record<string, string | number>>, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}
