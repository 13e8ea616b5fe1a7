// The page of a long log in a real headless Chromium: 100,000 ordinary events (turn after turn of tool
// calls, one turn with a step of 3,000 calls) are drawn a window at a time (dom-window.ts), so the page
// holds a few hundred events' elements, never all of them; yet every turn can be reached by scrolling,
// by the earlier/later buttons, by the jump box, by an address's #event-N and by ↓ in the messages;
// and a live page's window follows the newest events.
// No timing here: `npm run bench:page -- --kind calculator` measures how fast it opens.
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { Session } from "../session.ts";
import { browserSuite, chromiumPath, launch, openStaticPage, watchedPage } from "../testing/page-testing.ts";
import { startLiveServer } from "./live-server.ts";
import { SLICE_ROWS } from "./slices.ts";

const LONG_STEP_TURN = 3_000;

/** Turns of 1–5 tool calls in one step and a closing answer; turn 3,000 makes 3,000 calls in one step. */
function longRun(events: number): Session {
  const session = new Session({ clock: () => 1_787_616_000_000 });
  for (let turn = 1; session.events.length < events; turn++) appendTurn(session, turn);
  return session;
}

function appendTurn(session: Session, turn: number): void {
  session.append("turn/start", { turn });
  session.append("user/message", { content: `第 ${turn} 个问题 / question ${turn}` });
  session.append("step/start", { turn, step: 1 });
  const count = turn === LONG_STEP_TURN ? 3_000 : (turn % 5) + 1;
  const calls = Array.from({ length: count }, (_, i) => ({
    id: `call_${turn}_${i}`,
    name: "calculator",
    arguments: '{"expression":"1+1"}',
  }));
  session.append("assistant/message", { content: "", tool_calls: calls });
  for (const call of calls) session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
  for (const call of calls) session.append("tool/result", { call_id: call.id, content: "2", is_error: false });
  session.append("step/end", { turn, step: 1 });
  session.append("step/start", { turn, step: 2 });
  session.append("assistant/message", { content: `答案 ${turn}`, tool_calls: [] });
  session.append("step/end", { turn, step: 2 });
  session.append("turn/end", { turn, reason: "completed" });
}

// A window is 3 slices of at most about 2 × SLICE_ROWS lines each (slices.ts).
const MAX_DRAWN_EVENTS = 3 * (2 * SLICE_ROWS + 2);

/** The ids of the events drawn as lines of the timeline, in page order. */
const drawnIds = (page: Page) =>
  page
    .locator(".entries > .event, .step-events > .event")
    .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-event-id"))));
const elementCount = (page: Page) => page.evaluate(() => document.getElementsByTagName("*").length);
const onScreen = (page: Page, id: number) =>
  page.locator(`[data-event-id="${id}"]`).evaluate((node) => {
    const box = node.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  });

describe.skipIf(chromiumPath === undefined)(`the page of 100,000 events in Chromium ${browserSuite}`, () => {
  const session = longRun(100_000);
  const total = session.events.length;
  const turnStarts = session.events.filter((event) => event.type === "turn/start").map((event) => event.id);
  const lastTurnStart = turnStarts.at(-1) ?? 0;
  let browser: Browser;
  let page: Page;
  let watched: Awaited<ReturnType<typeof watchedPage>>;
  let file: string;
  test.beforeAll(async ({ fileDir }) => {
    browser = await launch();
    watched = await watchedPage(browser);
    page = watched.page;
    page.setDefaultNavigationTimeout(120_000); // a busy machine is slow; bench:page measures the time
    file = await openStaticPage(page, fileDir, session.events, "long-run");
  }, 180_000);
  afterAll(() => browser?.close());

  // The tests share the page opened once above (100,000 events take seconds to open): this first one looks
  // at it as it opened, so they run in the order written (vitest's own; --sequence.shuffle would break it).
  it("opens with a few slices drawn, not 100,000 events: a bounded number of elements, the rest a jump away", async () => {
    expect(await page.textContent("#summary")).toContain(`${total} events`);
    const ids = await drawnIds(page);
    expect(ids[0], "the window starts at the log's first event").toBe(0);
    expect(ids.length, `at most ${MAX_DRAWN_EVENTS} events drawn at once`).toBeLessThanOrEqual(MAX_DRAWN_EVENTS);
    expect(ids, "the events drawn are consecutive").toEqual(ids.map((_, i) => i));
    expect(await elementCount(page), "the page's elements, all of them").toBeLessThan(6_000);
    expect(await page.locator(".message").count()).toBeLessThanOrEqual(ids.length);
    expect(await page.isVisible("#window"), "the bar that moves the window shows").toBe(true);
    expect(await page.textContent("#window-range")).toContain(`of ${total.toLocaleString("en")}`);
    expect(watched.errors).toEqual([]);
  });

  it("scrolling down past the drawn events draws the next ones and drops the first; scrolling back up returns", async () => {
    await page.fill("#jump-to", "0");
    await page.press("#jump-to", "Enter");
    const before = await drawnIds(page);
    for (let i = 0; i < 20 && (await drawnIds(page))[0] === 0; i++) await page.mouse.wheel(0, 4_000);
    const after = await drawnIds(page);
    expect(after[0], "the first slice has been dropped").toBeGreaterThan(0);
    expect(after.at(-1), "later events are drawn").toBeGreaterThan(before.at(-1) ?? 0);
    expect(after.length).toBeLessThanOrEqual(MAX_DRAWN_EVENTS);
    for (let i = 0; i < 20 && (await drawnIds(page))[0] !== 0; i++) await page.mouse.wheel(0, -4_000);
    expect((await drawnIds(page))[0], "back at the first event").toBe(0);
  });

  it("the jump box draws any event and shows it: the last, the middle of a 3,000-call step, a turn halfway", async () => {
    const longStep = session.events.find((event) => event.type === "tool/result" && event.data.call_id === "call_3000_1500");
    for (const id of [total - 1, longStep?.id ?? -1, turnStarts[Math.floor(turnStarts.length / 2)] ?? -1]) {
      await page.fill("#jump-to", String(id));
      await page.press("#jump-to", "Enter");
      expect(await onScreen(page, id), `event #${id} is drawn and on screen`).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.getAttribute("data-event-id")), "and has the focus").toBe(String(id));
      expect((await drawnIds(page)).length).toBeLessThanOrEqual(MAX_DRAWN_EVENTS);
    }
  });

  it("going to #event-N, as a link or the address does, draws that event far away: while open, and on opening", async () => {
    await page.evaluate(() => {
      window.location.hash = "#event-77777";
    });
    await page.locator('[data-event-id="77777"]').waitFor();
    const { page: fresh } = await watchedPage(browser);
    fresh.setDefaultNavigationTimeout(120_000);
    await fresh.goto(`file://${file}#event-${lastTurnStart}`);
    expect(await onScreen(fresh, lastTurnStart), "opened at the event the address names").toBe(true);
    await fresh.close();
  }, 180_000); // it opens the page of 100,000 events a second time

  it("↓ past the last message drawn draws the next one and selects its event", async () => {
    await page.fill("#jump-to", "0");
    await page.press("#jump-to", "Enter");
    const indexes = await page
      .locator("[data-message-index]")
      .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-message-index"))));
    const last = indexes.at(-1) ?? 0;
    await page.focus(`[data-message-index="${last}"] .select-message`);
    await page.keyboard.press("Enter");
    await page.keyboard.press("ArrowDown");
    expect(await page.getAttribute(".message.selected", "data-message-index")).toBe(String(last + 1));
    const from = await page.getAttribute(".message.selected", "data-from-event");
    expect(await page.getAttribute(".event.selected", "data-event-id"), "its event, drawn and selected").toBe(from);
  });

  it("every turn can be reached: each press of the later button draws on from the last event drawn, to the end", async () => {
    // Walking the whole log would draw it all again (800 presses); instead each press is checked to
    // leave no gap: from the start, inside the 3,000-call step, and up to the end, where it gives out.
    const longStep = turnStarts[LONG_STEP_TURN - 1] ?? 0;
    const walks: [from: number, presses: number][] = [
      [0, 3],
      [longStep + 2_000, 3],
      [lastTurnStart - 300, 10],
    ];
    for (const [from, presses] of walks) {
      await page.fill("#jump-to", String(from));
      await page.press("#jump-to", "Enter");
      await page.focus("#later");
      for (let press = 0; press < presses && !(await page.isDisabled("#later")); press++) {
        const before = await drawnIds(page);
        await page.keyboard.press("Enter");
        const after = await drawnIds(page);
        expect(after[0], `press ${press} from #${from}: no event skipped`).toBeLessThanOrEqual((before.at(-1) ?? 0) + 1);
        expect(after.at(-1), `press ${press} from #${from}: later events drawn`).toBeGreaterThan(before.at(-1) ?? 0);
      }
    }
    expect(await page.isDisabled("#later"), "the button gives out at the end").toBe(true);
    expect((await drawnIds(page)).at(-1), "and the last event is drawn").toBe(total - 1);
    const end = await drawnIds(page);
    await page.focus("#earlier");
    await page.keyboard.press("Enter");
    const back = await drawnIds(page);
    expect(back.at(-1), "earlier: no event skipped going back either").toBeGreaterThanOrEqual((end[0] ?? 0) - 1);
    expect(back[0]).toBeLessThan(end[0] ?? 0);
    expect(watched.errors).toEqual([]);
  }, 180_000);

  it("a live page of a long run follows the newest events as they arrive, drawing no more than a window", async () => {
    const live = new Session();
    const server = await startLiveServer(live);
    const { page: watching, errors } = await watchedPage(browser, { allowedOrigin: new URL(server.url).origin });
    await watching.goto(server.url);
    await server.firstPage;
    for (let turn = 1; turn <= 60; turn++) appendTurn(live, turn);
    const last = live.events.length - 1;
    await watching.locator(`[data-event-id="${last}"]`).waitFor({ timeout: 60_000 });
    const ids = await drawnIds(watching);
    expect(ids[0], "the first events have given way to the newest").toBeGreaterThan(0);
    expect(ids.at(-1)).toBe(last);
    expect(ids.length).toBeLessThanOrEqual(MAX_DRAWN_EVENTS);
    await server.close();
    expect(errors.filter((error) => !/ERR_CONNECTION_REFUSED|event-stream/.test(error))).toEqual([]);
  }, 120_000);
});
