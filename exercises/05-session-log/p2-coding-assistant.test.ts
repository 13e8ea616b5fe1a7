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

describe("p2 记录代码助手的事件（练习2） / recording the coding assistant's events", () => {
  test("recordDiffPreview 追加一条 ui/diff-preview 事件，带着路径和 diff / recordDiffPreview appends one ui/diff-preview event with the path and the diff", () => {
    const session = newSession();
    const event = recordDiffPreview(session, "src/app.ts", diff);
    expect(session.events, "正好一条事件，别的什么都没有 / exactly one event, nothing beside it").toEqual([event]);
    expect(event).toMatchObject({ id: 0, type: "ui/diff-preview", data: { path: "src/app.ts", diff } });
    expect(Object.isFrozen(event.data), "它经过了 append，所以是冻结的 / it went through append, so it is frozen").toBe(true);
  });

  test("recordFileRead 记下字符串的 UTF-8 字节数和 SHA-256，绝不记内容 / recordFileRead logs the UTF-8 byte count and the SHA-256 of a string, never its content", () => {
    const session = newSession();
    const event = recordFileRead(session, "src/app.ts", text);
    expect(session.events, "正好一条事件，别的什么都没有 / exactly one event, nothing beside it").toEqual([event]);
    expect(event.type).toBe("inspect/file-read");
    expect(
      event.data,
      "bytes 数的是 UTF-8 字节（15），不是字符串长度（10）；没有 content 键 / bytes counts UTF-8 bytes (15), not string length (10); no content key",
    ).toEqual({
      path: "src/app.ts",
      bytes: 15,
      sha256: textSha256,
    });
  });

  test("recordFileRead 对原始字节原样求摘要 / recordFileRead hashes raw bytes as they are", () => {
    const session = newSession();
    const event = recordFileRead(session, "logo.png", new Uint8Array([0, 255, 16]));
    expect(event.data).toEqual({
      path: "logo.png",
      bytes: 3,
      sha256: "2da45f2cd1f9c8e69a67abf7a6b26c282533d0a7686787a9533265418680d4d2",
    });
  });
});

describe("p2 新事件永远不进模型（练习2） / the new events never reach the model", () => {
  test("两种类型都不变成消息：投影把它们都变成 null / neither type becomes a message: the projection turns each into null", () => {
    const session = newSession();
    const events = [recordFileRead(session, "a.ts", "x"), recordDiffPreview(session, "a.ts", diff)];
    for (const event of events) {
      expect(deriveEventMessage(event), `${event.type} 必须只留在日志里 / ${event.type} must stay in the log only`).toBeNull();
    }
  });

  test("带一次文件读取和一次 diff 预览的运行，派生出和普通运行一样的 4 条消息 / a run with a file read and a diff preview derives the same 4 messages as the plain run", () => {
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

  test("在随机运行的任何位置插入任意多条，deriveMessages() 都深度相等 / any number of them, anywhere in a random run, leave deriveMessages() deep-equal", () => {
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

describe("p2 新事件在 append 和重放时都要检查（练习2） / the new events are checked on append and on replay", () => {
  const sha = "a".repeat(64);
  const badData: readonly { type: string; whyZh: string; why: string; data: JsonObject; field: string }[] = [
    {
      type: "inspect/file-read",
      whyZh: "bytes 为负数",
      why: "negative bytes",
      data: { path: "a.ts", bytes: -1, sha256: sha },
      field: "$.bytes",
    },
    {
      type: "inspect/file-read",
      whyZh: "bytes 是小数",
      why: "fractional bytes",
      data: { path: "a.ts", bytes: 1.5, sha256: sha },
      field: "$.bytes",
    },
    {
      type: "inspect/file-read",
      whyZh: "bytes 是字符串",
      why: "bytes as a string",
      data: { path: "a.ts", bytes: "12", sha256: sha },
      field: "$.bytes",
    },
    {
      type: "inspect/file-read",
      whyZh: "摘要是大写的",
      why: "an uppercase digest",
      data: { path: "a.ts", bytes: 1, sha256: sha.toUpperCase() },
      field: "$.sha256",
    },
    {
      type: "inspect/file-read",
      whyZh: "摘要太短",
      why: "a short digest",
      data: { path: "a.ts", bytes: 1, sha256: "abc123" },
      field: "$.sha256",
    },
    { type: "inspect/file-read", whyZh: "路径为空", why: "an empty path", data: { path: "", bytes: 1, sha256: sha }, field: "$.path" },
    { type: "inspect/file-read", whyZh: "没有路径", why: "no path", data: { bytes: 1, sha256: sha }, field: "$.path" },
    { type: "ui/diff-preview", whyZh: "diff 不是文本", why: "a diff that is not text", data: { path: "a.ts", diff: 42 }, field: "$.diff" },
    { type: "ui/diff-preview", whyZh: "没有路径", why: "no path", data: { diff: "" }, field: "$.path" },
    {
      type: "inspect/file-read",
      whyZh: "摘要有 65 位",
      why: "a 65-digit digest",
      data: { path: "a.ts", bytes: 1, sha256: `${sha}0` },
      field: "$.sha256",
    },
    // Strict, like the chapter's schemas: a key the vocabulary does not list is a mistake, and here
    // it would be the very content this event exists to keep out of the log.
    {
      type: "inspect/file-read",
      whyZh: "多了 content 键",
      why: "an extra content key",
      data: { path: "a.ts", bytes: 1, sha256: sha, content: "x" },
      field: "$",
    },
    { type: "ui/diff-preview", whyZh: "多了一个键", why: "an extra key", data: { path: "a.ts", diff: "", shown_at: 1 }, field: "$" },
  ];

  test.each(badData)(
    "append 拒绝 $type（$whyZh），点明类型和 $field / append rejects $type with $why, naming the type and $field",
    ({ type, data, field }) => {
      const session = newSession();
      const refusal = thrownAs(
        EventDataError,
        () => session.append(type, data),
        "codingAssistantSchemas 里的 schema 必须拒绝这个数据 / the schema in codingAssistantSchemas must refuse this data",
      );
      expect(refusal.message).toContain(`"${type}" at ${field}`);
      expect(session.events, "被拒绝的 append 不改变日志 / a rejected append leaves the log untouched").toHaveLength(0);
    },
  );

  test("经过 JSON 往返和 Session.fromLog，两种事件和消息都不变 / a JSON round trip through Session.fromLog keeps both events and the messages", () => {
    const session = codingRunWithInspection();
    const replayed = Session.fromLog(storedCopy(session.events), { schemas });
    expect(replayed.events).toEqual(session.events);
    expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
  });

  test("重放拒绝数据不对的存储事件，点明下标、类型和字段 / replay rejects a stored event with bad data, naming its index, type and field", () => {
    const stored = storedCopy(codingRunWithInspection().events) as { type: string; data: JsonObject }[];
    const index = stored.findIndex((event) => event.type === "inspect/file-read");
    stored[index] = { ...stored[index]!, data: { path: "src/app.ts", bytes: 15, sha256: "not-a-digest" } };
    const replay = () => Session.fromLog(stored, { schemas });
    const { message } = thrownAs(ReplayError, replay, "重放时照样用 schema 检查 / replay checks the schemas too");
    expect(message).toContain(`event #${index}`);
    expect(message).toContain(`"inspect/file-read" at $.sha256`);
  });

  test("带新事件的随机运行，重放后得到同样的事件和消息 / replaying a random run with the new events gives back the same events and messages", () => {
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
