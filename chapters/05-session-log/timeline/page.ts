// The timeline page: one self-contained HTML file (inline CSS and script, nothing fetched). It carries
// the log itself, and its script (browser.ts, bundled here) derives the view from it, so the page is
// literally a derivation of the log. The live page is the same page, fed by a server instead.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { writeFileAtomically } from "../../common/atomic-write.ts";
import type { SessionEvent } from "../events.ts";
import { labels, type Bilingual } from "./labels.ts";

export interface PageOptions {
  /** Says where the log came from, e.g. "scenario calculator (offline replay)" or a file name. */
  readonly source?: string;
  /** What the log file held and what repair makes of it (log-account.ts), shown above the timeline. */
  readonly account?: readonly Bilingual[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** A page that draws `events`; open it from disk, no server needed. */
export function renderTimelinePage(events: readonly SessionEvent[], options: PageOptions = {}): string {
  return [...timelinePageParts(events, options)].join("");
}

/**
 * The same page in pieces, its log a few events at a time: a log of millions of events makes a page
 * of hundreds of MB, and as one string (its JSON, the escaped copy, the page around it) it took several
 * times the log's memory, and past V8's longest string (2^29 characters) it could not be made at all.
 * writeTimelinePage writes the pieces as they come.
 */
export function* timelinePageParts(events: readonly SessionEvent[], options: PageOptions = {}): Generator<string> {
  yield pageHead(options, "");
  yield '<script type="application/json" id="session-log">[';
  for (let start = 0; start < events.length; start += PAGE_BATCH) {
    const json = JSON.stringify(events.slice(start, start + PAGE_BATCH)).slice(1, -1); // the events, without the brackets
    if (start > 0) yield ",";
    // Escaped a slice at a time: an escaped character takes six, and one message may be most of the log.
    for (let at = 0; at < json.length; at += SLICE_CHARS) yield escapeForScript(json.slice(at, at + SLICE_CHARS));
  }
  yield "]</script>";
  yield pageTail();
}

/**
 * Events turned into JSON at a time, and characters of it escaped at a time: each piece (at most 96 Ki
 * characters) is small enough for V8's young generation, where garbage is collected cheaply as the page
 * is written, not piled up until a full collection (batches of 10,000 events doubled view's peak memory).
 */
const [PAGE_BATCH, SLICE_CHARS] = [250, 2 ** 14];

// "<" escaped, so no string in the log can close the <script> element that carries it; every other
// character beyond ASCII escaped too, which the browser reads several times faster than UTF-8.
function escapeForScript(json: string): string {
  return json.replace(/[<\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The page's Content-Security-Policy: nothing may be fetched but the live stream, and the only script
 * and style that may run are the page's own, named by their SHA-256 hashes (no 'unsafe-inline': an
 * element some text managed to inject would not run). The live server sends it as a header too.
 */
export function pagePolicy(): string {
  return `default-src 'none'; style-src '${sha256(pageStyle())}'; script-src '${sha256(pageScript())}'; connect-src 'self'; base-uri 'none'; form-action 'none'`;
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text).digest("base64")}`;
}

/** The page a live server sends: no log inside; its script follows `eventsURL` (Server-Sent Events). */
export function renderLivePage(eventsURL: string, options: PageOptions = {}): string {
  return pageHead(options, ` data-live="${escapeHtml(eventsURL)}"`) + pageTail();
}

/**
 * Writes the page for `events` to `file` (its folder is made if needed), whole or not at all: a failed
 * write leaves no half page and the earlier page as it was (common/atomic-write.ts). Returns the
 * absolute path written, every link followed.
 */
export function writeTimelinePage(events: readonly SessionEvent[], file: string, options: PageOptions = {}): string {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return writeFileAtomically(file, timelinePageParts(events, options));
}

/** From this many events on, `largePageNote` says so: the page folds every event as it opens (it draws only a window). */
export const LARGE_PAGE_EVENTS = 20_000;

/** What to tell the terminal before a reader opens a large page; null for a page that opens at once. */
export function largePageNote(events: number): string | null {
  if (events < LARGE_PAGE_EVENTS) return null;
  const count = events.toLocaleString("en");
  return `页面较大：${count} 条事件，浏览器要几秒才能打开 / A large page: ${count} events; the browser takes a few seconds to open it`;
}

/** The page up to where the log goes (a page from disk carries it; the live page is fed instead). */
function pageHead(options: PageOptions, bodyAttributes: string): string {
  const source = options.source === undefined ? "" : `<p class="source">${escapeHtml(options.source)}</p>`;
  // The policy is the proof of "nothing fetched": the browser refuses every request but the live stream.
  const policy = pagePolicy();
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<title>${plain(labels.title)}${options.source === undefined ? "" : ` — ${escapeHtml(options.source)}`}</title>
<style>${pageStyle()}</style>
</head>
<body${bodyAttributes}>
<header>
<h1>${both(labels.title)}</h1>
${source}
${account(options.account)}
<p id="summary"></p>
<p id="live" role="status"></p>
<section id="problems" aria-live="polite"></section>
<noscript><p>${both(labels.noScript)}</p></noscript>
</header>
<main>
<section class="timeline" aria-labelledby="events-title">
<h2 id="events-title">${both(labels.events)}</h2>
${windowNav()}
<div id="groups"></div>
</section>
<section class="messages" aria-labelledby="messages-title">
<h2 id="messages-title">${both(labels.messages)}</h2>
<p class="hint">${both(labels.messagesHint)}</p>
<ol id="messages"></ol>
</section>
</main>
`;
}

function pageTail(): string {
  return `
<script>${pageScript()}</script>
</body>
</html>
`;
}

let script: string | undefined;

/** browser.ts and everything it imports, as one script; built once per process. */
function pageScript(): string {
  script ??= buildSync({
    entryPoints: [path.join(here, "browser.ts")],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    legalComments: "none",
    logLevel: "silent",
  }).outputFiles[0]?.text;
  if (script === undefined) throw new Error("esbuild produced no script for the timeline page");
  return script;
}

let style: string | undefined;

function pageStyle(): string {
  style ??= readFileSync(path.join(here, "page.css"), "utf8");
  return style;
}

/** A long log is drawn a window at a time (dom-window.ts): these move it; hidden while the log fits. */
function windowNav(): string {
  return `<nav id="window" aria-label="${plain(labels.window)}" hidden>
<button type="button" id="earlier">${both(labels.earlier)}</button>
<span id="window-range"></span>
<button type="button" id="later">${both(labels.later)}</button>
<label>${both(labels.jumpTo)} <input id="jump-to" type="number" min="0" inputmode="numeric"></label>
<button type="button" id="jump">${both(labels.go)}</button>
</nav>`;
}

function account(lines: readonly Bilingual[] | undefined): string {
  if (lines === undefined) return "";
  // A line the same in both languages (an event's JSON) is shown once.
  const items = lines.map((line) => `<li>${line[0] === line[1] ? `<code>${escapeHtml(line[0])}</code>` : both(line)}</li>`);
  return `<section id="account"><h2>${both(labels.account)}</h2><ul>${items.join("")}</ul></section>`;
}

function both([zh, en]: Bilingual): string {
  return `<span class="zh">${escapeHtml(zh)}</span> <span class="en" lang="en">${escapeHtml(en)}</span>`;
}

function plain([zh, en]: Bilingual): string {
  return `${escapeHtml(zh)} / ${escapeHtml(en)}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
