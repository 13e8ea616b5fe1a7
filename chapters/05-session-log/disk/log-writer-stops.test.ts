// When the writer refuses to start or stops for good, and what it says: a file that is not this log
// (which way it is not), bytes it did not write, its lock taken, a write the disk refuses (a real size
// limit on this process), a partial line it cannot take back (a real append-only file); and what it
// flushes to disk, when. Real files, locks and limits, all in this process, where a mutant of the
// writer lives; the same faults met by the demo as a whole program are in disk-faults.test.ts.
import { execFileSync } from "node:child_process";
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { Session } from "../session.ts";
import { descriptorsOn, flushesDuring, hasPrlimit, withFileSizeLimit } from "../testing/real-faults.ts";
import { LogFileError, type LogMismatch, LogWriteError, NotThisLogError } from "./log-file-types.ts";
import { lockFolderOf, lockLogFile } from "./log-lock.ts";
import { readLogFile } from "./log-reader.ts";
import { CHUNK_GROUP, rowsOf } from "./log-rows.ts";
import { attachLogFile } from "./log-writer.ts";

const chunk = (text: string) => ({ turn: 1, step: 1, attempt: 1, chunk: { kind: "text" as const, text } });

/** A session of `count` user messages (or chunks), as a run logs them. */
function sessionOf(count: number, kind: "message" | "chunk" = "message"): Session {
  const session = new Session();
  for (let index = 0; index < count; index++) {
    if (kind === "chunk") session.append("assistant/chunk", chunk(`${index}`));
    else session.append("user/message", { content: `question ${index}` });
  }
  return session;
}

const fileHolding = (dir: string, content: string | Uint8Array) => {
  const file = path.join(dir, "run.jsonl");
  writeFileSync(file, content);
  return file;
};

describe("a file that is not this log is refused before a byte is written", () => {
  test("the refusal says how it differs, in its sentence and as data (for the Chinese sentence): more events than the session, only some of them, another event, a byte order mark before a later line", ({
    dir,
  }) => {
    const events = sessionOf(3).events;
    const [one = "", two = "", three = ""] = rowsOf(events)
      .toString("utf8")
      .split(/(?<=\n)/); // a line per event
    const cases: [string, string, Session, string, LogMismatch][] = [
      [
        "more events",
        one + two + three,
        Session.fromLog(events.slice(0, 2)),
        "the file holds more than this session's 2 events",
        { kind: "more", events: 2 },
      ],
      [
        "only some",
        one + two,
        Session.fromLog(events),
        "the file holds only 2 of this session's 3 events",
        { kind: "fewer", held: 2, events: 3 },
      ],
      [
        "another event",
        one + two.replace("question 1", "another"),
        Session.fromLog(events.slice(0, 2)),
        "line 2 of the file is not event #1",
        { kind: "line", line: 2, event: 1 },
      ],
      [
        "a BOM before line 2",
        `${one}\u{feff}${two}${three}`,
        Session.fromLog(events),
        "line 2 of the file is not event #1",
        { kind: "line", line: 2, event: 1 },
      ],
    ];
    for (const [name, text, session, why, mismatch] of cases) {
      const file = fileHolding(dir, text);
      const error = thrownAs(LogFileError, () => attachLogFile(session, file));
      expect(error.code, name).toBe("NOT_THIS_LOG");
      expect(error.message, name).toContain(`refusing to append: ${why}`);
      expect(error instanceof NotThisLogError && error.mismatch, name).toEqual(mismatch);
      expect(readFileSync(file, "utf8"), `${name}: left as it was`).toBe(text);
    }
  });

  test("a packed row holding more chunks than the session has is more events, not a line that differs", ({ dir }) => {
    const chunks = sessionOf(3, "chunk").events;
    const file = fileHolding(dir, rowsOf(chunks));
    expect(thrownAs(LogFileError, () => attachLogFile(Session.fromLog(chunks.slice(0, 2)), file)).message).toContain(
      "the file holds more than this session's 2 events",
    );
  });

  test("nothing is left open: the descriptor it read the file with is closed, and the lock released", ({ dir }) => {
    const file = fileHolding(dir, rowsOf(sessionOf(1).events));
    expect(thrownAs(LogFileError, () => attachLogFile(new Session(), file)).code).toBe("NOT_THIS_LOG");
    expect(descriptorsOn(file), "a refused file is closed again").toEqual([]);
    expect(() => lockLogFile(file)(), "a refused file is unlocked again").not.toThrow();
  });

  test("the writer's staleMs is its lock's: refused by a live holder, it says when that lock goes stale", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const release = lockLogFile(file);
    try {
      expect(thrownAs(LogFileError, () => attachLogFile(new Session(), file, { staleMs: 3000 })).message).toContain(
        "its lock goes stale 3 s after",
      );
    } finally {
      release();
    }
  });
});

describe("a writer stops for good when the file is no longer only this log's", () => {
  test("bytes after its last line, found when it stops: FILE_CHANGED with both sizes, never said saved", ({ dir }) => {
    const session = sessionOf(2);
    const file = path.join(dir, "run.jsonl");
    const stop = attachLogFile(session, file);
    const ours = statSync(file).size;
    appendFileSync(file, "someone else's line\n");
    const error = thrownAs(LogWriteError, () => stop());
    expect(error).toMatchObject({ code: "FILE_CHANGED", written: 2, firstLost: 2 });
    expect((error as Error).message).toContain(
      `the file has ${ours + 20} bytes, this writer wrote ${ours} (another writer is appending to it)`,
    );
  });

  test("its lock taken: LOCKED at the next write, the lock's own refusal as the cause, and nothing more written", async ({ dir }) => {
    const failures: unknown[] = [];
    const session = new Session({ onListenerError: (error) => failures.push(error) });
    const file = path.join(dir, "run.jsonl");
    const stop = attachLogFile(session, file);
    session.append("user/message", { content: "before" });
    rmSync(lockFolderOf(file), { recursive: true }); // as another process taking the lock over would leave it
    // The holder finds out when it next refreshes its lock, once a second: 10 s is more than enough.
    for (let tries = 0; failures.length === 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      session.append("user/message", { content: "after" });
    }
    const [error] = failures;
    expect(error).toBeInstanceOf(LogWriteError);
    expect(error).toMatchObject({ code: "LOCKED", written: session.events.length - 1 });
    expect((error as Error).message).toContain("this run's lock on the file was taken by another process");
    expect((error as Error).cause).toMatchObject({ name: "LogFileError", code: "LOCKED" });
    expect(readLogFile(file).session.events).toEqual(session.events.slice(0, -1));
    expect(stop, "stopped already: stopping again says nothing more").not.toThrow();
  }, 30_000);
});

describe.skipIf(!hasPrlimit)("a write the disk refuses (a real size limit on this process)", () => {
  test("the events logged before the writer came: WRITE_FAILED, none written, the partial line taken back, the lock released", ({
    dir,
  }) => {
    const session = sessionOf(3);
    const file = path.join(dir, "run.jsonl");
    const error = thrownAs(LogFileError, () => withFileSizeLimit(20, () => attachLogFile(session, file)));
    expect(error.code).toBe("WRITE_FAILED");
    expect(error.message).toMatch(/none of the 3 events logged so far could be written \(EFBIG: .*\); the partial line was taken back$/);
    expect(error.cause).toMatchObject({ code: "EFBIG" });
    expect(readFileSync(file).length, "taken back to the empty file it was").toBe(0);
    expect(() => lockLogFile(file)(), "unlocked again").not.toThrow();
  });

  test("a partial line that cannot be taken back (an append-only file) is said so: the reader will call it torn", ({ dir }) => {
    const failures: unknown[] = [];
    const session = new Session({ onListenerError: (error) => failures.push(error) });
    const file = path.join(dir, "run.jsonl");
    attachLogFile(session, file);
    session.append("user/message", { content: "whole" });
    const whole = statSync(file).size;
    execFileSync("chattr", ["+a", file]); // appends only: ftruncate is refused (EPERM), even to root
    try {
      withFileSizeLimit(whole + 10, () => session.append("user/message", { content: "x".repeat(100) }));
    } finally {
      execFileSync("chattr", ["-a", file]);
    }
    const [error] = failures;
    expect(error).toMatchObject({ code: "WRITE_FAILED", written: 1, firstLost: 1, cause: { code: "EFBIG" } });
    expect((error as Error).message).toMatch(
      /\(EFBIG: [^;]*; the partial line could not be taken back \(EPERM: [^)]*\): the reader will call it torn\)/,
    );
    expect(readLogFile(file).torn).toMatchObject({ line: 2, reason: "unterminated", bytes: 10 });
  });
});

describe("what is flushed to disk, and when", () => {
  test("a full group of chunks is written unflushed; the next event is flushed with it, and stopping flushes the chunks still waiting", ({
    dir,
  }) => {
    const session = new Session();
    const file = path.join(dir, "run.jsonl");
    const stop = attachLogFile(session, file);
    const { ino } = statSync(file);
    const group = flushesDuring(() => {
      for (let index = 0; index < CHUNK_GROUP; index++) session.append("assistant/chunk", chunk(`${index}`));
    });
    expect(readLogFile(file).session.events, "the group is in the file").toHaveLength(CHUNK_GROUP);
    expect(group, "a flush for every group of a long reply would cost more than the chunks are worth").toEqual([]);
    const message = flushesDuring(() => session.append("assistant/message", { content: "", reasoning_content: null, tool_calls: [] }));
    expect(message, "the message is flushed, and the group before it with it").toEqual([{ ino, size: statSync(file).size }]);
    session.append("assistant/chunk", chunk("cut short"));
    const stopped = flushesDuring(stop);
    expect(stopped, "the chunks of a reply cut short are flushed when the writer stops").toEqual([{ ino, size: statSync(file).size }]);
    expect(readLogFile(file).session.events).toEqual(session.events);
  });
});
