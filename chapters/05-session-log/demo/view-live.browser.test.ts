// The live timeline in a real headless Chromium: events pushed as the loop commits them arrive in id
// order, a reload rebuilds the page from the whole log, and the finished page is the static page.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { test } from "../../common/temp-folder.ts";
import type { ChatClient } from "../../common/deepseek.ts";
import { replayScenario } from "../testing/scenario-replay.ts";
import { viewCommand } from "./view.ts";
import { Session } from "../session.ts";
import { startLiveServer } from "../timeline/live-server.ts";
import { browserSuite, chromiumPath, drawnPage, launch, openStaticPage, watchedPage } from "../testing/page-testing.ts";

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
  let pages: string; // where the pages this file opens are written: its own folder, removed after it
  test.beforeAll(({ fileDir }) => {
    pages = fileDir;
  });
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
    const response = await page.goto(server.url);
    expect(response?.headers()["content-security-policy"], "the policy, as a header").toMatch(/script-src 'sha256-[^']+';/);
    await server.firstPage;

    const { wrap, release } = holdSecondCall();
    const run = replayScenario("calculator", { session, wrap });
    await page.locator('[data-event-id="8"]').waitFor(); // step 2 has started; its model call is held
    expect(await page.getAttribute("#live", "data-state")).toBe("streaming");
    // While the turn is open, its open-turn problem is shown muted, not as an error.
    await page.locator(".problem.open-problem").first().waitFor();

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
    await openStaticPage(stored, pages, session.events, "calculator-live");
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
    expect(lines[0]).toMatch(/^实时时间线 \/ Live timeline: http:\/\/127\.0\.0\.1:\d+\/[\w-]{24}\/$/);
    expect(lines.at(-1)).toMatch(/^这一轮结束（12 条事件），服务器已停止 \/ The turn ended \(12 events\); the server has stopped$/);
    expect(await arrivals(page)).toEqual([range(12)]);

    const { page: stored } = await watchedPage(browser);
    await openStaticPage(stored, pages, (await replayScenario("calculator")).session.events, "calculator-cli");
    expect(await drawnPage(page, false), "the same page as the static one, times aside (two runs)").toBe(await drawnPage(stored, false));
  });

  it("a page left open on an earlier run is told, when another run serves its port, that it belongs to another run", async () => {
    const first = new Session();
    first.append("user/message", { content: "run A" });
    const a = await startLiveServer(first);
    const { page } = await watchedPage(browser);
    await page.goto(a.url);
    await page.locator('[data-event-id="0"]').waitFor();
    await a.close(); // cut without the end notice: the page keeps trying to resume

    const second = new Session();
    for (const content of ["run B", "is longer", "than A"]) second.append("user/message", { content });
    const b = await startLiveServer(second, { port: Number(new URL(a.url).port) });
    await page.locator('#live:has-text("another run")').waitFor();
    expect(await page.getAttribute("#live", "data-state")).toBe("error");
    expect(await page.locator("[data-event-id]").count(), "none of run B's events").toBe(1);
    expect(b.pages().open).toBe(0);
    await b.close();
  });

  it("refuses another site's page (its Origin), even one that knows the token, and an address without the token", async () => {
    const session = new Session();
    session.append("user/message", { content: "private" });
    const server = await startLiveServer(session);
    const { page } = await watchedPage(browser, { allowedOrigin: server.url });
    // Any page the user visits could try this: here one served from another port of this machine
    // (Chromium keeps pages on the internet from loopback addresses itself; a local one is the hard case).
    const attacker = createServer((_, response) => response.end("<p>hi</p>"));
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    const attackerURL = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
    await page.goto(attackerURL);
    const state = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const source = new EventSource(url);
          source.onmessage = () => resolve("read the session");
          source.onerror = () => resolve(source.readyState === EventSource.CLOSED ? "refused" : "retrying");
        }),
      new URL("events", server.url).href,
    );
    expect(state).toBe("refused");
    // What matters: the server never started following (a run waiting for its page would have begun).
    const started = await Promise.race([
      server.firstPage.then(() => "started"),
      new Promise((resolve) => setTimeout(resolve, 300, "waiting")),
    ]);
    expect(started, "the foreign page must not count as the run's page").toBe("waiting");
    const { origin } = new URL(server.url);
    expect((await page.goto(`${origin}/`))?.status(), "no token, no page").toBe(403);
    await server.close();
    attacker.close();
  });

  it("runs no script but its own: an inline script injected into the live page is blocked by the policy", async () => {
    const server = await startLiveServer(new Session());
    const { page } = await watchedPage(browser, { allowedOrigin: server.url });
    const blocked: string[] = [];
    page.on("console", (message) => blocked.push(message.text()));
    await page.goto(server.url);
    await page.locator('#live[data-state="streaming"]').waitFor(); // its own script runs
    await page.evaluate(() => {
      const injected = document.createElement("script");
      injected.textContent = "document.body.dataset.injected = 'ran'";
      document.body.append(injected);
    });
    expect(await page.getAttribute("body", "data-injected")).toBeNull();
    expect(blocked.join("\n")).toMatch(/Content Security Policy/);
    await server.close();
  });
});
