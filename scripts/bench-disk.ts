// The log on disk with streamed replies (05.7's writer, chunk events from 05.8): how many chunk events
// a second the session takes alone and with the JSONL writer attached (a model sends at most ~200), and
// how many bytes a reply streamed as 2,000 chunks takes in the file. Run by `npm run bench`.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { attachLogFile } from "../chapters/05-session-log/disk/log-file.ts";
import { Session } from "../chapters/05-session-log/session.ts";
import { median } from "./bench-lib.ts";

const CHUNKS = 2_000; // one long reply
const REPLIES = 10;
// Token-sized deltas, as a model streams them: a character or a short word each.
const pieces = ["先", "算", "乘法", "，", " 2 × 3", " = 6", "，再", "加 1", "。", " The", " answer", " is", " 7", "."];

/** Streams REPLIES replies of CHUNKS chunk events each, every reply closed by its assistant/message. */
function streamReplies(session: Session): void {
  for (let reply = 1; reply <= REPLIES; reply++) {
    const first = session.events.length;
    for (let index = 0; index < CHUNKS; index++) {
      const text = pieces[index % pieces.length] as string;
      session.append("assistant/chunk", { turn: 1, step: reply, attempt: 1, chunk: { kind: "text", text } });
    }
    const chunkIds = Array.from({ length: CHUNKS }, (_, index) => first + index);
    session.append("assistant/message", { content: "…", reasoning_content: null, tool_calls: [], chunk_ids: chunkIds });
  }
}

export function diskRows(): [string, string][] {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-disk-"));
  try {
    const total = CHUNKS * REPLIES;
    streamReplies(new Session()); // warm the JIT up, so neither row is mostly compile time
    const alone = median(5, () => streamReplies(new Session()));
    let run = 0;
    const written = median(5, () => {
      const session = new Session();
      const stop = attachLogFile(session, path.join(dir, `run-${++run}.jsonl`));
      streamReplies(session);
      stop();
    });
    const perSecond = (ms: number) => `${Math.round((total / ms) * 1000).toLocaleString("en")} chunks/s`;
    // One reply on its own, the chunk events and the message: the file against one JSON line per event.
    const one = new Session();
    const file = path.join(dir, "one-reply.jsonl");
    const stop = attachLogFile(one, file);
    for (const text of Array.from({ length: CHUNKS }, (_, index) => pieces[index % pieces.length] as string)) {
      one.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: { kind: "text", text } });
    }
    stop();
    const lines = one.events.reduce((bytes, event) => bytes + Buffer.byteLength(`${JSON.stringify(event)}\n`), 0);
    const payload = one.events.reduce((bytes, event) => bytes + Buffer.byteLength(JSON.stringify(event.data.chunk)), 0);
    const size = statSync(file).size;
    return [
      [`append ${total.toLocaleString("en")} chunk events (${REPLIES} replies), no writer`, perSecond(alone)],
      [`the same with the JSONL writer attached (written in groups of ≤ 64, fsync with each message)`, perSecond(written)],
      [
        `file bytes for one reply of ${CHUNKS.toLocaleString("en")} chunks ÷ one JSON line per chunk`,
        `${(size / lines).toFixed(2)}× (${size.toLocaleString("en")} bytes; no packing: the chunks' own JSON is ${payload.toLocaleString("en")} of them)`,
      ],
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
