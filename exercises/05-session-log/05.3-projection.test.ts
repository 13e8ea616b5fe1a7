// Step 05.3 — the projection (book §5.4). What the model sees is derived from the log: three event
// types become messages, everything else stays in the log only. Most tests here build plain frozen
// events by hand, so they need nothing but your projection.ts; the `session.deriveMessages()` tests
// at the end also need your Session from step 05.2.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import type { EventData } from "../../chapters/05-session-log/events.ts";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import type { Message } from "../../chapters/common/messages.ts";
import { knownEventDataArbs, knownEventTypes, unknownEventInputArb } from "./arbitraries.ts";
import { deriveEventMessage, deriveMessages } from "./projection.ts";
import { Session } from "./session.ts";

// ── helpers: events as a stored log would hold them ───────────────────────────────────────────────

interface Entry {
  readonly type: string;
  readonly data: JsonObject;
}

/** One entry, with its data type-checked against the vocabulary for the known types. */
function entry<T extends string>(type: T, data: EventData<T>): Entry {
  return { type, data: data as JsonObject };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Numbers the entries from 0 and freezes everything, as Session.append would. */
function logOf(entries: readonly Entry[]): SessionEvent[] {
  return entries.map(({ type, data }, id) => deepFreeze({ id, type, ts: 1_000 + id, data: structuredClone(data) }));
}

function eventOf<T extends string>(type: T, data: EventData<T>): SessionEvent {
  const [event] = logOf([entry(type, data)]);
  return event!;
}

const calculatorCall = { id: "call_00_abc", name: "calculator", arguments: '{"expression":"1+2*3"}' };

/** The book's §5.7 run: one calculator call, two steps, 12 events. */
const bookRun: readonly Entry[] = [
  entry("turn/start", { turn: 1 }),
  entry("user/message", { content: "1+2*3 等于几？" }),
  entry("request/header", {
    header: { model: "deepseek-flash", system: "你是一个会用计算器的助手。", tools: [] },
    reason: "initial",
  }),
  entry("step/start", { turn: 1, step: 1 }),
  entry("assistant/message", { content: "", reasoning_content: "先算乘法。", tool_calls: [calculatorCall] }),
  entry("tool/call", { call_id: calculatorCall.id, name: calculatorCall.name, arguments: calculatorCall.arguments }),
  entry("tool/result", { call_id: calculatorCall.id, content: "7", is_error: false }),
  entry("step/end", { turn: 1, step: 1 }),
  entry("step/start", { turn: 1, step: 2 }),
  entry("assistant/message", { content: "1 + 2 × 3 = 7", reasoning_content: "结果是 7。", tool_calls: [] }),
  entry("step/end", { turn: 1, step: 2 }),
  entry("turn/end", { turn: 1, reason: "completed" }),
];

const bookMessages: Message[] = [
  { role: "user", content: "1+2*3 等于几？" },
  { role: "assistant", content: "", reasoning_content: "先算乘法。", tool_calls: [calculatorCall] },
  { role: "tool", content: "7", tool_call_id: calculatorCall.id },
  { role: "assistant", content: "1 + 2 × 3 = 7", reasoning_content: "结果是 7。", tool_calls: [] },
];

// ── one event at a time ──────────────────────────────────────────────────────────────────────────

describe("05.3 deriveEventMessage：变成消息的三种事件 / the three events that become messages", () => {
  test("user/message 变成 { role: 'user', content } / user/message becomes { role: 'user', content }", () => {
    expect(deriveEventMessage(eventOf("user/message", { content: "你好" }))).toStrictEqual({
      role: "user",
      content: "你好",
    });
  });

  test("assistant/message 变成 { role: 'assistant', content, reasoning_content, tool_calls } / assistant/message becomes { role: 'assistant', content, reasoning_content, tool_calls }", () => {
    const event = eventOf("assistant/message", {
      content: "",
      reasoning_content: "需要调用计算器。",
      tool_calls: [calculatorCall],
    });
    expect(deriveEventMessage(event)).toStrictEqual({
      role: "assistant",
      content: "",
      reasoning_content: "需要调用计算器。",
      tool_calls: [calculatorCall],
    });
  });

  test("没有工具调用的回复也带着 reasoning_content / reasoning_content is carried on a reply without tool calls too", () => {
    const event = eventOf("assistant/message", { content: "7", reasoning_content: "想一想", tool_calls: [] });
    expect(
      deriveEventMessage(event),
      "投影总是保留思考内容：有工具调用时 DeepSeek 思考模式要求把它发回，没有工具调用时发回也无妨（书里的投影也这样做） / the projection always keeps reasoning_content: thinking mode requires it back after a tool call, and it does no harm otherwise (the book's projection does the same)",
    ).toStrictEqual({
      role: "assistant",
      content: "7",
      reasoning_content: "想一想",
      tool_calls: [],
    });
  });

  test("没有 reasoning_content 的 assistant/message 投影成 reasoning_content: null / an assistant/message without reasoning_content projects reasoning_content: null", () => {
    const event = eventOf("assistant/message", { content: "7", tool_calls: [] });
    expect(
      deriveEventMessage(event),
      "缺少的 reasoning_content 变成 null，不是 undefined，也不是缺了这个键 / a missing reasoning_content becomes null, not undefined and not a missing key",
    ).toStrictEqual({
      role: "assistant",
      content: "7",
      reasoning_content: null,
      tool_calls: [],
    });
  });

  test("每个工具调用都按顺序放在 assistant 消息里，形如 { id, name, arguments } / every tool call rides on the assistant message, in order, as { id, name, arguments }", () => {
    const second = { id: "call_01_def", name: "calculator", arguments: '{"expression":"2"}' };
    const event = eventOf("assistant/message", { content: null, tool_calls: [calculatorCall, second] });
    expect(deriveEventMessage(event)).toStrictEqual({
      role: "assistant",
      content: null,
      reasoning_content: null,
      tool_calls: [calculatorCall, second],
    });
  });

  test("每个工具调用只由 id、name、arguments 组成：存储的事件里别的键不带过来 / each tool call is built from exactly id, name and arguments: other keys in a stored event stay behind", () => {
    // Made by hand, as a log read back from disk might hold it: the call carries the wire format's
    // `type` and `index`, which the vocabulary does not have.
    const [event] = logOf([
      {
        type: "assistant/message",
        data: { content: "", tool_calls: [{ ...calculatorCall, type: "function", index: 0 }] },
      },
    ]);
    expect(
      deriveEventMessage(event!),
      "把每个调用建成 { id, name, arguments }，不要把存储的对象直接传过去 / build each call as { id, name, arguments } rather than passing the stored object through",
    ).toStrictEqual({ role: "assistant", content: "", reasoning_content: null, tool_calls: [calculatorCall] });
  });

  test("tool/result 变成 { role: 'tool', content, tool_call_id }，其中 tool_call_id = call_id / tool/result becomes { role: 'tool', content, tool_call_id } with tool_call_id = call_id", () => {
    const event = eventOf("tool/result", { call_id: "call_00_abc", content: "7", is_error: false });
    expect(deriveEventMessage(event)).toStrictEqual({ role: "tool", content: "7", tool_call_id: "call_00_abc" });
  });

  test("失败的工具结果也照样给模型看（is_error 本身不发送） / a failed tool result is still shown to the model (is_error itself is not sent)", () => {
    const event = eventOf("tool/result", { call_id: "call_00_x", content: "Error: division by zero", is_error: true });
    expect(deriveEventMessage(event), "模型要读到错误才能应对 / the model must read the error to react to it").toStrictEqual({
      role: "tool",
      content: "Error: division by zero",
      tool_call_id: "call_00_x",
    });
  });
});

describe("05.3 deriveEventMessage：什么都没说的回复被丢掉 / an assistant reply that says nothing is dropped", () => {
  test("content 为 null、没有思考内容、也没有工具调用 → null / content null, no reasoning and no tool call → null", () => {
    expect(deriveEventMessage(eventOf("assistant/message", { content: null, tool_calls: [] }))).toBeNull();
    expect(deriveEventMessage(eventOf("assistant/message", { content: null, reasoning_content: null, tool_calls: [] }))).toBeNull();
  });

  test('空的思考内容算作没有：content 为 null、reasoning_content 为 ""、没有调用 → null / empty reasoning counts as no reasoning: content null, reasoning "" and no call → null', () => {
    const event = eventOf("assistant/message", { content: null, reasoning_content: "", tool_calls: [] });
    expect(
      deriveEventMessage(event),
      '书里判断的是 `not reasoning_content`，而 "" 是假值 / the book tests `not reasoning_content`, and "" is falsy',
    ).toBeNull();
  });

  test('content 为 "" 仍是一条回复：保留 / content "" is still a reply: it is kept', () => {
    const event = eventOf("assistant/message", { content: "", tool_calls: [] });
    expect(
      deriveEventMessage(event),
      'content 为 "" 要保留（只有 null 表示“没有正文”）；事件里没有 reasoning_content 时，它是 null / content "" is kept (only null means "no text"); reasoning_content is null when the event has none',
    ).toStrictEqual({ role: "assistant", content: "", reasoning_content: null, tool_calls: [] });
  });

  test("回复有思考内容时，content 为 null 也保留 / content null is kept when the reply has reasoning", () => {
    const event = eventOf("assistant/message", { content: null, reasoning_content: "想一想", tool_calls: [] });
    expect(deriveEventMessage(event)).toStrictEqual({
      role: "assistant",
      content: null,
      reasoning_content: "想一想",
      tool_calls: [],
    });
  });

  test("回复有工具调用时，content 为 null 也保留 / content null is kept when the reply has a tool call", () => {
    const event = eventOf("assistant/message", { content: null, tool_calls: [calculatorCall] });
    expect(
      deriveEventMessage(event),
      "保留；事件里没有 reasoning_content 时，它是 null / kept, with reasoning_content null when the event has none",
    ).toStrictEqual({
      role: "assistant",
      content: null,
      reasoning_content: null,
      tool_calls: [calculatorCall],
    });
  });
});

describe("05.3 deriveEventMessage：其他事件都只留在日志里 / every other event stays in the log only", () => {
  const logOnly: readonly Entry[] = [
    entry("turn/start", { turn: 1 }),
    entry("request/header", { header: { model: "m", system: "你是助手", tools: [] }, reason: "initial" }),
    entry("step/start", { turn: 1, step: 1 }),
    entry("tool/call", { call_id: "call_00_abc", name: "calculator", arguments: '{"expression":"1"}' }),
    entry("step/end", { turn: 1, step: 1 }),
    entry("turn/end", { turn: 1, reason: "completed" }),
    entry("turn/end", { turn: 1, reason: "error", message: "network down" }),
    entry("ui/note", { text: "an event type the projection has never heard of" }),
    entry("stream/delta", { content: "1+2" }),
  ];

  const labelOf = (e: Entry) => (typeof e.data["reason"] === "string" ? `${e.type} (${e.data["reason"]})` : e.type);
  test.each(logOnly.map((e) => [labelOf(e), labelOf(e), e] as const))("%s → null：只留在日志里 / %s → null", (_zh, _en, logOnlyEntry) => {
    const [event] = logOf([logOnlyEntry]);
    expect(deriveEventMessage(event!)).toBeNull();
  });

  test("tool/call 永不投影：assistant 消息已经带着同一个请求 / tool/call is never projected: the assistant message already carries the request", () => {
    const log = logOf([
      entry("assistant/message", { content: "", tool_calls: [calculatorCall] }),
      entry("tool/call", {
        call_id: calculatorCall.id,
        name: calculatorCall.name,
        arguments: calculatorCall.arguments,
      }),
    ]);
    const messages = deriveMessages(log);
    expect(
      messages.map((m) => m.role),
      "一条 assistant 消息，不为 tool/call 再加一条 / one assistant message, not a second one for the tool/call",
    ).toEqual(["assistant"]);
    expect(
      messages[0],
      "投影出的 assistant 消息（没有 reasoning_content 时它是 null） / the assistant message as projected (reasoning_content null when absent)",
    ).toStrictEqual({
      role: "assistant",
      content: "",
      reasoning_content: null,
      tool_calls: [calculatorCall],
    });
  });
});

// ── the whole log ────────────────────────────────────────────────────────────────────────────────

describe("05.3 deriveMessages：日志 → 模型的消息 / the log → the model's messages", () => {
  test("书里的计算器运行：12 条事件按日志顺序投影成 4 条消息 / the book's calculator run: 12 events project to 4 messages, in log order", () => {
    expect(deriveMessages(logOf(bookRun))).toStrictEqual(bookMessages);
  });

  test("空日志派生不出消息 / an empty log derives no messages", () => {
    expect(deriveMessages([])).toStrictEqual([]);
  });

  test("只有过程事件的日志派生不出消息 / a log with only process events derives no messages", () => {
    const log = logOf(bookRun.filter((e) => !["user/message", "assistant/message", "tool/result"].includes(e.type)));
    expect(deriveMessages(log)).toStrictEqual([]);
  });

  test("跨轮次时，消息保持日志的顺序 / messages keep the log's order across turns", () => {
    const log = logOf([
      entry("user/message", { content: "first" }),
      entry("assistant/message", { content: "one", tool_calls: [] }),
      entry("turn/end", { turn: 1, reason: "completed" }),
      entry("user/message", { content: "second" }),
      entry("assistant/message", { content: null, tool_calls: [] }),
      entry("assistant/message", { content: "two", tool_calls: [] }),
    ]);
    expect(deriveMessages(log)).toStrictEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "one", reasoning_content: null, tool_calls: [] },
      { role: "user", content: "second" },
      { role: "assistant", content: "two", reasoning_content: null, tool_calls: [] },
    ]);
  });
});

describe("05.3 session.deriveMessages()：Session 投影自己的日志（需要 05.2） / the Session projects its own log (needs 05.2)", () => {
  function appendAll(session: Session, entries: readonly Entry[]): void {
    for (const { type, data } of entries) session.append(type, data);
  }

  test("装着书里那次运行的 Session 派生出同样的 4 条消息 / a Session holding the book's run derives the same 4 messages", () => {
    const session = new Session();
    appendAll(session, bookRun);
    expect(session.deriveMessages()).toStrictEqual(bookMessages);
  });

  test("再 append 之后重新派生，新事件也在里面 / derived again after more appends, the new events are included", () => {
    const session = new Session();
    appendAll(session, bookRun);
    session.deriveMessages();
    session.append("turn/start", { turn: 2 });
    session.append("user/message", { content: "再乘以 2 呢？" });
    expect(
      session.deriveMessages(),
      "消息每次都从日志派生，从不另外保存 / messages are derived from the log each time, never kept beside it",
    ).toStrictEqual([...bookMessages, { role: "user", content: "再乘以 2 呢？" }]);
  });
});

// ── properties over random logs ──────────────────────────────────────────────────────────────────

// Random logs from the shared arbitraries (./arbitraries.ts): every known type with data its schema
// accepts, plus types outside the vocabulary.
const messageTypes = ["user/message", "assistant/message", "tool/result"] as const;
const messageEntry: fc.Arbitrary<Entry> = fc.oneof(
  ...messageTypes.map((type) => knownEventDataArbs[type].map((data): Entry => ({ type, data }))),
);
const processEntry: fc.Arbitrary<Entry> = fc.oneof(
  ...knownEventTypes
    .filter((type) => !(messageTypes as readonly string[]).includes(type))
    .map((type) => knownEventDataArbs[type].map((data): Entry => ({ type, data }))),
  unknownEventInputArb,
);
const anyEntry = fc.oneof(messageEntry, processEntry);

/** Puts each extra entry at its (wrapped) position in the list. */
function insertAt(entries: readonly Entry[], extras: readonly (readonly [number, Entry])[]): Entry[] {
  const result = [...entries];
  for (const [position, extra] of extras) result.splice(position % (result.length + 1), 0, extra);
  return result;
}

describe("05.3 投影的属性测试（随机日志） / properties of the projection (random logs)", () => {
  test("在任意位置插入非消息事件，派生的消息都不变 / inserting non-message events anywhere never changes the derived messages", () => {
    fc.assert(
      fc.property(
        fc.array(anyEntry, { maxLength: 15 }),
        fc.array(fc.tuple(fc.nat(), processEntry), { maxLength: 10 }),
        (entries, extras) => {
          const before = deriveMessages(logOf(entries));
          const after = deriveMessages(logOf(insertAt(entries, extras)));
          expect(after).toStrictEqual(before);
        },
      ),
      { numRuns: 150 },
    );
  });

  test("user 和 tool 消息按日志顺序出现，一条事件一条 / user and tool messages appear one per event, in log order", () => {
    fc.assert(
      fc.property(fc.array(anyEntry, { maxLength: 20 }), (entries) => {
        const messages = deriveMessages(logOf(entries));
        const userContents = entries.flatMap((e) => (e.type === "user/message" ? [e.data["content"]] : []));
        const toolCallIds = entries.flatMap((e) => (e.type === "tool/result" ? [e.data["call_id"]] : []));
        expect(messages.flatMap((m) => (m.role === "user" ? [m.content] : []))).toStrictEqual(userContents);
        expect(messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []))).toStrictEqual(toolCallIds);
      }),
      { numRuns: 150 },
    );
  });

  test("派生是确定的，而且不改动事件 / derivation is deterministic and leaves the events untouched", () => {
    fc.assert(
      fc.property(fc.array(anyEntry, { maxLength: 20 }), (entries) => {
        const log = logOf(entries);
        const copy = structuredClone(log);
        const first = deriveMessages(log);
        const second = deriveMessages(log);
        expect(second, "同一份日志派生出同样的消息 / the same log derives the same messages").toStrictEqual(first);
        expect(log, "派生不能改变日志 / deriving must not change the log").toStrictEqual(copy);
      }),
      { numRuns: 150 },
    );
  });
});
