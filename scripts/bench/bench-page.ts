// How long the timeline page takes to open in Chromium: a static page (npm run view) for a large log,
// from navigation to the first frame painted once every event is folded and the first window drawn.
// Measured, never asserted; each figure comes with the load average it was taken at.
//   npm run bench:page [-- --events 100000 --kind chunks|calculator]
//   npm run bench:page -- --kind calculator --events 10000,40000,100000   (ordinary events, three sizes)
// `npm run bench` runs it too (100,000 events, mostly chunks) when a Chromium is installed.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { findChromium, launchChromium } from "../../chapters/05-session-log/timeline/chromium.ts";
import { writeTimelinePage } from "../../chapters/05-session-log/timeline/page.ts";
import type { Session } from "../../chapters/05-session-log/session.ts";
import { calculatorSession, loadNow, newSession } from "./bench-lib.ts";

/** `turns` streamed replies of `chunks` chunk events each (reasoning, then text): mostly chunks. */
function chunkySession(events: number, chunksPerReply = 1_000): Session {
  const session = newSession();
  for (let turn = 1; session.events.length < events; turn++) {
    session.append("turn/start", { turn });
    session.append("user/message", { content: "讲讲会话日志 / tell me about the session log" });
    session.append("step/start", { turn, step: 1 });
    const first = session.events.length;
    for (let i = 0; i < chunksPerReply; i++) {
      const kind = i < chunksPerReply / 2 ? "reasoning" : "text";
      session.append("assistant/chunk", { turn, step: 1, attempt: 1, chunk: { kind, text: `片段 ${i} ` } });
    }
    const ids = Array.from({ length: chunksPerReply }, (_, i) => first + i);
    session.append("assistant/message", { content: "…", reasoning_content: "…", tool_calls: [], chunk_ids: ids });
    session.append("step/end", { turn, step: 1 });
    session.append("turn/end", { turn, reason: "completed" });
  }
  return session;
}

/** Milliseconds from navigation until a frame is painted with all `count` events drawn. */
async function timePageOpen(session: Session, chromium: string): Promise<{ ms: number; bytes: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-page-"));
  const file = writeTimelinePage(session.events, path.join(dir, "page.html"));
  const browser = await launchChromium(chromium);
  try {
    const page = await browser.newPage();
    const count = session.events.length;
    await page.goto(`file://${file}`, { timeout: 600_000 });
    // The summary line says "N 条事件" once the last event is drawn (this works for any version of the page).
    await page.waitForFunction((n) => document.getElementById("summary")?.textContent?.startsWith(`${n} `), count, {
      timeout: 600_000,
      polling: 100,
    });
    const ms = await page.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now()))));
    return { ms, bytes: statSync(file).size };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

/** The rows `npm run bench` prints; none (and why) when there is no Chromium. */
export async function pageRows(events: number, kind: string): Promise<[string, string][]> {
  const chromium = findChromium();
  if (chromium === undefined) return [["static page in Chromium", "skipped: no Chromium (apt-get install chromium)"]];
  const session = kind === "calculator" ? calculatorSession(Math.ceil(events / 12)) : chunkySession(events);
  const load = loadNow(); // as the page starts to open
  const { ms, bytes } = await timePageOpen(session, chromium);
  const what = `static page of ${session.events.length.toLocaleString("en")} events (${kind === "calculator" ? "calculator turns" : "mostly chunks"}, ${(bytes / 2 ** 20).toFixed(1)} MiB) opens in Chromium`;
  return [[what, `${(ms / 1000).toFixed(2)} s (target ≤ 5 s; ${load})`]];
}

if (process.argv[1]?.endsWith("bench-page.ts")) {
  for (const events of option("--events", "100000").split(",")) {
    for (const [what, figure] of await pageRows(Number(events), option("--kind", "chunks"))) console.log(`| ${what} | ${figure} |`);
  }
}
