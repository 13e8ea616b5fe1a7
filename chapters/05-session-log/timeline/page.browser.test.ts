// The static timeline page in a real headless Chromium: what a learner sees after
// `npm run view -- --scenario NAME`, opened from disk. One browser for the whole file.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { replayScenario } from "../testing/scenario-replay.ts";
import { Session } from "../session.ts";
import { browserSuite, chromiumPath, launch, openStaticPage, screenshot, watchedPage } from "../testing/page-testing.ts";

const count = (page: Page, selector: string) => page.locator(selector).count();
const attributes = (page: Page, selector: string, name: string) =>
  page.locator(selector).evaluateAll((nodes, attribute) => nodes.map((node) => node.getAttribute(attribute)), name);

describe.skipIf(chromiumPath === undefined)(`the timeline page in Chromium ${browserSuite}`, () => {
  let pages: string; // where the pages this file opens are written: its own folder, removed after it
  test.beforeAll(({ fileDir }) => {
    pages = fileDir;
  });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  describe("the calculator round trip", () => {
    let page: Page;
    let watched: Awaited<ReturnType<typeof watchedPage>>;
    beforeAll(async () => {
      watched = await watchedPage(browser);
      page = watched.page;
      await openStaticPage(page, pages, (await replayScenario("calculator")).session.events, "calculator");
    });

    it("shows the 12 events and the 4 messages, each message linked to the event it came from", async () => {
      expect(await count(page, "[data-event-id]")).toBe(12);
      expect(await count(page, "[data-message-index]")).toBe(4);
      expect(await attributes(page, "[data-message-index]", "data-from-event")).toEqual(["1", "4", "6", "9"]);
      expect(await count(page, ".group .step")).toBe(2);
    });

    it("runs without a script error and fetches nothing: the page is self-contained", () => {
      expect(watched.errors, "errors from the page's script").toEqual([]);
      expect(watched.strayRequests, "requests beyond the page file").toEqual([]);
    });

    it("selecting the third message (the tool result) highlights event #6, and only it", async () => {
      await page.click('[data-message-index="2"] .select-message');
      expect(await attributes(page, ".event.selected", "data-event-id")).toEqual(["6"]);
      expect(await page.getAttribute('[data-message-index="2"] .select-message', "aria-pressed")).toBe("true");
      await screenshot(page, "timeline-calculator");
      await page.emulateMedia({ colorScheme: "dark" });
      await screenshot(page, "timeline-calculator-dark");
      await page.emulateMedia({ colorScheme: "light" });
    });

    it("selecting an event's message button highlights that message: the link works both ways", async () => {
      await page.click('[data-event-id="9"] .to-message');
      expect(await attributes(page, ".message.selected", "data-message-index")).toEqual(["3"]);
      expect(await attributes(page, ".event.selected", "data-event-id")).toEqual(["9"]);
    });

    it("works by keyboard: ↓ moves the selection down the messages, Escape clears it", async () => {
      await page.focus('[data-message-index="0"] .select-message');
      await page.keyboard.press("Enter");
      await page.keyboard.press("ArrowDown");
      expect(await attributes(page, ".event.selected", "data-event-id")).toEqual(["4"]);
      await page.keyboard.press("Escape");
      expect(await count(page, ".selected")).toBe(0);
    });

    it("pairs tool/call #5 with tool/result #6 and says why #5 never reaches the model", async () => {
      expect(await page.getAttribute('[data-event-id="5"] .pair', "href")).toBe("#event-6");
      expect(await page.getAttribute('[data-event-id="6"] .pair', "href")).toBe("#event-5");
      expect(await page.textContent('[data-event-id="5"] .hidden-reason')).toContain("rides on #4's tool_calls");
      expect(await attributes(page, ".hidden-reason", "data-reason")).toEqual([
        "turn-boundary",
        "request-header",
        "step-boundary",
        "carried-by-assistant",
        "step-boundary",
        "step-boundary",
        "step-boundary",
        "turn-boundary",
      ]);
    });

    it("keeps each event's data collapsed until it is opened", async () => {
      const details = page.locator('[data-event-id="5"] details');
      expect(await details.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
      await details.locator("summary").click();
      expect(await details.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(true);
      expect(await details.locator("pre").textContent()).toContain('"call_id": "call_00_');
    });
  });

  describe("how a turn ended, and what is wrong, stands out", () => {
    async function endOf(name: string) {
      const { page } = await watchedPage(browser);
      await openStaticPage(page, pages, (await replayScenario(name)).session.events, name);
      const result = {
        heading: await page.textContent(".group h3 .end"),
        alert: await page.textContent('[data-type="turn/end"] .alert'),
      };
      await page.close();
      return result;
    }

    it("max-steps: the turn's heading and its turn/end say the step budget was used up", async () => {
      const { heading, alert } = await endOf("max-steps");
      expect(heading).toContain("max_steps");
      expect(alert).toContain("step budget used up");
    });

    it("auth-error: the turn/end shows reason error and the failure's message (the 401)", async () => {
      const { heading, alert } = await endOf("auth-error");
      expect(heading).toContain("error");
      expect(alert).toMatch(/ended by an error \(error\): .*401/);
    });

    it("a torn log lists the structure check's problems and marks the events they are about", async () => {
      const session = new Session();
      session.append("turn/start", { turn: 1 });
      session.append("step/start", { turn: 1, step: 1 });
      session.append("tool/call", { call_id: "c1", name: "calculator", arguments: "{}" });
      const { page } = await watchedPage(browser);
      await openStaticPage(page, pages, session.events, "torn");
      expect(await attributes(page, "[data-problem-code]", "data-problem-code")).toEqual([
        "OPEN_TURN",
        "OPEN_STEP",
        "UNANSWERED_TOOL_CALL",
      ]);
      expect(await attributes(page, ".event.has-problem", "data-event-id")).toEqual(["0", "1", "2"]);
      await page.close();
    });
  });
});
