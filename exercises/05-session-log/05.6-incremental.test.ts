// Step 05.6 (challenge) — incremental projection. The session projects each event once, when it is
// committed, and keeps the messages, so deriving them before a model call no longer walks the whole
// log. Your 05.3 deriveMessages stays the reference: every test compares with it. The first group
// tests your MessageCache alone (it needs your projection.ts, step 05.3); the second tests it wired
// into your Session (it needs steps 05.1–05.4 too). Nothing here is timed: `npm run bench` measures
// the speed.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import type { Message, ToolCall } from "../../chapters/common/messages.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import { MessageCache } from "./message-cache.ts";
import { deriveMessages } from "./projection.ts";
import { Session } from "./session.ts";
import { eventInputArb, eventInputsArb, knownEventInputArb, tickingClock, type EventInput } from "./arbitraries.ts";
import { chapterRunArb } from "./practice-runs.ts";
import { thrownAs } from "./thrown.ts";

// ── helpers ───────────────────────────────────────────────────────────────────────────────────────

/** Random logs: events of every kind (unknown types too), or runs shaped like runAgent's. */
const logArb: fc.Arbitrary<EventInput[]> = fc.oneof(eventInputsArb, chapterRunArb);

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The events a session would commit for `inputs`, made by hand: ids from 0, frozen. */
function committed(inputs: readonly EventInput[]): SessionEvent[] {
  return inputs.map(({ type, data }, id) => deepFreeze({ id, type, ts: 1_700_000_000_000 + id, data: structuredClone(data) }));
}

function sessionOf(inputs: readonly EventInput[]): Session {
  const session = new Session({ clock: tickingClock() });
  for (const { type, data } of inputs) session.append(type, data);
  return session;
}

/** When a check is made, in Chinese and in English: ["追加 #3（user/message）之后", "after appending #3 (user/message)"]. */
type When = readonly [zh: string, en: string];

/** The first object or array in `messages` that is not frozen (in Chinese and in English), or undefined. */
function unfrozenPart(messages: readonly Message[]): When | undefined {
  for (const [index, message] of messages.entries()) {
    if (!Object.isFrozen(message)) return [`消息 #${index}`, `message #${index}`];
    if (message.role !== "assistant") continue;
    if (!Object.isFrozen(message.tool_calls)) return [`消息 #${index} 的 tool_calls`, `message #${index}'s tool_calls`];
    const call = message.tool_calls.findIndex((toolCall) => !Object.isFrozen(toolCall));
    if (call >= 0) return [`消息 #${index} 的 tool_calls[${call}]`, `message #${index}'s tool_calls[${call}]`];
  }
  return undefined;
}

/**
 * The rules of this step, checked at one moment: `messages` equal the full projection of `events`;
 * every message is frozen; and each message handed out `earlier` is the very same object now — it
 * was projected once, not again. Returns `messages`, to compare the next call with.
 */
function expectIncremental(
  messages: Message[],
  events: readonly SessionEvent[],
  earlier: readonly Message[],
  [when, whenEn]: When,
): Message[] {
  expect(
    messages,
    `${when}：消息和对同样的事件做 deriveMessages(events) 的结果不同——按 id 顺序把每条提交的事件投影一次，留下不是 null 的结果 / ` +
      `${whenEn}: the messages differ from deriveMessages(events) over the same events — project every committed event, once, in id order, and keep the non-null results`,
  ).toStrictEqual(deriveMessages(events));
  const unfrozen = unfrozenPart(messages);
  expect(
    unfrozen,
    `${when}：${unfrozen?.[0]} 没有冻结，调用方就能改掉下一次调用拿到的东西——投影时就把每条消息（和它的 tool_calls）冻结一次 / ` +
      `${whenEn}: ${unfrozen?.[1]} is not frozen, so a caller could change what the next call gets — freeze each message (and its tool_calls) once, when you project it`,
  ).toBeUndefined();
  const reprojected = earlier.findIndex((message, index) => messages[index] !== message);
  expect(
    reprojected,
    `${when}：消息 #${reprojected} 是新对象，说明它又被投影了一遍——留着提交时投影出的那条消息，交出同一个对象 / ` +
      `${whenEn}: message #${reprojected} is a new object, so it was projected again — keep each message from the commit that projected it and hand out that same object`,
  ).toBe(-1);
  return messages;
}

/** Ways a caller might scribble on what it was given. A frozen value refuses with a TypeError. */
const tampers: readonly (readonly [string, string, (messages: Message[]) => void])[] = [
  ["往数组里 push 一条消息", "push a message onto the array", (messages) => void messages.push({ role: "user", content: "tampered" })],
  ["清空数组", "empty the array", (messages) => void (messages.length = 0)],
  ["反转数组", "reverse the array", (messages) => void messages.reverse()],
  ["替换第一条消息", "replace the first message", (messages) => void (messages[0] = { role: "user", content: "tampered" })],
  [
    "改第一条消息的 content",
    "edit the first message's content",
    (messages) => void (messages[0] && ((messages[0] as { content: unknown }).content = "tampered")),
  ],
  [
    "给最后一条消息加一个键",
    "add a key to the last message",
    (messages) => {
      const last: object | undefined = messages.at(-1);
      if (last) (last as { tampered?: boolean }).tampered = true;
    },
  ],
  [
    "往 assistant 消息的 tool_calls 里 push",
    "push onto an assistant message's tool_calls",
    (messages) => {
      const assistant = messages.find((message) => message.role === "assistant");
      if (assistant) (assistant.tool_calls as ToolCall[]).push({ id: "tampered", name: "tampered", arguments: "{}" });
    },
  ],
  [
    "给工具调用改名",
    "rename a tool call",
    (messages) => {
      const call = messages.flatMap((message) => (message.role === "assistant" ? message.tool_calls : []))[0];
      if (call) (call as { name: string }).name = "tampered";
    },
  ],
];

/** Lets each tamper loose on a fresh result of `derive`, and checks the next result is untouched. */
function expectTamperProof(derive: () => Message[], events: readonly SessionEvent[], [when, whenEn]: When): void {
  const expected = deriveMessages(events);
  for (const [whatZh, what, tamper] of tampers) {
    try {
      tamper(derive());
    } catch {
      // refused: a frozen value cannot be changed, which is the point
    }
    expect(
      derive(),
      `${when}：调用方试着${whatZh}，下一次调用就看到了——交出一个新的（或冻结的）数组，里面是冻结的消息 / ` +
        `${whenEn}: a caller tried to ${what}, and the next call shows it — hand out a new array (or a frozen one) of frozen messages`,
    ).toStrictEqual(expected);
  }
}

const afterEvent = (index: number, type: string): When => [`事件 #${index}（${type}）之后`, `after event #${index} (${type})`];
const afterAppending = (id: number, type: string): When => [`追加 #${id}（${type}）之后`, `after appending #${id} (${type})`];

const calculatorCall = { id: "call_1", name: "calculator", arguments: '{"expression":"1+2*3"}' };
const header = { model: "deepseek-flash", system: "你是一个计算助手。", tools: [] };

/** The book's calculator run (5.7): 12 events, 4 messages. */
const bookRun: EventInput[] = [
  { type: "turn/start", data: { turn: 1 } },
  { type: "user/message", data: { content: "1+2*3 等于几？" } },
  { type: "request/header", data: { header, reason: "initial" } },
  { type: "step/start", data: { turn: 1, step: 1 } },
  { type: "assistant/message", data: { content: "", reasoning_content: "先算乘法。", tool_calls: [calculatorCall] } },
  { type: "tool/call", data: { call_id: "call_1", name: "calculator", arguments: calculatorCall.arguments } },
  { type: "tool/result", data: { call_id: "call_1", content: "7", is_error: false } },
  { type: "step/end", data: { turn: 1, step: 1 } },
  { type: "step/start", data: { turn: 1, step: 2 } },
  { type: "assistant/message", data: { content: "1 + 2 × 3 = 7", reasoning_content: "算完了。", tool_calls: [] } },
  { type: "step/end", data: { turn: 1, step: 2 } },
  { type: "turn/end", data: { turn: 1, reason: "completed" } },
];

const bookMessages = [
  { role: "user", content: "1+2*3 等于几？" },
  { role: "assistant", content: "", reasoning_content: "先算乘法。", tool_calls: [calculatorCall] },
  { role: "tool", content: "7", tool_call_id: "call_1" },
  { role: "assistant", content: "1 + 2 × 3 = 7", reasoning_content: "算完了。", tool_calls: [] },
];

// ── the cache on its own ──────────────────────────────────────────────────────────────────────────

describe("05.6 MessageCache：每条提交的事件只投影一次 / each committed event is projected once", () => {
  test("书里的计算器运行逐条投影，得到它的 4 条消息 / the book's calculator run, projected event by event, gives its 4 messages", () => {
    const cache = new MessageCache();
    for (const event of committed(bookRun)) cache.project(event);
    expect(
      cache.messages(),
      "用 deriveEventMessage 投影每条事件，按顺序留下不是 null 的结果 / project each event with deriveEventMessage and keep the non-null results in order",
    ).toStrictEqual(bookMessages);
  });

  test("每条事件之后，messages() 都等于对目前的事件做 deriveMessages() 的结果，消息冻结，之前交出去的对象不变 / after every event, messages() equals deriveMessages() of the events so far, frozen, and keeps the objects it handed out before", () => {
    fc.assert(
      fc.property(logArb, (inputs) => {
        const events = committed(inputs);
        const cache = new MessageCache();
        let earlier = expectIncremental(cache.messages(), [], [], ["新的缓存", "a new cache"]);
        for (const [index, event] of events.entries()) {
          cache.project(event);
          earlier = expectIncremental(cache.messages(), events.slice(0, index + 1), earlier, afterEvent(index, event.type));
        }
      }),
    );
  });

  test("往 messages() 返回的东西里 push、重排或修改，之后的调用都看不到 / pushing to, reordering or editing what messages() returned never shows up in a later call", () => {
    fc.assert(
      fc.property(logArb, (inputs) => {
        const events = committed(inputs);
        const cache = new MessageCache();
        for (const [index, event] of events.entries()) {
          cache.project(event);
          expectTamperProof(() => cache.messages(), events.slice(0, index + 1), afterEvent(index, event.type));
        }
      }),
    );
  });

  test("project() 拒绝不是下一条的事件（有空缺或重复），抛 RangeError 说出应有的 id，什么都不改 / project() refuses an event that is not the next one (a gap or a repeat) with a RangeError naming the id it expected, and changes nothing", () => {
    const [first, second, third] = committed([
      { type: "user/message", data: { content: "one" } },
      { type: "user/message", data: { content: "two" } },
      { type: "user/message", data: { content: "three" } },
    ]);
    const cache = new MessageCache();
    expect(thrownAs(RangeError, () => cache.project(second!), "新缓存先要事件 #0 / a new cache expects event #0 first").message).toContain(
      "expected event #0, got #1",
    );
    cache.project(first!);
    expect(thrownAs(RangeError, () => cache.project(third!), "有空缺：漏了一条事件 / a gap: an event was missed").message).toContain(
      "expected event #1, got #2",
    );
    expect(
      thrownAs(RangeError, () => cache.project(first!), "有重复：同一条事件喂了两次 / a repeat: the same event fed twice").message,
    ).toContain("expected event #1, got #0");
    expect(cache.messages(), "被拒绝的事件不能改变消息 / a refused event must leave the messages as they were").toStrictEqual([
      { role: "user", content: "one" },
    ]);
    cache.project(second!);
    expect(cache.messages(), "拒绝之后，正确的下一条事件照样接受 / after a refusal, the right next event is still accepted").toStrictEqual([
      { role: "user", content: "one" },
      { role: "user", content: "two" },
    ]);
  });
});

// ── the cache wired into your Session ─────────────────────────────────────────────────────────────

describe("05.6 session.deriveMessages() 来自 MessageCache，在提交事件的地方喂它（需要 05.1–05.4） / session.deriveMessages() comes from the MessageCache, fed where events are committed (needs 05.1–05.4)", () => {
  test("deriveMessages() 每次调用都交出同样的冻结消息对象 / deriveMessages() hands out the same frozen message objects on every call", () => {
    const session = sessionOf(bookRun);
    const first = session.deriveMessages();
    const second = session.deriveMessages();
    expect(first, "会话仍然要派生出书里的 4 条消息 / the session must still derive the book's 4 messages").toStrictEqual(bookMessages);
    expect(
      Object.isFrozen(first[1]),
      "deriveMessages() 必须返回你的缓存里冻结的消息：在你的 session.ts 里返回这个缓存的 messages() / deriveMessages() must return your cache's frozen messages: in your session.ts, return this cache's messages()",
    ).toBe(true);
    expect(
      second[1],
      "第二次调用又把日志投影了一遍：每条事件提交时喂给 MessageCache，返回它的 messages() / the second call projected the log again: feed a MessageCache as each event is committed, and return its messages()",
    ).toBe(first[1]);
  });

  test("每次 append 之后，deriveMessages() 都等于对 session.events 的全量投影，之前交出去的消息不变 / after every append, deriveMessages() equals the full projection of session.events and keeps the messages it handed out before", () => {
    fc.assert(
      fc.property(logArb, (inputs) => {
        const session = new Session({ clock: tickingClock() });
        let earlier = expectIncremental(session.deriveMessages(), session.events, [], ["新的会话", "a new session"]);
        for (const { type, data } of inputs) {
          const event = session.append(type, data);
          earlier = expectIncremental(session.deriveMessages(), session.events, earlier, afterAppending(event.id, type));
        }
      }),
    );
  });

  test("fromLog 重放的日志派生出同样的消息——重放时就投影好，之后的 append 接着往后加 / a log replayed with fromLog derives the same messages, projected while it was replayed, and later appends add to them", () => {
    fc.assert(
      fc.property(logArb, fc.array(eventInputArb, { maxLength: 5 }), (inputs, more) => {
        const stored: unknown = JSON.parse(JSON.stringify(sessionOf(inputs).events));
        const session = Session.fromLog(stored, { clock: tickingClock() });
        const [when, whenEn] = [
          "刚 fromLog 完：fromLog 提交事件不经过 append，也不通知订阅者——在两者共用的提交处喂缓存",
          "right after fromLog: fromLog commits without append, and tells no listener — feed the cache where both commit",
        ];
        let earlier = expectIncremental(session.deriveMessages(), session.events, [], [when, whenEn]);
        earlier = expectIncremental(session.deriveMessages(), session.events, earlier, [
          `${when}（第二次调用）`,
          `${whenEn} (second call)`,
        ]);
        for (const { type, data } of more) {
          const event = session.append(type, data);
          earlier = expectIncremental(session.deriveMessages(), session.events, earlier, [
            `fromLog 之后追加 #${event.id}（${type}）时`,
            `after fromLog, appending #${event.id} (${type})`,
          ]);
        }
      }),
    );
  });

  test("订阅者里的 append 立刻出现在 deriveMessages() 里，在那个订阅者里面也一样 / an append made inside a listener is in deriveMessages() at once, even inside that listener", () => {
    fc.assert(
      fc.property(logArb, fc.array(knownEventInputArb, { minLength: 1, maxLength: 8 }), (inputs, replies) => {
        // A failed check inside a listener is caught by the session and handed to onListenerError:
        // keep it, and fail the test with it once the append returns.
        const failures: unknown[] = [];
        const session = new Session({ clock: tickingClock(), onListenerError: (error) => void failures.push(error) });
        let earlier: Message[] = [];
        const check = (when: When) => {
          earlier = expectIncremental(session.deriveMessages(), session.events, earlier, when);
        };
        const pending = [...replies];
        // This listener answers some events with an append of its own and looks at once; a second
        // listener looks at every event it hears. Only the commit path has seen such an append yet.
        session.subscribe((event) => {
          const reply = event.id % 2 === 0 ? pending.shift() : undefined;
          if (reply === undefined) return;
          const appended = session.append(reply.type, reply.data);
          check([
            `在订阅者里，它刚追加 #${appended.id}（${reply.type}）之后——靠订阅者喂的缓存还没听到这条事件`,
            `inside a listener, right after its append of #${appended.id} (${reply.type}) — a subscriber-fed cache has not heard it yet`,
          ]);
        });
        session.subscribe((event) => check([`在第二个订阅者里收到 #${event.id} 时`, `inside a second listener, hearing #${event.id}`]));
        // The first event (#0, even) is always answered from inside the listener.
        for (const { type, data } of [{ type: "user/message", data: { content: "go" } }, ...inputs]) {
          const event = session.append(type, data);
          if (failures.length > 0) throw failures[0];
          check(afterAppending(event.id, type));
        }
      }),
    );
  });

  test("改动 deriveMessages() 返回的东西，之后的调用都看不到 / changing what deriveMessages() returned never shows up in a later call", () => {
    fc.assert(
      fc.property(logArb, (inputs) => {
        const session = new Session({ clock: tickingClock() });
        for (const { type, data } of inputs) {
          const event = session.append(type, data);
          expectTamperProof(() => session.deriveMessages(), session.events, afterAppending(event.id, type));
        }
        expectIncremental(session.deriveMessages(), session.events, session.deriveMessages(), [
          "试过所有篡改之后",
          "after all the tampering",
        ]);
      }),
    );
  });
});
