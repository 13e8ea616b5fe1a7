// Step 05.2 — the Session's write path (book §5.2–5.3): `append` is the only way into the log,
// `events` is a frozen snapshot, and `subscribe` lets others hear each event after it is committed.
// These tests need your freezeJson from step 05.1 too.
import { describe, expect, test, vi } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { EventDataError } from "../../chapters/05-session-log/event-schemas.ts";
import { JsonValueError } from "../../chapters/05-session-log/json-value.ts";
import { Session } from "./session.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import { badEventInputArb, eventInputsArb, tickingClock, type EventInput } from "./arbitraries.ts";
import { thrownAs } from "./thrown.ts";

// ── helpers ───────────────────────────────────────────────────────────────────────────────────────

/** A clock that answers `values` in turn (then keeps answering the last one). */
function clockOf(...values: number[]): () => number {
  let next = 0;
  return () => values[Math.min(next++, values.length - 1)]!;
}

const assistantData = {
  content: "",
  reasoning_content: "先算乘法。",
  tool_calls: [{ id: "call_1", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
};

/** A mutable deep copy, made through JSON so that it is plain data a test may scribble on. */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Every object and array inside `value` (itself included), each with its JSON path. */
function containers(value: unknown, path = "$"): [string, object][] {
  if (typeof value !== "object" || value === null) return [];
  const found: [string, object][] = [[path, value]];
  for (const [key, child] of Object.entries(value)) found.push(...containers(child, `${path}[${JSON.stringify(key)}]`));
  return found;
}

/**
 * Asks Object.isFrozen first, then tries every kind of write on `target` — change a property, add
 * one, delete one, give it another prototype, and for arrays push, pop and set the length — and
 * expects each to throw TypeError (test files are ES modules, so strict mode: a write to a frozen
 * object throws instead of being silently ignored). Each write really changes something: setting
 * the prototype an object already has succeeds even on a frozen one, so a fresh `{}` is used.
 */
function expectEveryWriteToThrow(target: object, where: string): void {
  expect(
    Object.isFrozen(target),
    `${where} 没有冻结（Object.isFrozen 是 false）：快照、每条事件和它的全部数据都必须冻结 / ` +
      `${where} is not frozen (Object.isFrozen is false): the snapshot, each event and all of its data must be frozen`,
  ).toBe(true);
  const record = target as Record<string, unknown>;
  const [firstKey] = Object.keys(target);
  const writes: [string, string, () => unknown][] = [
    ["添加属性", "add a property", () => (record["added by a test"] = 1)],
    ["定义属性", "define a property", () => Object.defineProperty(target, "defined by a test", { value: 1 })],
    ["换一个原型", "give it another prototype", () => Object.setPrototypeOf(target, {})],
  ];
  if (firstKey !== undefined) {
    writes.push(["改一个属性", "change a property", () => (record[firstKey] = "changed by a test")]);
    writes.push(["删一个属性", "delete a property", () => delete record[firstKey]]);
  }
  if (Array.isArray(target)) {
    const array = target as unknown[];
    writes.push(["push", "push", () => array.push("pushed by a test")]);
    writes.push(["pop", "pop", () => array.pop()]);
    writes.push(["设置 length", "set the length", () => (array.length = 0)]);
  }
  for (const [whatZh, what, write] of writes) {
    thrownAs(
      TypeError,
      write,
      `${where}：“${whatZh}”必须抛出 TypeError，写入冻结的对象都会这样 / ${where}: "${what}" must throw TypeError, as every write to a frozen object does`,
    );
  }
}

/** Walks `value` and scribbles on every object and array in it. */
function mutateEverywhere(value: unknown): void {
  for (const [, container] of containers(value)) {
    if (Array.isArray(container)) container.push("pushed by a test");
    const record = container as Record<string, unknown>;
    for (const key of Object.keys(container)) if (typeof record[key] !== "object") record[key] = "changed by a test";
    record["added by a test"] = true;
  }
}

/** `session.events`, read twice: later `toBe(snapshot)` checks only mean something if it is cached. */
function cachedSnapshot(session: Session): readonly SessionEvent[] {
  const snapshot = session.events;
  expect(
    session.events,
    "在下一次 append 之前，events 必须返回同一个缓存的数组 / events must return the same cached array until the next append",
  ).toBe(snapshot);
  return snapshot;
}

const mustReject = "append 必须拒绝这个输入 / append must reject this input";

function appendAll(session: Session, inputs: readonly EventInput[]): SessionEvent[] {
  return inputs.map(({ type, data }) => session.append(type, data));
}

// ── append ────────────────────────────────────────────────────────────────────────────────────────

describe("05.2 append：唯一的写入路径 / the only write path", () => {
  test("新的 Session 的日志是空的、冻结的 / a new Session has an empty, frozen log", () => {
    const events = new Session().events;
    expect(events).toEqual([]);
    expect(Object.isFrozen(events), "events 必须是冻结的数组 / events must be a frozen array").toBe(true);
  });

  test("append 返回已提交、已冻结的事件 / append returns the committed event, frozen", () => {
    const session = new Session({ clock: () => 1_000 });
    const event = session.append("user/message", { content: "1+2*3 等于几？" });
    expect(event).toEqual({ id: 0, type: "user/message", ts: 1_000, data: { content: "1+2*3 等于几？" } });
    expect(Object.isFrozen(event), "事件对象本身必须冻结 / the event object itself must be frozen").toBe(true);
    expect(session.events[0], "append 必须返回日志里的那条事件本身 / append must return the very event that is in the log").toBe(event);
  });

  test("id 从 0 开始连续，没有空缺 / ids count from 0 without gaps", () => {
    const session = new Session();
    session.append("turn/start", { turn: 1 });
    session.append("user/message", { content: "hi" });
    session.append("test/note", { text: "a type outside the vocabulary is logged too" });
    expect(session.events.map((event) => event.id)).toEqual([0, 1, 2]);
  });

  test("ts 来自注入的 clock，每次 append 都读一次 / ts comes from the injected clock, read at each append", () => {
    const session = new Session({ clock: clockOf(5, 7, 7) });
    session.append("turn/start", { turn: 1 });
    session.append("user/message", { content: "hi" });
    session.append("step/start", { turn: 1, step: 1 });
    expect(session.events.map((event) => event.ts)).toEqual([5, 7, 7]);
  });

  test("没有 clock 时，ts 是 Date.now() / without a clock, ts is Date.now()", () => {
    const before = Date.now();
    const { ts } = new Session().append("turn/start", { turn: 1 });
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Date.now());
    expect(Number.isInteger(ts), "Date.now() 是整数毫秒 / Date.now() is integer milliseconds").toBe(true);
  });

  test.each([
    ["小数", "a fraction", 1_000.5],
    ["负数", "a negative number", -1],
    ["NaN", "NaN", Number.NaN],
    ["Infinity", "Infinity", Number.POSITIVE_INFINITY],
    ["不安全的整数", "an unsafe integer", 2 ** 53],
    ["-0，JSON.stringify 把它写成 0，读回来就不一样了", "-0 (JSON.stringify writes it as 0, so it would not read back)", -0],
    ["字符串", "a string", "1000" as unknown as number],
    ["bigint", "a bigint", 1_000n as unknown as number],
  ])(
    "clock 返回的值（%s）是 TypeError，点明是时钟的问题，日志不变 / a clock that returns %s is a TypeError naming the clock, and the log is untouched",
    (_zh, _en, bad) => {
      const session = new Session({ clock: clockOf(1_000, bad, 1_001) });
      session.append("turn/start", { turn: 1 });
      const before = cachedSnapshot(session);
      const error = thrownAs(
        TypeError,
        () => session.append("user/message", { content: "hi" }),
        "检查 clock 的返回值：非负的安全整数，而且不是 -0（用 Object.is） / check the clock's answer: a safe non-negative integer, and not -0 (Object.is)",
      );
      expect(error.message, "说明是时钟出了问题 / say that it is the clock that is wrong").toMatch(/clock/i);
      expect(session.events, "被拒绝的 append 不能动快照 / a rejected append must not touch the snapshot").toBe(before);
      expect(session.events).toHaveLength(1);
      expect(session.append("user/message", { content: "hi" }).id, "下一个 id 仍是 1 / the next id is still 1").toBe(1);
    },
  );

  const rejected: [string, string, () => [string, unknown], new (...args: never[]) => Error][] = [
    ["空类型", "an empty type", () => ["", { content: "hi" }], TypeError],
    ["data 里有 Date，不是 JSON", "a Date inside the data (not JSON)", () => ["test/note", { when: new Date(0) }], JsonValueError],
    ["data 里有 NaN，不是 JSON", "NaN inside the data (not JSON)", () => ["test/note", { scores: [1, Number.NaN] }], JsonValueError],
    ["data 里有函数，不是 JSON", "a function inside the data (not JSON)", () => ["test/note", { run: () => 1 }], JsonValueError],
    ["data 是数组，不是对象", "data that is an array, not an object", () => ["test/note", [1, 2]], JsonValueError],
    ["data 是字符串，不是对象", "data that is a string, not an object", () => ["test/note", "hi"], JsonValueError],
    ["data 是 null，不是对象", "data that is null, not an object", () => ["test/note", null], JsonValueError],
    ["已知类型的字段类型不对", "a known type with a field of the wrong type", () => ["user/message", { content: 1 }], EventDataError],
    ["已知类型缺一个字段", "a known type with a field missing", () => ["tool/result", { call_id: "c1", content: "7" }], EventDataError],
    [
      "已知类型的值不在枚举里",
      "a known type with a value outside its enum",
      () => ["turn/end", { turn: 1, reason: "done" }],
      EventDataError,
    ],
  ];
  test.each(rejected)(
    "被拒绝的 append（%s）不改变日志 / a rejected append (%s) leaves the log untouched",
    (_zh, _en, input, errorClass) => {
      const session = new Session();
      session.append("turn/start", { turn: 1 });
      const before = cachedSnapshot(session);
      const [type, data] = input();
      thrownAs(errorClass, () => session.append(type, data as never), mustReject);
      expect(session.events, "被拒绝的 append 不能动快照 / a rejected append must not touch the snapshot").toBe(before);
      expect(session.events).toHaveLength(1);
      expect(session.append("user/message", { content: "hi" }).id, "被拒绝的 append 不占 id / no id is used up by a rejected append").toBe(
        1,
      );
    },
  );

  /** `levels` arrays nested around 0, as JSON.parse would make them from a file: no recursion. */
  const deepArray = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}0${"]".repeat(levels)}`);

  test.each([
    ["数字", "a number", 42],
    ["null", "null", null],
    ["undefined", "undefined", undefined],
    ["数组", "an array", ["user/message"]],
    ["嵌套 5,000 层的数组", "an array nested 5,000 levels deep", deepArray(5_000)],
    ["bigint", "a bigint", 1n],
    ["symbol", "a symbol", Symbol("user/message")],
  ])(
    "类型（%s）是 TypeError，点明是类型的问题，绝不是别的错误 / a type that is %s is a TypeError naming the type, never another error",
    (_zh, _en, type) => {
      const session = new Session();
      const error = thrownAs(
        TypeError,
        () => session.append(type as never, { content: "hi" } as never),
        "抛 TypeError，消息里不要 JSON.stringify 这个类型：遇到 bigint 它会抛错，嵌套太深会栈溢出 / a TypeError, and its message must not JSON.stringify the type: that throws on a bigint and overflows on deep nesting",
      );
      expect(error.message, "说明是类型出了问题 / say that it is the type that is wrong").toMatch(/type/i);
      expect(session.events).toEqual([]);
    },
  );

  test.each([
    ["数组", "an array", [1, 2]],
    ["字符串", "a string", "hi"],
    ["null", "null", null],
  ])(
    "data（%s）是路径为 $ 的 JsonValueError，说明事件数据必须是对象 / data that is %s is a JsonValueError at $ saying that event data must be an object",
    (_zh, _en, data) => {
      const error = thrownAs(
        JsonValueError,
        () => new Session().append("test/note", data as never),
        "事件数据必须是 JSON 对象 / event data must be a JSON object",
      );
      expect(error.path, "整个 data 都不对：路径是 $ / the whole data is wrong: its path is $").toBe("$");
      expect(error.reason, "说出它必须是什么：object（对象） / say what it must be: an object").toMatch(/object/);
    },
  );

  test("已知类型的坏数据是 EventDataError，点明类型和字段 / bad data for a known type is an EventDataError naming the type and the field", () => {
    const session = new Session();
    const error = thrownAs(
      EventDataError,
      () => session.append("user/message", { content: 1 } as never),
      "已知类型的数据用 checkEventData 检查 / a known type's data is checked with checkEventData",
    );
    expect(error).toMatchObject({ type: "user/message", path: "$.content" });
    expect(error.message).toContain("user/message");
    expect(error.message).toContain("content");
  });

  test("构造时传入的 schemas 和内置的一样检查 / schemas passed to the constructor are checked like the built-in ones", () => {
    const session = new Session({ schemas: { "test/note": z.object({ text: z.string() }) } });
    expect(session.append("test/note", { text: "ok" }).id).toBe(0);
    thrownAs(
      EventDataError,
      () => session.append("test/note", { text: 42 }),
      "通过 options.schemas 加入的类型也必须检查：把 this.#schemas 传给 checkEventData / a type added through options.schemas must be checked: pass this.#schemas to checkEventData",
    );
    expect(session.events).toHaveLength(1);
  });

  test.each([
    ["user/message", { content: "hi", role: "system" }, "role"],
    ["tool/result", { call_id: "c1", content: "7", is_error: false, tool_call_id: "c1" }, "tool_call_id"],
    ["assistant/message", { content: "", tool_calls: [{ id: "c1", name: "calculator", arguments: "{}", type: "function" }] }, "type"],
  ])(
    "词表里没有的键是 EventDataError：多了一个键的 $0 / a key the vocabulary does not know is an EventDataError: $0 with an extra key",
    (type, data, key) => {
      const session = new Session();
      const error = thrownAs(
        EventDataError,
        () => session.append(type, data as never),
        "内置 schema 是严格的：它们没列出的键是错误，不是数据 / the built-in schemas are strict: a key they do not list is a mistake, not data",
      );
      expect(error.message, "消息里点出那个未知的键 / the message names the unknown key").toContain(`"${key}"`);
      expect(session.events, "被拒绝的 append 不改变日志 / a rejected append leaves the log untouched").toEqual([]);
    },
  );

  test.each([
    ["用 undefined 关掉", "switched off with undefined", undefined],
    ["换成宽松的 schema", "replaced by a permissive schema", z.unknown()],
  ])(
    "构造时的 schemas 只能新增类型：内置的检查不能%s / the constructor's schemas only add types: a built-in check cannot be %s",
    (_zh, _en, replacement) => {
      const session = new Session({
        schemas: { "user/message": replacement, "test/note": z.object({ text: z.string() }) },
      });
      thrownAs(
        EventDataError,
        () => session.append("user/message", { content: 1 } as never),
        "内置的检查必须照样运行：把 this.#schemas（已经替你合并好）传给 checkEventData / the built-in check must still run: pass this.#schemas (already merged for you) to checkEventData",
      );
      thrownAs(
        EventDataError,
        () => session.append("user/message", { content: "hi", role: "system" } as never),
        "内置 schema 仍然严格 / the built-in schema is still strict",
      );
      thrownAs(
        EventDataError,
        () => session.append("test/note", { text: 42 }),
        "options.schemas 里加的类型也要检查 / a type added in options.schemas is checked too",
      );
      expect(session.events).toEqual([]);
      expect(session.append("user/message", { content: "hi" }).id).toBe(0);
    },
  );

  test.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    "和 Object 的属性同名的事件类型（$0）只是普通的未知类型：append 照常记录 / an event type named like an Object property ($0) is an ordinary unknown type: append keeps it",
    (type) => {
      const session = new Session({ clock: () => 1_000 });
      const event = session.append(type, { text: "not Object's" });
      expect(
        event,
        "给定的 checkEventData 只按自有的键查 schema（Object.hasOwn）；直接写 schemas[type] 会找到 Object.prototype 上的属性 / the given checkEventData looks schemas up by own key (Object.hasOwn); a plain schemas[type] would find Object.prototype's",
      ).toEqual({ id: 0, type, ts: 1_000, data: { text: "not Object's" } });
      expect(session.events).toEqual([event]);
    },
  );
});

// ── events: frozen snapshots ──────────────────────────────────────────────────────────────────────

describe("05.2 events：冻结的快照 / a frozen snapshot", () => {
  test("在下一次 append 之前，events 是同一个冻结的数组 / events is the same frozen array until the next append", () => {
    const session = new Session();
    session.append("turn/start", { turn: 1 });
    const first = session.events;
    expect(Object.isFrozen(first), "events 必须冻结 / events must be frozen").toBe(true);
    expect(session.events, "读两次 events 不能把日志再复制一遍 / reading events twice must not copy the log again").toBe(first);
    session.append("user/message", { content: "hi" });
    expect(session.events, "append 之后，events 是新的快照 / after an append, events is a new snapshot").not.toBe(first);
    expect(Object.isFrozen(session.events)).toBe(true);
  });

  test("旧快照永远不会变长 / an old snapshot never grows", () => {
    const session = new Session();
    session.append("turn/start", { turn: 1 });
    const old = session.events;
    session.append("user/message", { content: "hi" });
    session.append("user/message", { content: "again" });
    expect(old).toHaveLength(1);
    expect(session.events).toHaveLength(3);
    expect(session.events[0], "快照之间共用（冻结的）事件本身 / snapshots share the (frozen) events themselves").toBe(old[0]);
  });

  test("事件和全部嵌套数据都深度冻结：每种写入都抛 TypeError / events and all nested data are deep-frozen: every write throws TypeError", () => {
    const session = new Session();
    const event = session.append("assistant/message", assistantData);
    for (const [path, container] of containers(event, "event")) expectEveryWriteToThrow(container, path);
    expectEveryWriteToThrow(session.events, "session.events");
    expect(session.events[0]).toEqual({ id: 0, type: "assistant/message", ts: event.ts, data: assistantData });
  });

  test("append 之后改调用方的输入，什么都不会变 / mutating the caller's input after append changes nothing", () => {
    const session = new Session();
    const input = jsonCopy(assistantData);
    const event = session.append("assistant/message", input);
    expect(event.data, "append 必须存副本，不能存调用方的对象 / append must store a copy, not the caller's object").not.toBe(input);
    input.content = "changed";
    input.tool_calls[0]!.arguments = "changed";
    input.tool_calls.push({ id: "call_2", name: "calculator", arguments: "{}" });
    expect(session.events[0]!.data).toEqual(assistantData);
  });
});

// ── subscribe ─────────────────────────────────────────────────────────────────────────────────────

describe("05.2 subscribe：订阅者在提交之后收到每条事件 / listeners hear each event after commit", () => {
  test("订阅者收到每条追加的事件，收到时它已在日志里 / a listener hears each appended event, already in the log", () => {
    const session = new Session();
    const heard: { event: SessionEvent; inLog: boolean }[] = [];
    session.subscribe((event) => heard.push({ event, inLog: session.events[event.id] === event }));
    const first = session.append("turn/start", { turn: 1 });
    const second = session.append("user/message", { content: "hi" });
    expect(
      heard.map(({ event }) => event),
      "订阅者收到的就是已提交的事件本身 / listeners get the committed events themselves",
    ).toEqual([first, second]);
    expect(heard[0]!.event).toBe(first);
    expect(
      heard.map(({ inLog }) => inLog),
      "在订阅者里，session.events 必须已经包含这条事件（先提交，再通知） / inside a listener, session.events must already contain the event (notify after commit)",
    ).toEqual([true, true]);
  });

  test("订阅者只收到它订阅之后追加的事件 / a listener hears only events appended after it subscribed", () => {
    const session = new Session();
    session.append("turn/start", { turn: 1 });
    const listener = vi.fn();
    session.subscribe(listener);
    const event = session.append("user/message", { content: "hi" });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener).toHaveBeenCalledWith(event);
  });

  test("取消订阅就不再投递，再调用一次什么也不做 / unsubscribe stops the deliveries, and calling it again does nothing", () => {
    const session = new Session();
    const listener = vi.fn();
    const other = vi.fn();
    const unsubscribe = session.subscribe(listener);
    session.subscribe(other);
    session.append("turn/start", { turn: 1 });
    unsubscribe();
    unsubscribe();
    session.append("user/message", { content: "hi" });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(other, "取消一个订阅者不能影响另一个 / unsubscribing one listener must not affect another").toHaveBeenCalledTimes(2);
  });

  test("同一个函数订阅两次就被调用两次；每次取消只去掉一个 / the same function subscribed twice is called twice; each unsubscribe removes one", () => {
    const session = new Session();
    const listener = vi.fn();
    const unsubscribeFirst = session.subscribe(listener);
    session.subscribe(listener);
    session.append("turn/start", { turn: 1 });
    expect(listener, "两次订阅，两次投递 / two subscriptions, two deliveries").toHaveBeenCalledTimes(2);
    unsubscribeFirst();
    unsubscribeFirst();
    session.append("user/message", { content: "hi" });
    expect(listener, "第二次订阅还在 / the second subscription is still there").toHaveBeenCalledTimes(3);
  });

  test("抛错的订阅者不丢事件，也不拦住其他订阅者，错误交给 onListenerError / a throwing listener loses no event, stops no other listener, and goes to onListenerError", () => {
    const onListenerError = vi.fn();
    const session = new Session({ onListenerError });
    const boom = new Error("测试里的订阅者故意抛错 / listener failed");
    const before = vi.fn();
    const after = vi.fn();
    session.subscribe(before);
    session.subscribe(() => {
      throw boom;
    });
    session.subscribe(after);
    const event = session.append("user/message", { content: "hi" });
    expect(session.events, "事件仍然已提交 / the event stays committed").toEqual([event]);
    expect(before).toHaveBeenCalledWith(event);
    expect(after, "抛错的订阅者后面的订阅者照样运行 / listeners after the throwing one still run").toHaveBeenCalledWith(event);
    expect(onListenerError).toHaveBeenCalledTimes(1);
    expect(onListenerError).toHaveBeenCalledWith(boom, event);
    session.append("user/message", { content: "again" });
    expect(onListenerError, "抛错的订阅者仍然订阅着 / the throwing listener stays subscribed").toHaveBeenCalledTimes(2);
    expect(after).toHaveBeenCalledTimes(2);
  });

  test("没有 onListenerError 时，订阅者的错误也不会漏出 append / without onListenerError, a listener's error still does not escape append", () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const session = new Session();
      const after = vi.fn();
      session.subscribe(() => {
        throw new Error("测试里的订阅者故意抛错 / listener failed");
      });
      session.subscribe(after);
      const event = session.append("user/message", { content: "hi" });
      expect(session.events).toEqual([event]);
      expect(after).toHaveBeenCalledWith(event);
    } finally {
      quiet.mockRestore();
    }
  });

  test("onListenerError 自己抛错也不会漏出 append、不会拦住其他订阅者，而且会被报告 / even an onListenerError that throws does not escape append or stop the other listeners, and is reported", () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const handlerError = new Error("the error handler failed too");
      const session = new Session({
        onListenerError: () => {
          throw handlerError;
        },
      });
      const after = vi.fn();
      session.subscribe(() => {
        throw new Error("测试里的订阅者故意抛错 / listener failed");
      });
      session.subscribe(after);
      const event = session.append("user/message", { content: "hi" });
      expect(session.events, "事件仍然已提交 / the event stays committed").toEqual([event]);
      expect(after, "调用 onListenerError 也要防住它抛错 / guard the call to onListenerError too").toHaveBeenCalledWith(event);
      expect(
        quiet.mock.calls.flat(),
        "绝不悄悄吞掉：把处理函数自己的错误交给给定的 reportListenerError（它用 console.error 打印） / never swallow it silently: pass the handler's own error to the given reportListenerError (it logs with console.error)",
      ).toContain(handlerError);
    } finally {
      quiet.mockRestore();
    }
  });

  test("订阅者里的 append 要排队：每个订阅者都按 id 顺序收到事件 / an append made inside a listener is queued: every listener hears the ids in order", () => {
    const session = new Session();
    const heardByFirst: number[] = [];
    const heardBySecond: number[] = [];
    let inner: SessionEvent | undefined;
    session.subscribe((event) => {
      heardByFirst.push(event.id);
      if (event.type === "tool/call") {
        inner = session.append("tool/result", { call_id: "c1", content: "7", is_error: false });
      }
    });
    session.subscribe((event) => heardBySecond.push(event.id));
    const outer = session.append("tool/call", { call_id: "c1", name: "calculator", arguments: "{}" });
    expect(outer.id).toBe(0);
    expect(inner?.id, "里面的 append 立即提交，并返回它的事件 / the inner append commits at once and returns its event").toBe(1);
    expect(heardByFirst).toEqual([0, 1]);
    expect(heardBySecond, "第二个订阅者必须先收到事件 0，再收到事件 1 / the second listener must hear event 0 before event 1").toEqual([
      0, 1,
    ]);
    expect(session.events.map((event) => event.id)).toEqual([0, 1]);
  });

  test("投递过程中订阅的订阅者，只收到它订阅之后追加的事件 / a listener subscribed during a delivery hears only the events appended after it subscribed", () => {
    const session = new Session();
    const heardByEarly: number[] = [];
    const heardByLate: number[] = [];
    session.subscribe((event) => {
      if (event.id !== 0) return;
      session.subscribe((e) => heardByEarly.push(e.id)); // subscribed before #1 is appended
      session.append("test/note", { n: 1 }); // #1 waits in the queue until #0 is delivered
      session.subscribe((e) => heardByLate.push(e.id)); // subscribed after #1 was appended
    });
    session.append("test/note", { n: 0 });
    session.append("test/note", { n: 2 });
    expect(
      heardByEarly,
      "在 #1 追加之前订阅：它收到 #1 和 #2，绝不收到 #0 / subscribed before #1 was appended: it hears #1 and #2, never #0",
    ).toEqual([1, 2]);
    expect(
      heardByLate,
      "在 #1 追加之后订阅，#1 当时还在队列里等着：它不能收到 #1。让每条事件带着它追加时已订阅的订阅者一起排队 / " +
        "subscribed after #1 was appended, while #1 still waited in the queue: it must not hear #1. " +
        "Queue each event with the listeners subscribed when it was appended",
    ).toEqual([2]);
  });

  test("投递过程中被前面的订阅者取消订阅的订阅者，不会再为这条事件被调用 / a listener unsubscribed by an earlier listener during a delivery is not called for that event", () => {
    const session = new Session();
    const heard: number[] = [];
    let unsubscribeSecond: () => void = () => undefined;
    session.subscribe((event) => {
      if (event.id !== 0) return;
      session.append("test/note", { n: 1 }); // queued while the second listener is still subscribed
      unsubscribeSecond();
    });
    unsubscribeSecond = session.subscribe((event) => heard.push(event.id));
    session.append("test/note", { n: 0 });
    expect(
      heard,
      "轮到它之前它已被取消订阅：跳过不再订阅的订阅者，#0 和排队的 #1 都要跳过 / it was unsubscribed before its turn came: skip a listener that is no longer subscribed, for #0 and for the queued #1",
    ).toEqual([]);
    expect(session.events.map((event) => event.id)).toEqual([0, 1]);
  });

  test("订阅者里的 append 嵌套好几层：每个订阅者收到的 id 都严格递增 / appends inside listeners, several deep: each listener hears strictly increasing ids", () => {
    const session = new Session();
    const heard: number[][] = [[], [], []];
    for (const [n, ids] of heard.entries()) {
      session.subscribe((event) => {
        ids.push(event.id);
        // Listener n appends once for each of the first events it hears, so appends nest.
        if (n < 2 && event.id < 3) session.append("test/note", { from: n, on: event.id });
      });
    }
    session.append("test/note", { from: "test" });
    const all = session.events.map((event) => event.id);
    for (const ids of heard)
      expect(ids, "每个订阅者按 id 顺序把每条事件各收到一次 / every listener hears every event once, in id order").toEqual(all);
    expect(all).toEqual(all.map((_, index) => index));
  });
});

// ── properties ────────────────────────────────────────────────────────────────────────────────────

describe("05.2 属性测试（随机日志；失败时 fast-check 打印种子，可以重现） / properties (random logs; on failure fast-check prints a seed to replay)", () => {
  test("不管怎样 append，id 都从 0 开始连续 / ids are contiguous from 0 under any sequence of appends", () => {
    fc.assert(
      fc.property(eventInputsArb, (inputs) => {
        const session = new Session({ clock: tickingClock() });
        const returned = appendAll(session, inputs);
        expect(returned.map((event) => event.id)).toEqual(inputs.map((_, index) => index));
        expect(session.events).toEqual(returned);
        session.events.forEach((event, index) => {
          expect(event).toBe(returned[index]);
          expect(event.type).toBe(inputs[index]!.type);
          expect(event.data).toEqual(inputs[index]!.data);
        });
      }),
      { numRuns: 100 },
    );
  });

  test("被拒绝的 append 不占 id，每个快照都保持原样 / rejected appends use up no id and leave every snapshot as it was", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            eventInputsArb,
            badEventInputArb.map((bad) => [bad]),
          ),
          { maxLength: 8 },
        ),
        (batches) => {
          const session = new Session({ clock: tickingClock() });
          const errorClasses = { TypeError, JsonValueError, EventDataError };
          for (const input of batches.flat()) {
            const before = cachedSnapshot(session);
            if ("throws" in input) {
              thrownAs(errorClasses[input.throws], () => session.append(input.type, input.data as never), mustReject);
              expect(session.events, "被拒绝的 append 不能动快照 / a rejected append must not touch the snapshot").toBe(before);
            } else {
              expect(session.append(input.type, input.data).id).toBe(before.length);
            }
          }
          expect(session.events.map((event) => event.id)).toEqual(session.events.map((_, index) => index));
        },
      ),
      { numRuns: 100 },
    );
  });

  test("不可变：事件、嵌套数据、快照都改不动 / immutability: no event, nested datum or snapshot can be changed", () => {
    fc.assert(
      fc.property(eventInputsArb, (inputs) => {
        const session = new Session({ clock: tickingClock() });
        appendAll(session, inputs);
        const snapshot = session.events;
        const expected = jsonCopy(snapshot);
        for (const [path, container] of containers(snapshot, "events")) expectEveryWriteToThrow(container, path);
        expect(session.events, "试过那些写入之后 / after all those writes").toEqual(expected);
      }),
      { numRuns: 50 },
    );
  });

  test("append 之后改调用方的输入，什么都不会变 / mutating the caller's input after append changes nothing", () => {
    fc.assert(
      fc.property(eventInputsArb, (generated) => {
        const inputs = jsonCopy(generated); // our own copy to scribble on (fast-check may reuse its values)
        const session = new Session({ clock: tickingClock() });
        appendAll(session, inputs);
        mutateEverywhere(inputs);
        expect(session.events.map(({ type, data }) => ({ type, data }))).toEqual(jsonCopy(generated));
      }),
      { numRuns: 100 },
    );
  });
});

// ── types ─────────────────────────────────────────────────────────────────────────────────────────

// Never called: vitest does not typecheck, but `npx tsc --noEmit` (CI's typecheck) does. Each
// `@ts-expect-error` line must be a compile error, or tsc reports the directive as unused. So
// `append`'s signature must tie the data to the type: `append<T extends string>(type: T, data: EventData<T>)`.
function appendIsTypeChecked(session: Session): void {
  // @ts-expect-error content must be a string
  session.append("user/message", { content: 1 });
  // @ts-expect-error is_error is missing
  session.append("tool/result", { call_id: "c1", content: "7" });
  // @ts-expect-error reason must be "completed", "max_steps" or "error"
  session.append("turn/end", { turn: 1, reason: "done" });
  // @ts-expect-error an event's data is a JSON object, never a string
  session.append("test/note", "text");
  // A type outside the vocabulary takes any JSON object.
  session.append("test/note", { text: "fine" });
  // The returned event is typed by its type: no cast needed to read its data.
  const content: string = session.append("user/message", { content: "hi" }).data.content;
  void content;
}
void appendIsTypeChecked;
