// A large log made for real, for the large-log tests (disk/large-log.test.ts, disk/log-memory.test.ts)
// and `npm run bench` (scripts/bench/bench-disk.ts): what a long run of streamed replies leaves on disk.
import { closeSync, openSync, writeSync } from "node:fs";
import type { SessionEvent } from "../events.ts";
import { lineOf } from "../disk/jsonl.ts";
import { rowsOf } from "../disk/log-rows.ts";

/**
 * Writes a streamed run's log of about `mib` MiB to `file` (replies of 400 text chunks and a finish chunk,
 * each closed by its message and its step and turn ends: a log the loop could have left): one event per line, or `packed` as the chapter's writer saves it (its
 * chunks in rows of CHUNK_GROUP, log-rows.ts). Returns how many events.
 */
export function writeStreamedRunLog(file: string, mib: number, { packed = false } = {}): number {
  const fd = openSync(file, "w");
  let [id, bytes, events] = [0, 0, [] as SessionEvent[]];
  const put = (type: string, data: object) => events.push({ id: id++, type, ts: 1_764_660_000_000 + id, data } as SessionEvent);
  for (let turn = 1; bytes < mib * 2 ** 20; turn++) {
    put("turn/start", { turn });
    put("user/message", { content: "讲讲事件溯源。" });
    put("request/header", { header: { model: "deepseek-flash", system: "You are helpful.", tools: [] }, reason: "initial" });
    put("step/start", { turn, step: 1 });
    const first = id;
    const texts = Array.from({ length: 400 }, (_, index) => `第 ${index} 段，`);
    for (const text of texts) put("assistant/chunk", { turn, step: 1, attempt: 1, chunk: { kind: "text", text } });
    put("assistant/chunk", { turn, step: 1, attempt: 1, chunk: { kind: "finish", reason: "stop" } }); // the stream ended
    const chunk_ids = Array.from({ length: id - first }, (_, index) => first + index);
    put("assistant/message", { content: texts.join(""), reasoning_content: null, tool_calls: [], chunk_ids });
    put("step/end", { turn, step: 1 });
    put("turn/end", { turn, reason: "completed" });
    // A turn at a time: one write per 400 chunks, not per line.
    bytes += writeSync(fd, packed ? rowsOf(events) : Buffer.concat(events.map(lineOf)));
    events = [];
  }
  closeSync(fd);
  return id;
}
