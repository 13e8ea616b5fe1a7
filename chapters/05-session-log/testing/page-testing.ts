// What the two browser test files share: the browser or the reason there is none, a page watched for
// script errors and for any request it should not make, and where screenshots go.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { root } from "../../common/root.ts";
import type { SessionEvent } from "../events.ts";
import { CHROMIUM_HINT, findChromium, launchChromium } from "../timeline/chromium.ts";
import { renderTimelinePage } from "../timeline/page.ts";

export const chromiumPath = findChromium();
/** Goes into the describe block's name, so a skipped run says why and what to do. */
export const browserSuite = chromiumPath === undefined ? `(skipped: no Chromium — ${CHROMIUM_HINT})` : `(Chromium at ${chromiumPath})`;

export function launch(): Promise<Browser> {
  if (chromiumPath === undefined) throw new Error(`no Chromium: ${CHROMIUM_HINT}`);
  return launchChromium(chromiumPath);
}

/** A page that records its script errors, and every request to anywhere but `allowedOrigin` (or none). */
export async function watchedPage(browser: Browser, options: { colorScheme?: "light" | "dark"; allowedOrigin?: string } = {}) {
  const page = await browser.newPage({
    colorScheme: options.colorScheme ?? "light",
    viewport: { width: 1280, height: 900 },
  });
  // Well under the test's own timeout, so a missing element fails naming its selector.
  page.setDefaultTimeout(8_000);
  const errors: string[] = [];
  const strayRequests: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith("file://") && !(options.allowedOrigin !== undefined && url.startsWith(options.allowedOrigin)))
      strayRequests.push(url);
  });
  return { page, errors, strayRequests };
}

/** Writes the static page for `events` into `dir` (the test file's folder) and opens it from disk, as a learner would. */
export async function openStaticPage(page: Page, dir: string, events: readonly SessionEvent[], name: string): Promise<string> {
  const file = path.join(dir, `${name}.html`);
  writeFileSync(file, renderTimelinePage(events, { source: `scenario ${name}` }));
  await page.goto(`file://${file}`);
  return file;
}

/** The log a static page carries, read back the way its script reads it. */
export function embeddedLog(html: string): unknown {
  const match = /<script type="application\/json" id="session-log">(.*?)<\/script>/s.exec(html);
  if (match === null) throw new Error("the page carries no session-log element");
  return JSON.parse(match[1] ?? "");
}

/**
 * Screenshots go to .workbook/screenshots (ignored by git) so a test run leaves the tree clean;
 * TIMELINE_SCREENSHOTS=docs writes the ones the README shows.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = path.resolve(root, process.env.TIMELINE_SCREENSHOTS ?? ".workbook/screenshots");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The drawn timeline and messages, for comparing two pages; `withTimes: false` drops the +ms. */
export function drawnPage(page: Page, withTimes = true): Promise<string> {
  return page.evaluate((keepTimes) => {
    const copy = document.querySelector("main")?.cloneNode(true) as HTMLElement;
    if (!keepTimes) for (const since of copy.querySelectorAll(".since")) since.textContent = "";
    return copy.innerHTML;
  }, withTimes);
}
