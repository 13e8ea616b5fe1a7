// The live server without a browser: what a page is sent, in which order, and from where on.
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../session.ts";
import { resumeFrom, startLiveServer, type LiveServer } from "./live-server.ts";

interface Message {
  readonly event: string;
  readonly id?: number;
  readonly data: string;
}

/** Follows /events like an EventSource would, one message at a time. */
async function follow(server: LiveServer, lastEventId?: string) {
  const response = await fetch(new URL("events", server.url), {
    headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId },
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (): Promise<Message | null> => {
    while (!buffer.includes("\n\n")) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) return null;
      buffer += chunk.value;
    }
    const [block = "", ...rest] = buffer.split("\n\n");
    buffer = rest.join("\n\n");
    const fields = new Map(block.split("\n").map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
    return {
      event: fields.get("event") ?? "message",
      ...(fields.has("id") ? { id: Number(fields.get("id")) } : {}),
      data: fields.get("data") ?? "",
    };
  };
  const ids = async (count: number) => {
    const got: (number | undefined)[] = [];
    for (let i = 0; i < count; i++) got.push((await next())?.id);
    return got;
  };
  return { status: response.status, next, ids };
}

function sessionWith(count: number): Session {
  const session = new Session({ clock: () => 1000 });
  for (let i = 0; i < count; i++) session.append("user/message", { content: `m${i}` });
  return session;
}

let server: LiveServer | undefined;
afterEach(() => server?.close());

describe("the live server pushes the log to each page in id order", () => {
  it("sends the log so far, then each event as it is committed, each under its id", async () => {
    const session = sessionWith(2);
    server = await startLiveServer(session);
    const page = await follow(server);
    await server.firstPage;
    expect(await page.ids(2)).toEqual([0, 1]);
    session.append("user/message", { content: "later" });
    const pushed = await page.next();
    expect(pushed).toEqual({ event: "message", id: 2, data: JSON.stringify(session.events[2]) });
  });

  it("an event appended by another subscriber during a delivery still arrives in order, once", async () => {
    const session = sessionWith(0);
    server = await startLiveServer(session);
    const page = await follow(server);
    await server.firstPage;
    session.subscribe((event) => {
      if (event.id === 0) session.append("user/message", { content: "appended by a listener" });
    });
    session.append("user/message", { content: "first" });
    session.append("user/message", { content: "third" });
    expect(await page.ids(3)).toEqual([0, 1, 2]);
  });

  it("finish() sends the end notice after the whole log, then stops serving", async () => {
    const session = sessionWith(3);
    server = await startLiveServer(session);
    const page = await follow(server);
    await server.finish();
    expect(await page.ids(3)).toEqual([0, 1, 2]);
    expect(await page.next()).toEqual({ event: "end", data: "{}" });
    expect(await page.next()).toBeNull();
    await expect(fetch(server.url)).rejects.toThrow(TypeError);
  });
});

describe("a reload or a reconnect gets the log without gaps or repeats", () => {
  it("a reconnect sending Last-Event-ID resumes right after it; a new page (no Last-Event-ID) gets everything", async () => {
    const session = sessionWith(4);
    server = await startLiveServer(session);
    expect(await (await follow(server, "1")).ids(2)).toEqual([2, 3]);
    expect(await (await follow(server)).ids(4)).toEqual([0, 1, 2, 3]);
  });

  it("refuses, with 409, a Last-Event-ID that is no event of this session (a page left open from an earlier run)", async () => {
    server = await startLiveServer(sessionWith(3));
    expect((await follow(server, "3")).status).toBe(409);
    expect((await follow(server, "x1")).status).toBe(409);
  });

  it("resumeFrom: no id → 0, a known id → the next one, anything else → null", () => {
    expect([resumeFrom(undefined, 5), resumeFrom("", 5), resumeFrom("0", 5), resumeFrom("4", 5)]).toEqual([0, 0, 1, 5]);
    expect([resumeFrom("5", 5), resumeFrom("-1", 5), resumeFrom("1.5", 5), resumeFrom("1e1", 20), resumeFrom(["1", "2"], 5)]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe("the live server stays on this machine", () => {
  it("listens on 127.0.0.1 and serves the live page, which follows /events", async () => {
    server = await startLiveServer(sessionWith(0), { source: "a test" });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(server.url);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain('<body data-live="/events">');
    expect(html).not.toContain('id="session-log"');
  });

  it("refuses a request whose Host is another site's (DNS rebinding), and paths it does not serve", async () => {
    server = await startLiveServer(sessionWith(0));
    const { port } = new URL(server.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/events", headers: { host: `attacker.example:${port}` } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      })
        .on("error", reject)
        .end();
    });
    expect(status).toBe(403);
    expect((await fetch(new URL("elsewhere", server.url))).status).toBe(404);
  });
});
