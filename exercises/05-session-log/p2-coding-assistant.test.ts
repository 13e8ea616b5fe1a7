// Step p2 — 练习2: a coding assistant's inspection and UI events. They are logged, checked and
// replayed like any other event, and never reach the model.
// These tests build sessions with the chapter's Session (not your exercises/…/session.ts), so the
// book's 练习 can be done before, after or without your own steps 05.1–05.5.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { EventDataError } from "../../chapters/05-session-log/event-schemas.ts";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import { deriveEventMessage } from "../../chapters/05-session-log/projection.ts";
import { ReplayError } from "../../chapters/05-session-log/session-types.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { codingAssistantSchemas, recordDiffPreview, recordFileRead } from "./coding-assistant.ts";
import { chapterRunArb, input, sessionOf, storedCopy, tickingClock, type EventInput } from "./practice-runs.ts";
import { thrownAs } from "./thrown.ts";

const schemas = codingAssistantSchemas;

function newSession(): Session {
  return new Session({ clock: tickingClock(), schemas });
}

const text = "héllo, 世界\n"; // 10 UTF-16 units, 15 UTF-8 bytes
const textSha256 = "6285df29f977dee8d6192320bdf2c11c5357ec0fa32272b31349a6d2ed1988cf";
const diff = "--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-let x = 1;\n+const x = 1;\n";

/** A short coding-assistant run: the user asks, the model reads a file with a tool, then answers. */
const readCall = { id: "call_read", name: "read_file", arguments: '{"path":"src/app.ts"}' };
const codingRun: readonly EventInput[] = [
  input("turn/start", { turn: 1 }),
  input("user/message", { content: "把 let 改成 const" }),
  input("request/header", {
    header: { model: "deepseek-flash", system: "你是编程助手。", tools: [] },
    reason: "initial",
  }),
  input("step/start", { turn: 1, step: 1 }),
  input("assistant/message", { content: "", reasoning_content: "先读文件。", tool_calls: [readCall] }),
  input("tool/call", { call_id: readCall.id, name: readCall.name, arguments: readCall.arguments }),
  input("tool/result", { call_id: readCall.id, content: text, is_error: false }),
  input("step/end", { turn: 1, step: 1 }),
  input("step/start", { turn: 1, step: 2 }),
  input("assistant/message", { content: "改好了。", reasoning_content: null, tool_calls: [] }),
  input("step/end", { turn: 1, step: 2 }),
  input("turn/end", { turn: 1, reason: "completed" }),
];

/** The same run with the two new events where a coding assistant would write them. */
function codingRunWithInspection(): Session {
  const session = newSession();
  codingRun.forEach(({ type, data }, index) => {
    session.append(type, data);
    if (index === 6) recordFileRead(session, "src/app.ts", text); // right after the read tool's result
    if (index === 9) recordDiffPreview(session, "src/app.ts", diff); // the UI shows the edit
  });
  return session;
}

describe("p2 recording the coding assistant's events (练习2)", () => {
  test("recordDiffPreview appends one ui/diff-preview event with the path and the diff", () => {
    const session = newSession();
    const event = recordDiffPreview(session, "src/app.ts", diff);
    expect(session.events, "exactly one event, nothing beside it").toEqual([event]);
    expect(event).toMatchObject({ id: 0, type: "ui/diff-preview", data: { path: "src/app.ts", diff } });
    expect(Object.isFrozen(event.data), "it went through append, so it is frozen").toBe(true);
  });

  test("recordFileRead logs the UTF-8 byte count and the SHA-256 of a string, never its content", () => {
    const session = newSession();
    const event = recordFileRead(session, "src/app.ts", text);
    expect(session.events, "exactly one event, nothing beside it").toEqual([event]);
    expect(event.type).toBe("inspect/file-read");
    expect(event.data, "bytes counts UTF-8 bytes (15), not string length (10); no content key").toEqual({
      path: "src/app.ts",
      bytes: 15,
      sha256: textSha256,
    });
  });

  test("recordFileRead hashes raw bytes as they are", () => {
    const session = newSession();
    const event = recordFileRead(session, "logo.png", new Uint8Array([0, 255, 16]));
    expect(event.data).toEqual({
      path: "logo.png",
      bytes: 3,
      sha256: "2da45f2cd1f9c8e69a67abf7a6b26c282533d0a7686787a9533265418680d4d2",
    });
  });
});

describe("p2 the new events never reach the model (练习2)", () => {
  test("neither type becomes a message: the projection turns each into null", () => {
    const session = newSession();
    const events = [recordFileRead(session, "a.ts", "x"), recordDiffPreview(session, "a.ts", diff)];
    for (const event of events) {
      expect(deriveEventMessage(event), `${event.type} must stay in the log only`).toBeNull();
    }
  });

  test("a run with a file read and a diff preview derives the same 4 messages as the plain run", () => {
    const withInspection = codingRunWithInspection();
    expect(withInspection.events.map((event) => event.type)).toContain("inspect/file-read");
    expect(withInspection.events.map((event) => event.type)).toContain("ui/diff-preview");
    expect(withInspection.deriveMessages()).toEqual(sessionOf(codingRun).deriveMessages());
    expect(withInspection.deriveMessages()).toHaveLength(4);
  });

  const uiEventArb = fc.oneof(
    fc.record({ kind: fc.constant("diff" as const), path: fc.string({ minLength: 1 }), body: fc.string() }),
    fc.record({ kind: fc.constant("read" as const), path: fc.string({ minLength: 1 }), body: fc.string() }),
  );
  const insertionsArb = fc.array(fc.record({ at: fc.nat(), event: uiEventArb }), { maxLength: 8 });

  test("any number of them, anywhere in a random run, leave deriveMessages() deep-equal", () => {
    fc.assert(
      fc.property(chapterRunArb, insertionsArb, (run, insertions) => {
        const session = newSession();
        // Slot k means "after the k-th event of the run" (0 = before the first).
        const bySlot = (slot: number) => insertions.filter(({ at }) => at % (run.length + 1) === slot);
        for (let slot = 0; slot <= run.length; slot++) {
          for (const { event } of bySlot(slot)) {
            if (event.kind === "diff") recordDiffPreview(session, event.path, event.body);
            else recordFileRead(session, event.path, event.body);
          }
          const next = run[slot];
          if (next) session.append(next.type, next.data);
        }
        expect(session.events).toHaveLength(run.length + insertions.length);
        expect(session.deriveMessages()).toEqual(sessionOf(run).deriveMessages());
      }),
      { numRuns: 100 },
    );
  });
});

describe("p2 the new events are checked on append and on replay (练习2)", () => {
  const sha = "a".repeat(64);
  const badData: readonly { type: string; why: string; data: JsonObject; field: string }[] = [
    {
      type: "inspect/file-read",
      why: "negative bytes",
      data: { path: "a.ts", bytes: -1, sha256: sha },
      field: "$.bytes",
    },
    {
      type: "inspect/file-read",
      why: "fractional bytes",
      data: { path: "a.ts", bytes: 1.5, sha256: sha },
      field: "$.bytes",
    },
    {
      type: "inspect/file-read",
      why: "bytes as a string",
      data: { path: "a.ts", bytes: "12", sha256: sha },
      field: "$.bytes",
    },
    {
      type: "inspect/file-read",
      why: "an uppercase digest",
      data: { path: "a.ts", bytes: 1, sha256: sha.toUpperCase() },
      field: "$.sha256",
    },
    {
      type: "inspect/file-read",
      why: "a short digest",
      data: { path: "a.ts", bytes: 1, sha256: "abc123" },
      field: "$.sha256",
    },
    { type: "inspect/file-read", why: "an empty path", data: { path: "", bytes: 1, sha256: sha }, field: "$.path" },
    { type: "inspect/file-read", why: "no path", data: { bytes: 1, sha256: sha }, field: "$.path" },
    { type: "ui/diff-preview", why: "a diff that is not text", data: { path: "a.ts", diff: 42 }, field: "$.diff" },
    { type: "ui/diff-preview", why: "no path", data: { diff: "" }, field: "$.path" },
    {
      type: "inspect/file-read",
      why: "a 65-digit digest",
      data: { path: "a.ts", bytes: 1, sha256: `${sha}0` },
      field: "$.sha256",
    },
    // Strict, like the chapter's schemas: a key the vocabulary does not list is a mistake, and here
    // it would be the very content this event exists to keep out of the log.
    {
      type: "inspect/file-read",
      why: "an extra content key",
      data: { path: "a.ts", bytes: 1, sha256: sha, content: "x" },
      field: "$",
    },
    { type: "ui/diff-preview", why: "an extra key", data: { path: "a.ts", diff: "", shown_at: 1 }, field: "$" },
  ];

  test.each(badData)("append rejects $type with $why, naming the type and $field", ({ type, data, field }) => {
    const session = newSession();
    expect(thrownAs(EventDataError, () => session.append(type, data)).message).toContain(`"${type}" at ${field}`);
    expect(session.events, "a rejected append leaves the log untouched").toHaveLength(0);
  });

  test("a JSON round trip through Session.fromLog keeps both events and the messages", () => {
    const session = codingRunWithInspection();
    const replayed = Session.fromLog(storedCopy(session.events), { schemas });
    expect(replayed.events).toEqual(session.events);
    expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
  });

  test("replay rejects a stored event with bad data, naming its index, type and field", () => {
    const stored = storedCopy(codingRunWithInspection().events) as { type: string; data: JsonObject }[];
    const index = stored.findIndex((event) => event.type === "inspect/file-read");
    stored[index] = { ...stored[index]!, data: { path: "src/app.ts", bytes: 15, sha256: "not-a-digest" } };
    const replay = () => Session.fromLog(stored, { schemas });
    const { message } = thrownAs(ReplayError, replay);
    expect(message).toContain(`event #${index}`);
    expect(message).toContain(`"inspect/file-read" at $.sha256`);
  });

  test("replaying a random run with the new events gives back the same events and messages", () => {
    fc.assert(
      fc.property(chapterRunArb, fc.array(fc.string(), { maxLength: 4 }), (run, paths) => {
        const session = sessionOf(run, { schemas });
        for (const path of paths) {
          recordFileRead(session, `src/${path}.ts`, path);
          recordDiffPreview(session, `src/${path}.ts`, `+${path}`);
        }
        const replayed = Session.fromLog(storedCopy(session.events), { schemas });
        expect(replayed.events).toEqual(session.events);
        expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
      }),
      { numRuns: 50 },
    );
  });
});
