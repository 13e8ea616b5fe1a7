// Packed chunk rows (log-rows.ts) keep every promise of the log on disk: the same events come back, the
// file stays one JSON value per line (jq reads it), a torn or damaged row is told by its line, a writer
// goes on only after the very bytes it would write, and a killed process loses only the group waiting.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { root } from "../../common/root.ts";
import { startProgram } from "../testing/demo-testing.ts";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { LogFileError } from "./log-file-types.ts";
import { closingEvents, readLogFile } from "./log-file.ts";
import { CHUNK_GROUP } from "./log-rows.ts";
import { attachLogFile } from "./log-writer.ts";
import { lockFolderOf } from "./log-lock.ts";

const jsonl = (events: readonly SessionEvent[]) => events.map((event) => `${JSON.stringify(event)}\n`).join("");
const text = (turn: number, step: number, attempt: number, piece: string) => ({
  turn,
  step,
  attempt,
  chunk: { kind: "text" as const, text: piece },
});

const HEADER = { model: "deepseek-flash", system: "You are helpful.", tools: [] };

/** A streamed step as the loop logs it: the turn opens, the reply streams `chunks` chunks; `answer` closes it all. */
function streamedStep(session: Session, chunks: number, answer = true): void {
  session.append("turn/start", { turn: 1 });
  session.append("user/message", { content: "算一下 1 + 2 × 3" });
  session.append("request/header", { header: HEADER, reason: "initial" });
  session.append("step/start", { turn: 1, step: 1 });
  const ids = Array.from({ length: chunks }, (_, index) => session.append("assistant/chunk", text(1, 1, 1, `第 ${index} 段，`)).id);
  if (!answer) return;
  const content = Array.from({ length: chunks }, (_, index) => `第 ${index} 段，`).join("");
  session.append("assistant/message", { content, reasoning_content: null, tool_calls: [], chunk_ids: ids });
  session.append("step/end", { turn: 1, step: 1 });
  session.append("turn/end", { turn: 1, reason: "completed" });
}

function saved(dir: string, chunks: number): { file: string; session: Session } {
  const file = path.join(dir, "run.jsonl");
  const session = new Session();
  const stop = attachLogFile(session, file);
  streamedStep(session, chunks);
  stop();
  return { file, session };
}

describe("packed rows: smaller, and the very same events", () => {
  test("a 2,000-chunk reply takes at most half the bytes of one line per event, and reads back as the same events", ({ dir }) => {
    const { file, session } = saved(dir, 2_000);
    const plain = Buffer.byteLength(jsonl(session.events));
    expect(statSync(file).size / plain, "packed bytes ÷ one line per event").toBeLessThanOrEqual(0.5);
    const loaded = readLogFile(file);
    expect(loaded.torn).toBeUndefined();
    expect(loaded.session.events, "same ids, timestamps and data, key order included").toEqual(session.events);
    expect(jsonl(loaded.session.events), "byte for byte what one line per event would hold").toBe(jsonl(session.events));
  });

  test("each line is one JSON value: jq reads the file, a row of CHUNK_GROUP chunks at most", ({ dir }) => {
    const { file } = saved(dir, 200);
    const counts = execFileSync("jq", ["-c", "if .packed then (.chunks | length) else 1 end", file], { encoding: "utf8" });
    const perLine = counts.trim().split("\n").map(Number);
    expect(perLine.reduce((sum, count) => sum + count, 0)).toBe(207);
    expect(Math.max(...perLine)).toBe(CHUNK_GROUP);
  });

  test("only chunks of one attempt share a row; an unusual chunk event is written as its own line, whole", ({ dir }) => {
    const file = path.join(dir, "mixed.jsonl");
    const session = new Session();
    const stop = attachLogFile(session, file);
    session.append("assistant/chunk", text(1, 1, 1, "a"));
    session.append("assistant/chunk", text(1, 1, 1, "b"));
    session.append("assistant/chunk", text(1, 1, 2, "c")); // a retry: a new row
    session.append("assistant/chunk", text(1, 1, 2, "d"));
    session.append("assistant/chunk", text(1, 1, 3, "e")); // alone: one event, one line
    stop();
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { packed?: string }).packed ?? "event")).toEqual([
      "assistant/chunk",
      "assistant/chunk",
      "event",
    ]);
    expect(lines[2]).toBe(JSON.stringify(session.events[4]));
    expect(readLogFile(file).session.events).toEqual(session.events);
  });
});

describe("packed rows keep the reader's promises", () => {
  test("a packed row cut short at the end (a crash mid-write) is torn: its chunks dropped, everything before kept, repair closes the turn", ({
    dir,
  }) => {
    const { file, session } = saved(dir, 100); // rows of 64 + 36 chunks, then the message and the turn's end
    const lines = readFileSync(file, "utf8").split("\n"); // turn/start, user/message, request/header, step/start, then the first row
    const rowStart = Buffer.byteLength(lines.slice(0, 4).join("\n")) + 1;
    truncateSync(file, rowStart + 100); // the first 100 bytes of the row reached the disk, the rest did not
    const loaded = readLogFile(file);
    expect(loaded.torn).toEqual({ line: 5, reason: "unterminated", bytes: 100 });
    expect(loaded.session.events).toEqual(session.events.slice(0, 4));
    expect(closingEvents(loaded.session.events).map(({ type }) => type)).toEqual(["step/end", "turn/end"]);
  });

  test("a damaged packed row before the last line is BAD_LINE with its line number, never skipped", ({ dir }) => {
    const { file } = saved(dir, 100);
    const lines = readFileSync(file, "utf8").split("\n");
    lines[4] = (lines[4] as string).replace('"dt":[', '"dt":"'); // no longer JSON: a damaged row, with lines after it
    writeFileSync(file, lines.join("\n"));
    const error = (() => {
      try {
        return readLogFile(file);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(LogFileError);
    expect(error).toMatchObject({ code: "BAD_LINE", line: 5 });
  });

  test("a row of the wrong shape is damaged, not torn, even as the last line; a chunk replay refuses names its row's line", ({ dir }) => {
    const { file } = saved(dir, 100);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const row = JSON.parse(lines[5] as string) as { dt: number[]; chunks: unknown[] };
    const shortDt = JSON.stringify({ ...row, dt: row.dt.slice(1) });
    writeFileSync(file, `${[...lines.slice(0, 5), shortDt].join("\n")}\n`);
    expect(() => readLogFile(file)).toThrow(expect.objectContaining({ code: "BAD_LINE", line: 6 }));
    const badChunk = JSON.stringify({ ...row, chunks: row.chunks.map((chunk, index) => (index === 7 ? { kind: "nope" } : chunk)) });
    writeFileSync(file, `${[...lines.slice(0, 5), badChunk, ...lines.slice(6)].join("\n")}\n`);
    expect(() => readLogFile(file)).toThrow(expect.objectContaining({ code: "REPLAY", line: 6 }));
  });
});

describe("packed rows keep the writer's promises", () => {
  test("a writer goes on with a packed file it could have written, and with one event per line (a learner's 05.7 writer)", ({ dir }) => {
    const { file, session } = saved(dir, 100);
    const loaded = readLogFile(file).session;
    const stop = attachLogFile(loaded, file);
    loaded.append("turn/start", { turn: 2 });
    stop();
    expect(readLogFile(file).session.events).toEqual([...session.events, loaded.events.at(-1)]);
    const plain = path.join(dir, "plain.jsonl");
    writeFileSync(plain, jsonl(session.events));
    const again = readLogFile(plain).session;
    expect(() => attachLogFile(again, plain)()).not.toThrow();
  });

  test("a file whose rows hold other events, or are torn, is NOT_THIS_LOG and is left as it was", ({ dir }) => {
    const { file, session } = saved(dir, 100);
    const before = readFileSync(file);
    const other = new Session();
    streamedStep(other, 99); // one chunk fewer: the second row differs
    expect(() => attachLogFile(other, file)).toThrow(expect.objectContaining({ code: "NOT_THIS_LOG" }));
    truncateSync(file, before.length - 3);
    expect(() => attachLogFile(session, file)).toThrow(expect.objectContaining({ code: "NOT_THIS_LOG" }));
    expect(readFileSync(file)).toEqual(before.subarray(0, before.length - 3));
  });

  test("a process killed mid-reply (SIGKILL) loses only the chunks still waiting for their group: fewer than CHUNK_GROUP", {
    timeout: 60_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "killed.jsonl");
    const script = path.join(dir, "stream.ts");
    const chunks = 3 * CHUNK_GROUP + 10;
    writeFileSync(
      script,
      [
        `import { Session } from ${JSON.stringify(path.join(root, "chapters/05-session-log/session.ts"))};`,
        `import { attachLogFile } from ${JSON.stringify(path.join(root, "chapters/05-session-log/disk/log-writer.ts"))};`,
        "const session = new Session();",
        `attachLogFile(session, ${JSON.stringify(file)});`,
        `session.append("turn/start", { turn: 1 });`,
        `session.append("user/message", { content: "算一下 1 + 2 × 3" });`,
        `session.append("request/header", { header: ${JSON.stringify(HEADER)}, reason: "initial" });`,
        `session.append("step/start", { turn: 1, step: 1 });`,
        `for (let i = 0; i < ${chunks}; i++) session.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: { kind: "text", text: "第 " + i + " 段，" } });`,
        `console.log("streamed");`,
        "setInterval(() => {}, 1000); // still streaming when it is killed",
      ].join("\n"),
    );
    const writer = startProgram([script]);
    await writer.printed("streamed");
    writer.child.kill("SIGKILL");
    await writer.exited;
    const lock = lockFolderOf(file); // the killed writer's, which nothing else would remove
    onTestFinished(() => rmSync(lock, { recursive: true, force: true }));
    const loaded = readLogFile(file);
    expect(loaded.torn, "every row reached the file whole").toBeUndefined();
    const kept = loaded.session.events.filter((event) => event.type === "assistant/chunk").length;
    expect(kept).toBe(3 * CHUNK_GROUP);
    expect(chunks - kept).toBeLessThan(CHUNK_GROUP);
    const closing = closingEvents(loaded.session.events);
    expect(closing.map(({ type }) => type)).toEqual(["assistant/message", "step/end", "turn/end"]);
    expect(closing[0]?.data).toMatchObject({ interrupted: true, chunk_ids: loaded.session.events.slice(4).map(({ id }) => id) });
  });
});
