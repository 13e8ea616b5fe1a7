// The writer's promises beyond step 05.7's tests: chunks travel in groups but a message never reaches
// the file without its chunks; and a page never overwrites a log (output-file.ts). The faults that
// need a real process (a full file system, a second run, a SIGKILLed lock holder) are in disk-faults.test.ts.
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { z } from "zod";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { runAgent } from "../agent-loop.ts";
import { runInProcess } from "../testing/demo-testing.ts";
import { LogWriteError } from "./log-file-types.ts";
import { CHUNK_GROUP } from "./log-rows.ts";
import { attachLogFile } from "./log-writer.ts";
import { readLogFile } from "./log-reader.ts";
import { AgentRunError } from "../loop-types.ts";
import { refuseOutput } from "../demo/output-file.ts";
import { Session } from "../session.ts";
import { writeTimelinePage } from "../timeline/page.ts";

const chunk = (text: string) => ({ turn: 1, step: 1, attempt: 1, chunk: { kind: "text" as const, text } });

describe("chunks on disk: written in groups, never after the message they built", () => {
  test("after every append the file holds all but the last few chunk events: fewer than CHUNK_GROUP, and nothing else missing (property)", ({
    dir,
  }) => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant("chunk"), fc.constant("message")), { maxLength: 3 * CHUNK_GROUP }), (kinds) => {
        const file = path.join(dir, `run-${++run}.jsonl`);
        const session = new Session();
        const stop = attachLogFile(session, file);
        for (const [index, kind] of kinds.entries()) {
          if (kind === "chunk") session.append("assistant/chunk", chunk(`${index}`));
          else session.append("assistant/message", { content: "", reasoning_content: null, tool_calls: [] });
          const held = readLogFile(file).session.events; // packed rows unpacked: the events themselves
          expect(held, "the file holds the first events, exactly").toEqual(session.events.slice(0, held.length));
          const missing = session.events.slice(held.length);
          expect(
            missing.every((event) => event.type === "assistant/chunk"),
            "only chunks may wait",
          ).toBe(true);
          expect(missing.length).toBeLessThan(CHUNK_GROUP);
        }
        stop(); // the chunks still waiting are written when the writer stops
        expect(readLogFile(file).session.events).toEqual(session.events);
      }),
      { numRuns: 40 },
    );
  });

  test("a group is written together with the message that ends it, in one write: one packed row, then the message", ({ dir }) => {
    const file = path.join(dir, "group.jsonl");
    const session = new Session();
    const stop = attachLogFile(session, file);
    for (const text of ["1 + 2", " × 3", " = 7"]) session.append("assistant/chunk", chunk(text));
    expect(readFileSync(file, "utf8"), "three chunks wait for their group").toBe("");
    session.append("assistant/message", { content: "1 + 2 × 3 = 7", reasoning_content: null, tool_calls: [], chunk_ids: [0, 1, 2] });
    const [row, message, end] = readFileSync(file, "utf8").split("\n");
    expect(JSON.parse(row as string)).toMatchObject({
      packed: "assistant/chunk",
      id: 0,
      chunks: [{ text: "1 + 2" }, { text: " × 3" }, { text: " = 7" }],
    });
    expect(message).toBe(JSON.stringify(session.events[3]));
    expect(end, "the file ends with the message's newline").toBe("");
    expect(readLogFile(file).session.events).toEqual(session.events);
    stop();
  });
});

describe("a failed write stops the run before its next model call", () => {
  test("the writer's LogWriteError reaches onListenerError; aborting runAgent's signal there means no further model call", async ({
    dir,
  }) => {
    const file = path.join(dir, "run.jsonl");
    const lost = new AbortController();
    const session = new Session({ onListenerError: (error) => lost.abort(error) });
    attachLogFile(session, file);
    let calls = 0;
    const client = {
      model: "stand-in",
      chat: async () => {
        calls++;
        writeFileSync(file, "someone else's line\n", { flag: "a" }); // the file changes under the writer
        return { role: "assistant" as const, content: "", tool_calls: [{ id: "call_1", name: "echo", arguments: "{}" }] };
      },
    };
    const echo = { name: "echo", description: "says ok", schema: z.object({}), execute: () => "ok" };
    const run = runAgent({ client, tools: [echo], systemPrompt: "", userPrompt: "hi", session, signal: lost.signal });
    const error = await run.then(
      () => undefined,
      (rejected: unknown) => rejected,
    );
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).cause).toBeInstanceOf(LogWriteError);
    expect(calls, "the reply that could not be saved must not be followed by another model call").toBe(1);
    expect((lost.signal.reason as LogWriteError).written, "the file holds the events up to the first model call").toBe(4);
  });
});

describe("a page never overwrites a log (output-file.ts)", () => {
  test("refused: a log the run reads or writes, by its path or through a link, and any file that is not a page of ours", ({ dir }) => {
    const log = path.join(dir, "keep.jsonl");
    writeFileSync(log, '{"id":0}\n');
    symlinkSync(log, path.join(dir, "link.jsonl"));
    linkSync(log, path.join(dir, "hard.jsonl"));
    mkdirSync(path.join(dir, "folder"));
    expect(refuseOutput("--out", log, [log])).toContain("is a log this run reads or writes");
    expect(refuseOutput("--out", path.join(dir, "link.jsonl"), [log])).toContain("is a log this run reads or writes");
    expect(refuseOutput("--out", path.join(dir, "hard.jsonl"), [log])).toContain("is a log this run reads or writes");
    expect(refuseOutput("--html", path.join(dir, "new.jsonl"), [path.join(dir, "new.jsonl")]), "a --save file not made yet").toContain(
      "is a log",
    );
    symlinkSync(path.join(dir, "later.jsonl"), path.join(dir, "dangling.html")); // its log does not exist yet
    expect(refuseOutput("--html", path.join(dir, "dangling.html"), [path.join(dir, "later.jsonl")])).toContain("is a log");
    expect(refuseOutput("--out", log, [])).toContain("is not a timeline page this workbook wrote");
    // Not refused here: a folder is a path the system refuses, said by the write check (system-errors.test.ts).
    expect(refuseOutput("--out", path.join(dir, "folder"), [])).toBeUndefined();
  });

  test("allowed: a new file, and an earlier page of ours (pages are derived, so one may replace another)", ({ dir }) => {
    const page = writeTimelinePage([], path.join(dir, "page.html"));
    expect(refuseOutput("--out", path.join(dir, "new.html"), [])).toBeUndefined();
    expect(refuseOutput("--out", page, [])).toBeUndefined();
    writeFileSync(path.join(dir, "notes.html"), "<!doctype html>\n<html><p>my notes</p></html>");
    expect(refuseOutput("--out", path.join(dir, "notes.html"), [])).toContain("not a timeline page");
  });

  test("demo --save F --html F is a usage error (exit 2) and writes nothing", async ({ dir }) => {
    const file = path.join(dir, "same.jsonl");
    const { code, text } = await runInProcess(["--offline", "--save", file, "--html", file]);
    expect(code).toBe(2);
    expect(text).toContain("用法错误 / Usage error: --html");
    expect(() => readFileSync(file), "nothing written, not even the log").toThrow(/ENOENT/);
  });

  // view --load F --out F: demo/view.test.ts ("a page never overwrites the log it loads").
});
