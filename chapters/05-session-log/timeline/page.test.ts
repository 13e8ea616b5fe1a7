// The page as text, before any browser: one self-contained file that carries its log intact.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test as it } from "../../common/temp-folder.ts";
import { Session } from "../session.ts";
import { renderLivePage, renderTimelinePage, timelinePageParts, writeTimelinePage } from "./page.ts";
import { embeddedLog } from "../testing/page-testing.ts";

function sessionSaying(...contents: string[]): Session {
  const session = new Session({ clock: () => 0 });
  for (const content of contents) session.append("user/message", { content });
  return session;
}

describe("the static page", () => {
  it("carries the log unchanged, even text that would close its <script> element", () => {
    const session = sessionSaying("</script><script>alert(1)</script>", "<!-- and a comment", "中文 \u2028 line separator 🙂");
    const html = renderTimelinePage(session.events);
    const carried = /<script type="application\/json" id="session-log">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    expect(carried, "the log as ASCII: a browser reads a large page several times faster").toMatch(/^[\x20-\x7e]*$/);
    expect(html.match(/<\/script>/g)?.length, "only the page's own two script elements close").toBe(2);
    expect(embeddedLog(html)).toEqual(session.events);
  });

  it("carries a log of several batches whole and in order, and an empty log as []; written, it is the page rendered", ({ dir }) => {
    const contents = Array.from({ length: 25_001 }, (_, index) => `第 ${index} 条 <`);
    const { events } = sessionSaying(...contents);
    const html = renderTimelinePage(events);
    expect(embeddedLog(html)).toEqual(events);
    expect(embeddedLog(renderTimelinePage([]))).toEqual([]);
    const file = path.join(dir, "page.html");
    writeTimelinePage(events, file);
    expect(readFileSync(file, "utf8"), "the pieces written one after another").toBe(html);
  });

  it("is made in pieces of at most 96 Ki characters, even around one message of 3 million (V8's longest string is 2^29)", () => {
    const long = "长".repeat(3 * 2 ** 20);
    const parts = [...timelinePageParts(sessionSaying("a", long, "b").events)];
    expect(Math.max(...parts.map((part) => part.length))).toBeLessThanOrEqual(6 * 2 ** 14);
    expect(embeddedLog(parts.join("")), "the log carried whole").toEqual(sessionSaying("a", long, "b").events);
  });

  it("loads nothing from anywhere: no src, no link, no CSS url(); its policy forbids any request", () => {
    const html = renderTimelinePage(sessionSaying("hi").events);
    expect(html).not.toMatch(/\ssrc=|<link|url\(|@import/);
    expect(html).toContain(`content="default-src 'none';`);
  });

  it("lets only its own script and style run: each named by its SHA-256 hash, never 'unsafe-inline'", () => {
    const html = renderTimelinePage(sessionSaying("hi").events);
    const policy = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? "";
    const script = /<script>(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    const style = /<style>(.*?)<\/style>/s.exec(html)?.[1] ?? "";
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    expect(policy).not.toContain("unsafe-inline");
    expect(policy).toContain(`script-src ${hash(script)};`);
    expect(policy).toContain(`style-src ${hash(style)};`);
  });

  it("escapes the source it names", () => {
    expect(renderTimelinePage([], { source: 'log "<b>x</b>"' })).toContain("log &#34;&#60;b&#62;x&#60;/b&#62;&#34;");
  });
});

describe("the live page", () => {
  it("is the same page without a log inside, pointed at the event stream", () => {
    const html = renderLivePage("events");
    expect(html).toContain('<body data-live="events">');
    expect(html).not.toContain('id="session-log"');
    expect(html.replace(' data-live="events"', "")).toBe(
      renderTimelinePage([]).replace(/<script type="application\/json".*?<\/script>/s, ""),
    );
  });
});
