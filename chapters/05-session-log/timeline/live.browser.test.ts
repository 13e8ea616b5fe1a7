// The live timeline in a real headless Chromium: events pushed as the loop commits them arrive in id
// order, a reload rebuilds the page from the whole log, and the finished page is the static page.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatClient } from "../../common/deepseek.ts";
import { replayScenario } from "../../../fixtures/test-helpers.ts";
import { viewCommand } from "../../../scripts/view.ts";
import { Session } from "../session.ts";
import { startLiveServer } from "./live-server.ts";
import { browserSuite, chromiumPath, drawnPage, launch, openStaticPage, watchedPage } from "./page-testing.ts";

/** Records, for each load of the page, the ids of the events its script received, in order. */
async function recordArrivals(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const loads = JSON.parse(sessionStorage.getItem("arrivals") ?? "[]") as number[][];
    loads.push([]);
    const save = () => sessionStorage.setItem("arrivals", JSON.stringify(loads));
    save();
    document.addEventListener("timeline:event", (event) => {
      loads.at(-1)?.push((event as CustomEvent<{ id: number }>).detail.id);
      save();
    });
  });
}

const arrivals = (page: Page) => page.evaluate(() => JSON.parse(sessionStorage.getItem("arrivals") ?? "[]") as number[][]);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Holds the model's second call until `release()`: the run pauses after step 1 with the page watching. */
function holdSecondCall(): { wrap: (client: ChatClient) => ChatClient; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const wrap = (client: ChatClient): ChatClient => ({
    model: client.model,
    chat: async (request) => {
      if (++calls === 2) await gate;
      return client.chat(request);
    },
  });
  return { wrap, release };
}

describe.skipIf(chromiumPath === undefined)(`the live timeline in Chromium ${browserSuite}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it("pushes events in id order; a reload mid-run rebuilds from the whole log; the end matches the static page", async () => {
    const session = new Session();
    const server = await startLiveServer(session, { source: "scenario calculator" });
    const { page, errors, strayRequests } = await watchedPage(browser, { allowedOrigin: server.url });
    await recordArrivals(page);
    await page.goto(server.url);
    await server.firstPage;

    const { wrap, release } = holdSecondCall();
    const run = replayScenario("calculator", { session, wrap });
    await page.locator('[data-event-id="8"]').waitFor(); // step 2 has started; its model call is held
    expect(await page.getAttribute("#live", "data-state")).toBe("streaming");
    // While the turn is open, its open-turn problem is shown muted, not as an error.
    expect(await page.locator(".problem.open-problem").count()).toBeGreaterThan(0);

    await page.reload();
    await page.locator('[data-event-id="8"]').waitFor();
    release();
    await run;
    await server.finish();
    await page.locator('#live[data-state="ended"]').waitFor();

    expect(await arrivals(page), "first load: 0–8 before the hold; after the reload: the whole log again, then the rest").toEqual([
      range(9),
      range(12),
    ]);
    expect(errors).toEqual([]);
    expect(strayRequests).toEqual([]);
    const live = await drawnPage(page);
    const { page: stored } = await watchedPage(browser);
    await openStaticPage(stored, session.events, "calculator-live");
    expect(live, "the live page, once complete, is the static page of the same log").toBe(await drawnPage(stored));
  });

  it("npm run view -- --live: serves on 127.0.0.1, runs the turn when the page connects, and stops when it ends", async () => {
    const lines: string[] = [];
    const { page } = await watchedPage(browser);
    await recordArrivals(page);
    const command = viewCommand(["--live", "--port", "0"], {
      out: (line) => lines.push(line),
      env: {}, // no key: an offline replay
      onServing: (url) => void page.goto(url),
    });
    await command;
    await page.locator('#live[data-state="ended"]').waitFor();
    expect(lines[0]).toMatch(/^实时时间线 \/ Live timeline: http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(lines.at(-1)).toMatch(/The turn ended \(12 events\); the server has stopped/);
    expect(await arrivals(page)).toEqual([range(12)]);

    const { page: stored } = await watchedPage(browser);
    await openStaticPage(stored, (await replayScenario("calculator")).session.events, "calculator-cli");
    expect(await drawnPage(page, false), "the same page as the static one, times aside (two runs)").toBe(await drawnPage(stored, false));
  });
});
