// The live timeline: a loopback HTTP server whose page follows the session as the loop runs. Each
// page gets the log through a session subscriber, as Server-Sent Events whose `id` names this run and
// the event: first everything logged so far, then each event as it is committed. A reload gets the
// whole log again; a dropped connection resumes after the Last-Event-ID the browser sends back.
// The page belongs to this run and to this user: the address holds a token no other page can guess,
// a request from another site's page (its Origin) is refused, and a page of another run is told so.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SessionLog } from "../session-types.ts";
import { pagePolicy, renderLivePage, type PageOptions } from "./page.ts";

export interface LiveServerOptions extends PageOptions {
  /** 0 (the default) lets the system pick a free port; `url` says which. */
  readonly port?: number;
  /** How long a page may leave what it was sent unread before it is dropped (default 10 s). */
  readonly stallMs?: number;
}

export interface LiveServer {
  /** http://127.0.0.1:PORT/TOKEN/ — loopback only; the token makes the address this run's alone. */
  readonly url: string;
  /** Settles when the first page starts following the log, so a run can wait for someone to watch. */
  readonly firstPage: Promise<void>;
  /** Pages following the log now, and the bytes written to them that they have not taken yet. */
  pages(): { readonly open: number; readonly unsent: number };
  /** Tells every page the log is complete, waits until each has been sent all of it (or dropped), and stops. */
  finish(): Promise<void>;
  /** Stops at once (Ctrl-C): open streams are cut without the end notice. */
  close(): Promise<void>;
}

const HOST = "127.0.0.1";

/** One page following the log: how far it has been sent, and how to send it more. */
interface Stream {
  readonly response: ServerResponse;
  flush: () => void;
  finishing: boolean;
}

export async function startLiveServer(session: SessionLog, options: LiveServerOptions = {}): Promise<LiveServer> {
  const streams = new Set<Stream>();
  let firstPageSeen: () => void = () => undefined;
  const firstPage = new Promise<void>((resolve) => (firstPageSeen = resolve));
  let port = 0;
  // The token proves a request comes from the page the terminal printed; the run id, sent back in
  // Last-Event-ID, tells this run's pages from a page left open on an earlier run.
  const token = randomBytes(18).toString("base64url");
  const run = randomBytes(6).toString("hex");

  const server = createServer((request, response) => {
    if (!fromLoopback(request, port)) return refuse(response, 403, "only http://127.0.0.1 pages may read this session");
    if (!fromOwnPage(request, port)) return refuse(response, 403, "another site's page may not read this session");
    if (request.method !== "GET") return refuse(response, 405, "only GET");
    const { pathname } = new URL(request.url ?? "/", `http://${HOST}`);
    if (pathname === `/${token}/`) return sendPage(response, options);
    if (/^\/[^/]+\/events$/.test(pathname) && pathname !== `/${token}/events`) return tellOtherRun(response);
    if (pathname !== `/${token}/events`) return refuse(response, 403, "open the address the terminal printed (it holds this run's token)");
    const from = resumeFrom(request.headers["last-event-id"], run, session.events.length);
    if (from === "other-run") return tellOtherRun(response);
    if (from === null)
      return refuse(response, 409, "Last-Event-ID is not an event of this session (a page from an earlier run?): reload the page");
    const stream = follow(session, response, { from, run, stallMs: options.stallMs ?? 10_000 });
    streams.add(stream);
    response.on("close", () => streams.delete(stream));
    firstPageSeen();
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port ?? 0, HOST, resolve));
  port = (server.address() as AddressInfo).port;

  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://${HOST}:${port}/${token}/`,
    firstPage,
    pages: () => ({ open: streams.size, unsent: [...streams].reduce((sum, { response }) => sum + response.writableLength, 0) }),
    async finish() {
      const ended = [...streams].map(({ response }) => new Promise<void>((resolve) => response.once("close", resolve)));
      for (const stream of streams) {
        stream.finishing = true;
        stream.flush(); // ends the stream once it has been sent everything
      }
      await Promise.all(ended);
      await stop();
    },
    close: stop,
  };
}

/**
 * Sends the log from event `from` on, then every event as it is committed, always in id order. It
 * writes only while the page takes what it is sent; a page that stops reading is waited for (never the
 * run: the subscriber returns at once) for `stallMs`, then dropped. So a page holds at most one
 * socket buffer of the log in memory, however long the log and however slow the page.
 */
function follow(session: SessionLog, response: ServerResponse, at: { from: number; run: string; stallMs: number }): Stream {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" });
  // Sent at once, so the page knows it is connected even while the log is still empty; and a dropped
  // page tries again after a second (the browser's default is about three).
  response.write("retry: 1000\n\n");
  let next = at.from;
  let stalled: NodeJS.Timeout | undefined;
  const stream: Stream = { response, flush: () => undefined, finishing: false };
  // Each call sends whatever the log holds beyond what this page has, so nothing is sent twice or
  // skipped, whichever event triggered it (even one appended by another listener mid-delivery).
  const flush = (): void => {
    if (stalled !== undefined || response.writableEnded || response.destroyed) return; // waiting for "drain"
    const events = session.events;
    while (next < events.length) {
      const taken = response.write(`id: ${at.run}:${next}\ndata: ${JSON.stringify(events[next])}\n\n`);
      next++;
      if (!taken) {
        stalled = setTimeout(() => response.destroy(), at.stallMs); // a page that never reads is dropped
        response.once("drain", () => {
          clearTimeout(stalled);
          stalled = undefined;
          flush();
        });
        return;
      }
    }
    if (stream.finishing) response.end("event: end\ndata: {}\n\n");
  };
  stream.flush = flush;
  flush();
  const unsubscribe = session.subscribe(flush);
  response.on("close", () => {
    unsubscribe();
    clearTimeout(stalled);
  });
  return stream;
}

/**
 * The first id to send: 0 for a new page, one past Last-Event-ID (`RUN:ID`) for a reconnect;
 * "other-run" when the id names another run; null when it is no event of this one.
 */
export function resumeFrom(lastEventId: string | string[] | undefined, run: string, logLength: number): number | "other-run" | null {
  if (lastEventId === undefined || lastEventId === "") return 0;
  const text = Array.isArray(lastEventId) ? lastEventId.join(",") : lastEventId;
  const match = /^([0-9a-f]+):(\d+)$/.exec(text);
  if (match !== null && match[1] !== run) return "other-run";
  const id = match === null ? Number.NaN : Number(match[2]);
  return Number.isSafeInteger(id) && id < logLength ? id + 1 : null;
}

/** A page served here has Host 127.0.0.1:PORT or localhost:PORT; any other is another site's (DNS rebinding). */
function fromLoopback(request: IncomingMessage, port: number): boolean {
  const host = request.headers.host ?? "";
  return host === `${HOST}:${port}` || host === `localhost:${port}`;
}

/**
 * A browser names the page behind a cross-origin request in `Origin` (an EventSource from another
 * site's page included); our own page's requests carry none, or ours. Any other Origin is refused.
 */
function fromOwnPage(request: IncomingMessage, port: number): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin === `http://${HOST}:${port}` || origin === `http://localhost:${port}`;
}

/** An event stream with one message: this page belongs to another run (it stops and says so). */
function tellOtherRun(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" });
  response.end("event: other-run\ndata: {}\n\n");
}

function sendPage(response: ServerResponse, options: PageOptions): void {
  const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" };
  response.writeHead(200, { ...headers, "content-security-policy": `${pagePolicy()}; frame-ancestors 'none'` });
  response.end(renderLivePage("events", options));
}

function refuse(response: ServerResponse, status: number, why: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  response.end(`${why}\n`);
}
