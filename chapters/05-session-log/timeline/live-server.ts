// The live timeline: a loopback HTTP server whose page follows the session as the loop runs. Each
// page gets the log through a session subscriber, as Server-Sent Events whose `id` is the event id:
// first everything logged so far, then each event as it is committed. A reload gets the whole log
// again; a dropped connection resumes after the Last-Event-ID the browser sends back.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SessionLog } from "../session-types.ts";
import { renderLivePage, type PageOptions } from "./page.ts";

export interface LiveServerOptions extends PageOptions {
  /** 0 (the default) lets the system pick a free port; `url` says which. */
  readonly port?: number;
}

export interface LiveServer {
  /** http://127.0.0.1:PORT/ — loopback only. */
  readonly url: string;
  /** Settles when the first page starts following the log, so a run can wait for someone to watch. */
  readonly firstPage: Promise<void>;
  /** Tells every page the log is complete, waits until each has been sent all of it, and stops. */
  finish(): Promise<void>;
  /** Stops at once (Ctrl-C): open streams are cut without the end notice. */
  close(): Promise<void>;
}

const HOST = "127.0.0.1";

export async function startLiveServer(session: SessionLog, options: LiveServerOptions = {}): Promise<LiveServer> {
  const streams = new Set<{ response: ServerResponse; flush: () => void }>();
  let firstPageSeen: () => void = () => undefined;
  const firstPage = new Promise<void>((resolve) => (firstPageSeen = resolve));
  let port = 0;

  const server = createServer((request, response) => {
    if (!fromLoopback(request, port)) return refuse(response, 403, "only http://127.0.0.1 pages may read this session");
    const { pathname } = new URL(request.url ?? "/", `http://${HOST}`);
    if (request.method !== "GET") return refuse(response, 405, "only GET");
    if (pathname === "/") return sendPage(response, options);
    if (pathname !== "/events") return refuse(response, 404, `nothing at ${pathname}`);
    const from = resumeFrom(request.headers["last-event-id"], session.events.length);
    if (from === null)
      return refuse(response, 409, "Last-Event-ID is not an event of this session (a page from an earlier run?): reload the page");
    const stream = follow(session, response, from);
    streams.add(stream);
    request.on("close", () => streams.delete(stream));
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
    url: `http://${HOST}:${port}/`,
    firstPage,
    async finish() {
      await Promise.all(
        [...streams].map(({ response, flush }) => {
          if (response.writableEnded || response.destroyed) return undefined; // that page has gone
          flush(); // a no-op normally: the subscriber has already sent every event
          return new Promise<void>((resolve) => response.end("event: end\ndata: {}\n\n", resolve));
        }),
      );
      await stop();
    },
    close: stop,
  };
}

/** Sends the log from event `from` on, then every event as it is committed, always in id order. */
function follow(session: SessionLog, response: ServerResponse, from: number): { response: ServerResponse; flush: () => void } {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" });
  response.flushHeaders(); // the page knows it is connected even while the log is still empty
  let next = from;
  // Each call sends whatever the log holds beyond what this page has, so nothing is sent twice or
  // skipped, whichever event triggered it (even one appended by another listener mid-delivery).
  const flush = (): void => {
    const events = session.events;
    for (; next < events.length; next++) response.write(`id: ${next}\ndata: ${JSON.stringify(events[next])}\n\n`);
  };
  flush();
  const unsubscribe = session.subscribe(flush);
  response.on("close", unsubscribe);
  return { response, flush };
}

/** The first id to send: 0 for a new page, one past Last-Event-ID for a reconnect; null if the id is not ours. */
export function resumeFrom(lastEventId: string | string[] | undefined, logLength: number): number | null {
  if (lastEventId === undefined || lastEventId === "") return 0;
  const text = Array.isArray(lastEventId) ? lastEventId.join(",") : lastEventId;
  const id = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(id) && id < logLength ? id + 1 : null;
}

/** A page served here has Host 127.0.0.1:PORT or localhost:PORT; any other is another site's (DNS rebinding). */
function fromLoopback(request: IncomingMessage, port: number): boolean {
  const host = request.headers.host ?? "";
  return host === `${HOST}:${port}` || host === `localhost:${port}`;
}

function sendPage(response: ServerResponse, options: PageOptions): void {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  response.end(renderLivePage("/events", options));
}

function refuse(response: ServerResponse, status: number, why: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  response.end(`${why}\n`);
}
