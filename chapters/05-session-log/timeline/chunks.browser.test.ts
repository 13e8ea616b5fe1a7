// Stream chunks on the page, in a real headless Chromium: each run of `assistant/chunk` events folds
// under the message it built (closed, and opened on demand), and a live page shows the text growing
// as the chunks arrive. The logs are appended by hand, chunk by chunk, as a streaming loop would.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { test } from "../../common/temp-folder.ts";
import type { StreamChunk } from "../events.ts";
import { Session } from "../session.ts";
import { startLiveServer } from "./live-server.ts";
import { browserSuite, chromiumPath, launch, openStaticPage, watchedPage } from "../testing/page-testing.ts";

const chunk = (session: Session, attempt: number, value: StreamChunk) =>
  session.append("assistant/chunk", { turn: 1, step: 1, attempt, chunk: value }).id;

/** A turn whose first model call failed mid-stream (attempt 1) and whose retry (attempt 2) built the reply. */
function retriedReply(): Session {
  const session = new Session({ clock: () => 1_000 });
  session.append("turn/start", { turn: 1 });
  session.append("user/message", { content: "hi" });
  session.append("step/start", { turn: 1, step: 1 });
  chunk(session, 1, { kind: "reasoning", text: "lost " });
  chunk(session, 1, { kind: "error", message: "connection reset" });
  const ids = [
    chunk(session, 2, { kind: "reasoning", text: "The user " }),
    chunk(session, 2, { kind: "reasoning", text: "greets me." }),
    chunk(session, 2, { kind: "text", text: "Hello, " }),
    chunk(session, 2, { kind: "text", text: "world" }),
    chunk(session, 2, { kind: "finish", reason: "stop" }),
  ];
  session.append("assistant/message", {
    content: "Hello, world",
    reasoning_content: "The user greets me.",
    tool_calls: [],
    chunk_ids: ids,
  });
  session.append("step/end", { turn: 1, step: 1 });
  session.append("turn/end", { turn: 1, reason: "completed" });
  return session;
}

const isOpen = (page: Page, selector: string) => page.locator(selector).evaluate((node) => (node as HTMLDetailsElement).open);

describe.skipIf(chromiumPath === undefined)(`stream chunks on the timeline page in Chromium ${browserSuite}`, () => {
  let pages: string; // where the pages this file opens are written: its own folder, removed after it
  test.beforeAll(({ fileDir }) => {
    pages = fileDir;
  });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it("folds the run of chunks under the message it built, closed; opening it shows the text, then each chunk event", async () => {
    const { page, errors } = await watchedPage(browser);
    await openStaticPage(page, pages, retriedReply().events, "chunks");
    const folded = '[data-event-id="10"] > .chunk-run';
    expect(await page.locator(folded).getAttribute("data-attempt"), "attempt 2's run, under message #10").toBe("2");
    expect(await isOpen(page, folded), "folded runs start closed").toBe(false);
    expect(await page.locator('[data-type="assistant/chunk"]').count(), "no chunk drawn as a line of its own").toBe(0);
    expect(await page.textContent(`${folded} .run-count`)).toBe("5");

    await page.click(`${folded} > summary`);
    expect(await page.locator(`${folded} .growing.answer`).isVisible(), "opened, its text shows").toBe(true);
    expect(await page.locator(`${folded} .growing.answer`).textContent()).toBe("Hello, world");
    expect(await page.locator(`${folded} .growing.reasoning`).textContent()).toBe("The user greets me.");
    await page.click(`${folded} .chunk-events > summary`);
    const listed = page.locator(`${folded} .chunk-list > .event`);
    await listed.first().waitFor();
    expect(await listed.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-event-id")))).toEqual(["5", "6", "7", "8", "9"]);
    expect(errors).toEqual([]);
  });

  it("leaves a failed attempt's chunks where they were, saying how the stream ended", async () => {
    const { page } = await watchedPage(browser);
    await openStaticPage(page, pages, retriedReply().events, "chunks-failed");
    const failed = '.step-events > .run-entry > .chunk-run[data-attempt="1"]';
    expect(await page.textContent(`${failed} .run-count`)).toBe("2");
    expect(await page.textContent(`${failed} .run-end`)).toBe("error: connection reset");
    expect(await page.locator(`${failed} .growing.reasoning`).textContent()).toBe("lost ");
  });

  it("live: the answer's text grows on the page chunk by chunk, then folds under the message", async () => {
    const session = new Session();
    const server = await startLiveServer(session);
    const { page, errors } = await watchedPage(browser, { allowedOrigin: new URL(server.url).origin });
    await page.goto(server.url);
    await server.firstPage;
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    const answer = page.locator(".chunk-run .growing.answer");
    const ids: number[] = [];
    let shown = "";
    for (const piece of ["流式", "分片：", "留存", "但不发送"]) {
      ids.push(chunk(session, 1, { kind: "text", text: piece }));
      shown += piece;
      await expect.poll(() => answer.textContent(), { timeout: 5_000 }).toBe(shown);
    }
    expect(await answer.isVisible(), "while it streams the run is open: its text is on screen").toBe(true);
    session.append("assistant/message", { content: shown, tool_calls: [], chunk_ids: ids });
    await page.locator(`[data-event-id="${ids.length + 2}"] > .chunk-run.folded`).waitFor();
    expect(await isOpen(page, ".chunk-run")).toBe(false);
    await server.close();
    expect(errors.filter((error) => !/ERR_CONNECTION_REFUSED|event-stream/.test(error))).toEqual([]);
  });
});
