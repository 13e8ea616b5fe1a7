// The live server without a browser: what a page is sent, in which order, and from where on.
import { request } from "node:http";
import { connect } from "node:net";
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
  const nextBlock = async (): Promise<string> => {
    while (!buffer.includes("\n\n")) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) return "";
      buffer += chunk.value;
    }
    const [block = "", ...rest] = buffer.split("\n\n");
    buffer = rest.join("\n\n");
    return block.startsWith("retry: ") ? nextBlock() : block; // how soon to reconnect: not a message
  };
  const next = async (): Promise<Message | null> => {
    const block = await nextBlock();
    if (block === "") return null;
    const fields = new Map(block.split("\n").map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
    return {
      event: fields.get("event") ?? "message",
      // The id is RUN:EVENT; the tests read the event part (the run part is tested on its own).
      ...(fields.has("id") ? { id: Number(fields.get("id")?.split(":")[1]) } : {}),
      data: fields.get("data") ?? "",
    };
  };
  const rawIds = async (count: number) => {
    const got: string[] = [];
    for (let i = 0; i < count; i++) got.push(/^id: (.*)$/m.exec(await nextBlock())?.[1] ?? "");
    return got;
  };
  const ids = async (count: number) => {
    const got: (number | undefined)[] = [];
    for (let i = 0; i < count; i++) got.push((await next())?.id);
    return got;
  };
  return { status: response.status, next, ids, rawIds };
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
  it("names each event RUN:ID; a reconnect sending that back resumes right after it; a new page gets everything", async () => {
    const session = sessionWith(4);
    server = await startLiveServer(session);
    const ids = await (await follow(server)).rawIds(4);
    const run = ids[0]?.split(":")[0] ?? "";
    expect(ids, "one run id, then the event id").toEqual([0, 1, 2, 3].map((id) => `${run}:${id}`));
    expect(await (await follow(server, `${run}:1`)).ids(2)).toEqual([2, 3]);
    expect(await (await follow(server)).ids(4)).toEqual([0, 1, 2, 3]);
  });

  it("tells a page that resumes from another run's event that it belongs to another run, and sends it nothing", async () => {
    const session = sessionWith(5);
    server = await startLiveServer(session);
    // A page of an earlier run on this port had seen events up to #3 of that run.
    const stale = await follow(server, "0123abcd:3");
    expect([stale.status, await stale.next(), await stale.next()]).toEqual([200, { event: "other-run", data: "{}" }, null]);
  });

  it("refuses, with 409, a Last-Event-ID of this run that is no event of it", async () => {
    server = await startLiveServer(sessionWith(3));
    const run = (await (await follow(server)).rawIds(1))[0]?.split(":")[0];
    expect((await follow(server, `${run}:3`)).status).toBe(409);
    expect((await follow(server, "x1")).status).toBe(409);
  });

  it("resumeFrom: no id → 0, RUN:ID of this run → the next one, another run → other-run, anything else → null", () => {
    expect([resumeFrom(undefined, "ab", 5), resumeFrom("", "ab", 5), resumeFrom("ab:0", "ab", 5), resumeFrom("ab:4", "ab", 5)]).toEqual([
      0, 0, 1, 5,
    ]);
    expect([resumeFrom("cd:1", "ab", 5), resumeFrom("ab:5", "ab", 5), resumeFrom("1", "ab", 5), resumeFrom("ab:-1", "ab", 5)]).toEqual([
      "other-run",
      null,
      null,
      null,
    ]);
    expect([resumeFrom("ab:1.5", "ab", 5), resumeFrom("ab:1e1", "ab", 20), resumeFrom(["ab:1", "ab:2"], "ab", 5)]).toEqual([
      null,
      null,
      null,
    ]);
  });
});

/** A GET from this machine with the headers given, answered with its status and body. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number | undefined; body: string }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port, path: pathname, headers }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("the live server stays on this machine, with this run's page", () => {
  it("listens on 127.0.0.1 under an unguessable token, and serves the live page, which follows the token's events", async () => {
    server = await startLiveServer(sessionWith(0), { source: "a test" });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{24}\/$/);
    const page = await fetch(server.url);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain('<body data-live="events">');
    expect(html).not.toContain('id="session-log"');
    const other = await startLiveServer(sessionWith(0));
    expect(new URL(other.url).pathname, "each run its own token").not.toBe(new URL(server.url).pathname);
    await other.close();
  });

  it("refuses (403) every request without the token: the page, the events, anything else", async () => {
    server = await startLiveServer(sessionWith(1));
    const { origin } = new URL(server.url);
    for (const path of ["/", "/events", "/elsewhere", "/x/"]) {
      const { status, body } = await get(`${origin}${path}`);
      expect([path, status], "no token, no page and no events").toEqual([path, 403]);
      expect(body).toMatch(/address the terminal printed/);
    }
  });

  it("refuses (403) a request from another site's page (its Origin), even with the token; our own Origin passes", async () => {
    server = await startLiveServer(sessionWith(1));
    const events = new URL("events", server.url).href;
    expect((await get(events, { origin: "https://attacker.example" })).status).toBe(403);
    expect((await get(events, { origin: "null" })).status, "a file:// or sandboxed page").toBe(403);
    expect((await get(server.url, { origin: new URL(server.url).origin })).status).toBe(200);
  });

  it("refuses a request whose Host is another site's (DNS rebinding)", async () => {
    server = await startLiveServer(sessionWith(0));
    const { port } = new URL(server.url);
    expect((await get(server.url, { host: `attacker.example:${port}` })).status).toBe(403);
  });

  it("sends the page's Content-Security-Policy as a header: the page's own script by hash, no 'unsafe-inline'", async () => {
    server = await startLiveServer(sessionWith(0));
    const policy = (await fetch(server.url)).headers.get("content-security-policy") ?? "";
    const scripts = /script-src ([^;]*)/.exec(policy)?.[1] ?? "";
    expect(scripts).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(policy).not.toContain("unsafe-inline");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
  });
});

describe("a page that stops reading is dropped; the run never waits on it", () => {
  it("a socket that connects and never reads holds at most a socket buffer of the log, and is dropped after stallMs", async () => {
    const session = sessionWith(0);
    server = await startLiveServer(session, { stallMs: 300 });
    const { port, pathname } = new URL(server.url);
    const socket = connect({ host: "127.0.0.1", port: Number(port) });
    socket.write(`GET ${pathname}events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    socket.pause(); // it never reads a byte
    await server.firstPage;
    const big = "x".repeat(10_000);
    for (let i = 0; i < 2_000; i++) session.append("user/message", { content: big }); // 20 MB of log
    expect(server.pages().open).toBe(1);
    expect(server.pages().unsent, "what waits in memory for the stalled page").toBeLessThan(256 * 1024);
    const waited = new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error("finish() still waits for the stalled page after 5 s: drop a page that does not read within stallMs")),
        5_000,
      ),
    );
    await Promise.race([server.finish(), waited]); // the stalled page is dropped, not waited for
    expect(server.pages()).toEqual({ open: 0, unsent: 0 });
    socket.destroy();
  });
});
