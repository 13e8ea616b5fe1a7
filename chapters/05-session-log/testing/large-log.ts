// A large log made for real, for the large-log tests (disk/large-log.test.ts) and `npm run bench`
// (scripts/bench/bench-disk.ts): what a long run of streamed replies leaves on disk.
import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Writes a streamed run's log of about `mib` MiB to `file`, one event per line as a saved run leaves it
 * (400-chunk replies, each closed by its message and its step and turn ends). Returns how many events.
 */
export function writeStreamedRunLog(file: string, mib: number): number {
  const fd = openSync(file, "w");
  let [id, bytes, lines] = [0, 0, [] as string[]];
  const put = (type: string, data: unknown) => lines.push(`${JSON.stringify({ id: id++, type, ts: 1_764_660_000_000 + id, data })}\n`);
  for (let turn = 1; bytes < mib * 2 ** 20; turn++) {
    put("turn/start", { turn });
    put("user/message", { content: "讲讲事件溯源。" });
    put("request/header", { header: { model: "deepseek-flash", system: "You are helpful.", tools: [] }, reason: "initial" });
    put("step/start", { turn, step: 1 });
    const first = id;
    const texts = Array.from({ length: 400 }, (_, index) => `第 ${index} 段，`);
    for (const text of texts) put("assistant/chunk", { turn, step: 1, attempt: 1, chunk: { kind: "text", text } });
    const chunk_ids = texts.map((_, index) => first + index);
    put("assistant/message", { content: texts.join(""), reasoning_content: null, tool_calls: [], chunk_ids });
    put("step/end", { turn, step: 1 });
    put("turn/end", { turn, reason: "completed" });
    bytes += writeSync(fd, lines.join("")); // a turn at a time: one write per 400 chunks, not per line
    lines = [];
  }
  closeSync(fd);
  return id;
}
