// Reading a log back (05.7) measured against the floor any reader pays: JSON.parse of each line of the
// same file. The log is 100,000 events, mostly streamed chunks (a reply is logged as hundreds of
// `assistant/chunk` events, then the assistant/message citing them), as a streamed run writes it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import { readLogFile } from "../../chapters/05-session-log/disk/log-file.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { median } from "./bench-lib.ts";

/** One turn of one streamed step whose reply came as `chunks` text chunks (bench-ratios.ts builds its log so too). */
export function streamedTurn(session: Session, turn: number, chunks: number): void {
  session.append("turn/start", { turn });
  session.append("user/message", { content: "讲讲事件溯源。" });
  session.append("request/header", { header: { model: "deepseek-flash", system: "You are helpful.", tools: [] }, reason: "initial" });
  session.append("step/start", { turn, step: 1 });
  const ids: number[] = [];
  for (let index = 0; index < chunks; index++) {
    ids.push(session.append("assistant/chunk", { turn, step: 1, attempt: 1, chunk: { kind: "text", text: `第 ${index} 段，` } }).id);
  }
  const content = Array.from({ length: chunks }, (_, index) => `第 ${index} 段，`).join("");
  session.append("assistant/message", { content, reasoning_content: null, tool_calls: [], chunk_ids: ids });
  session.append("step/end", { turn, step: 1 });
  session.append("turn/end", { turn, reason: "completed" });
}

export interface ReplayFigures {
  readonly events: number;
  readonly chunks: number;
  readonly bytes: number;
  readonly parseMs: number;
  readonly replayMs: number;
}

/** Median times of JSON.parse of every line, and of readLogFile (read, check, Session.fromLog), on one file. */
export function measureReplay(target = 100_000, chunksPerReply = 400): ReplayFigures {
  const session = new Session();
  for (let turn = 1; session.events.length < target; turn++) streamedTurn(session, turn, chunksPerReply);
  const events: readonly SessionEvent[] = session.events;
  const dir = mkdtempSync(path.join(tmpdir(), "bench-replay-"));
  const file = path.join(dir, "streamed.jsonl");
  try {
    writeFileSync(file, events.map((event) => `${JSON.stringify(event)}\n`).join(""));
    const parseMs = median(5, () => {
      for (const line of readFileSync(file, "utf8").split("\n")) if (line !== "") JSON.parse(line);
    });
    const replayMs = median(5, () => void readLogFile(file));
    const chunks = events.filter((event) => event.type === "assistant/chunk").length;
    return { events: events.length, chunks, bytes: readFileSync(file).length, parseMs, replayMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
