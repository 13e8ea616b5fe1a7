// Step 05.4 — replay (book §5.6 "重放：从日志重建一切"). `Session.fromLog` rebuilds a session from a
// stored log — typically `JSON.parse` of saved events — and trusts nothing in it: every entry is
// checked, and the first broken one is reported as a ReplayError with its index and a code naming
// the rule. Most tests here hand fromLog a log written by hand. The tests that check what is "not
// projected" and the properties at the end also use your projection (step 05.3), and the properties
// build their logs with your Session (step 05.2).
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { JsonValueError, MAX_JSON_DEPTH } from "../../chapters/05-session-log/json-value.ts";
import { ReplayError } from "../../chapters/05-session-log/session-types.ts";
import { Session } from "./session.ts";
import { eventInputArb, eventInputsArb, jsonValueArb, knownEventTypes, tickingClock, type EventInput } from "./arbitraries.ts";
import { caughtAs, thrownAs } from "./thrown.ts";

// ── a stored log, as JSON.parse would give it back ─────────────────────────────────────────────────

const calculatorCall = { id: "call_1", name: "calculator", arguments: '{"expression":"1+2*3"}' };

/** A fresh, mutable copy each time: one calculator round trip, plus a type outside the vocabulary. */
function storedLog(): Record<string, unknown>[] {
  return [
    { id: 0, type: "turn/start", ts: 1_000, data: { turn: 1 } },
    { id: 1, type: "user/message", ts: 1_001, data: { content: "1+2*3 等于几？" } },
    { id: 2, type: "step/start", ts: 1_002, data: { turn: 1, step: 1 } },
    {
      id: 3,
      type: "assistant/message",
      ts: 1_003,
      data: { content: "", reasoning_content: "先算乘法。", tool_calls: [{ ...calculatorCall }] },
    },
    {
      id: 4,
      type: "tool/call",
      ts: 1_004,
      data: { call_id: "call_1", name: "calculator", arguments: calculatorCall.arguments },
    },
    { id: 5, type: "tool/result", ts: 1_005, data: { call_id: "call_1", content: "7", is_error: false } },
    { id: 6, type: "test/progress", ts: 1_006, data: { shown_to: "the UI only", percent: [50, 100] } },
    { id: 7, type: "step/end", ts: 1_007, data: { turn: 1, step: 1 } },
  ];
}

const storedMessages = [
  { role: "user", content: "1+2*3 等于几？" },
  { role: "assistant", content: "", reasoning_content: "先算乘法。", tool_calls: [calculatorCall] },
  { role: "tool", content: "7", tool_call_id: "call_1" },
];

/** `storedLog()` with entry `index` changed by `change` (which may replace the entry outright). */
function logWith(index: number, change: (entry: Record<string, unknown>) => unknown): unknown[] {
  const log: unknown[] = storedLog();
  log[index] = change(log[index] as Record<string, unknown>);
  return log;
}

/** A copy of `entry` with `key` set to `value`, or with `key` left out when `value` is undefined. */
function withKey(entry: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...entry, [key]: value };
  if (value === undefined) delete copy[key];
  return copy;
}

/** Session.fromLog(log), failing the test with a readable message if it throws. */
function replayWithoutError(log: unknown[]): Session {
  try {
    return Session.fromLog(log);
  } catch (error) {
    throw new Error(
      `fromLog 应当接受这份日志，却抛出了 ${String(error)}。只按自有的键查 schema（给定的 checkEventData 就是这样做的：Object.hasOwn） / ` +
        `fromLog must accept this log, but threw ${String(error)}. ` +
        "Look schemas up by own key only (the given checkEventData does: Object.hasOwn)",
      { cause: error },
    );
  }
}

/**
 * Runs `replay` and returns the ReplayError it threw; anything else fails the test, naming 05.4's rule. A
 * fromLog that lets a broken entry through may fail further on, in another file (05.6's cache refuses an
 * event with the wrong id): the rule that broke is still this one.
 */
function replayError(replay: () => unknown): ReplayError {
  return thrownAs(
    ReplayError,
    replay,
    "练习步骤 05.4 的规则：fromLog 在提交之前逐条检查，遇到第一条坏事件就抛 ReplayError（稀疏数组的空洞也算：forEach 和 map 会跳过空洞，要用下标循环） / " +
      "step 05.4's rule: fromLog checks each entry before committing it, and throws a ReplayError at the first broken one " +
      "(a hole in a sparse array counts: forEach and map skip holes, so loop with an index)",
  );
}

function expectReplayError(log: unknown, index: number, code: string): ReplayError {
  const error = replayError(() => Session.fromLog(log));
  expect(
    { index: error.index, code: error.code },
    "第一条坏事件的下标，和它违反的规则的错误码 / the index of the first broken entry, and the rule's code",
  ).toEqual({
    index,
    code,
  });
  expect(error.message, "消息里写出是哪一条事件 / the message names the entry").toContain(`event #${index}`);
  return error;
}

function expectDeepFrozen(value: unknown, where: string): void {
  if (typeof value !== "object" || value === null) return;
  expect(Object.isFrozen(value), `${where} 必须冻结 / ${where} must be frozen`).toBe(true);
  for (const [key, child] of Object.entries(value)) expectDeepFrozen(child, `${where}.${key}`);
}

// ── a good log ────────────────────────────────────────────────────────────────────────────────────

describe("05.4 fromLog：格式正确的日志原样重放 / a well-formed log replays as it was", () => {
  const asStored =
    "每条事件都和存储时一样回来，ts 也一样：提交存储的事件，不要再 append 一遍（append 会打上新的 ts） / " +
    "each event comes back as stored, ts included: commit the stored events, do not append them again (append stamps a new ts)";

  test("存储的日志重放出同样的事件 / a stored log replays to the same events", () => {
    expect(Session.fromLog(storedLog()).events, asStored).toEqual(storedLog());
  });

  test("经过一次 JSON 往返，重放出同样的事件 / a JSON round trip replays to the same events", () => {
    const text = JSON.stringify(storedLog());
    expect(Session.fromLog(JSON.parse(text)).events, asStored).toEqual(storedLog());
  });

  test("空日志重放出空会话 / an empty log replays to an empty session", () => {
    expect(Session.fromLog([]).events).toEqual([]);
  });

  test("未知但格式正确的类型保留下来，不投影 / unknown but well-formed types are kept, and not projected", () => {
    const session = Session.fromLog(storedLog());
    expect(session.events[6], "未知类型留在日志里 / an unknown type stays in the log").toEqual(storedLog()[6]);
    expect(session.deriveMessages(), "只有 user/assistant/tool 事件变成消息 / only user/assistant/tool events become messages").toEqual(
      storedMessages,
    );
  });

  test.each(["constructor", "__proto__", "toString"])(
    "类型为 $0 的事件只是普通的未知类型：保留，不投影 / an event whose type is $0 is an ordinary unknown type: kept, not projected",
    (type) => {
      const log = logWith(6, (entry) => ({ ...entry, type }));
      const session = replayWithoutError(log);
      expect(session.events[6], "按存储时的样子保留 / kept as it was stored").toEqual({ ...storedLog()[6], type });
      expect(session.deriveMessages()).toEqual(storedMessages);
    },
  );

  test("重放出的事件深度冻结，放在冻结的快照里 / the replayed events are deep-frozen, in a frozen snapshot", () => {
    const session = Session.fromLog(storedLog());
    expectDeepFrozen(session.events, "events");
  });

  test("不和输入共用任何东西：事后改输入，什么都不会变 / nothing is shared with the input: changing it afterwards changes nothing", () => {
    const log = storedLog();
    const session = Session.fromLog(log);
    session.events.forEach((event, index) => {
      expect(event, `events[${index}] 必须是新对象，不能是调用方的 / events[${index}] must be a new object, not the caller's`).not.toBe(
        log[index],
      );
      expect(event.data, `events[${index}].data 必须是副本 / events[${index}].data must be a copy`).not.toBe(log[index]!.data);
    });
    const assistant = log[3]!.data as { content: string; tool_calls: { arguments: string }[] };
    assistant.content = "changed";
    assistant.tool_calls[0]!.arguments = "changed";
    assistant.tool_calls.push({ arguments: "added" });
    log[0]!.id = 99;
    log.push({ id: 8, type: "user/message", ts: 2_000, data: { content: "added later" } });
    expect(session.events).toEqual(storedLog());
  });

  test("重放出的会话继续 append 时从下一个 id 开始 / a replayed session keeps appending with the next id", () => {
    const session = Session.fromLog(storedLog(), { clock: () => 5_000 });
    const event = session.append("tool/result", { call_id: "call_2", content: "8", is_error: false });
    expect(event).toEqual({
      id: 8,
      type: "tool/result",
      ts: 5_000,
      data: { call_id: "call_2", content: "8", is_error: false },
    });
    expect(session.events).toHaveLength(9);
  });

  test("重放出的会话的订阅者只收到新事件 / a replayed session's listeners hear the new events only", () => {
    const session = Session.fromLog(storedLog());
    const heard: number[] = [];
    session.subscribe((event) => heard.push(event.id));
    session.append("step/end", { turn: 1, step: 2 });
    expect(heard).toEqual([8]);
  });
});

// ── broken logs ───────────────────────────────────────────────────────────────────────────────────

describe("05.4 fromLog：损坏的日志是 ReplayError，点明是哪一条、违反了哪条规则 / a broken log is a ReplayError naming the entry and the rule", () => {
  test.each([
    ["有空缺（…, 1, 3, …）", "a gap (…, 1, 3, …)", 2, 3],
    ["有重复（…, 1, 1, …）", "a duplicate (…, 1, 1, …)", 2, 1],
    ["字符串 id", "a string id", 2, "2"],
    ["缺少 id", "a missing id", 2, undefined],
  ])("id 必须等于下标：%s，是 ID_MISMATCH / ids must equal their index — %s is ID_MISMATCH", (_zh, _en, index, id) => {
    expectReplayError(
      logWith(index, (entry) => withKey(entry, "id", id)),
      index,
      "ID_MISMATCH",
    );
  });

  test("id 必须从 0 开始——从 1 编号的日志在 #0 处就失败 / ids must start at 0 — a log numbered from 1 fails at entry #0", () => {
    const log = storedLog().map((entry) => ({ ...entry, id: (entry.id as number) + 1 }));
    expectReplayError(log, 0, "ID_MISMATCH");
  });

  test("ID_MISMATCH 的消息说出找到的 id 和应有的 id / the message of an ID_MISMATCH says which id was found and which was expected", () => {
    const error = expectReplayError(
      logWith(3, (entry) => ({ ...entry, id: 7 })),
      3,
      "ID_MISMATCH",
    );
    const { detail } = error;
    expect(detail, "说出找到的 id / name the id that was found").toContain("7");
    expect(detail, "以及应有的 id（即下标） / and the id that was expected (the index)").toContain("3");
  });

  test.each([
    ["null", "null", null],
    ["字符串", "a string", "user/message"],
    ["数字", "a number", 3],
    ["数组", "an array", [3, "user/message", 1_003, {}]],
  ])("不是对象的条目（%s）是 NOT_AN_EVENT / an entry that is not an object (%s) is NOT_AN_EVENT", (_zh, _en, entry) => {
    expectReplayError(
      logWith(3, () => entry),
      3,
      "NOT_AN_EVENT",
    );
  });

  test("手工做的稀疏数组里的空洞是 NOT_AN_EVENT，不能跳过 / a hole in a hand-made sparse array is NOT_AN_EVENT, not skipped", () => {
    const log: unknown[] = storedLog();
    delete log[2]; // [e0, e1, <hole>, e3, …]: forEach and map would skip it
    expectReplayError(log, 2, "NOT_AN_EVENT");
  });

  test.each([
    ["缺少", "missing", undefined],
    ["空的", "empty", ""],
    ["数字", "a number", 42],
    ["null", "null", null],
  ])("类型（%s）是 BAD_TYPE / a type that is %s is BAD_TYPE", (_zh, _en, type) => {
    expectReplayError(
      logWith(3, (entry) => withKey(entry, "type", type)),
      3,
      "BAD_TYPE",
    );
  });

  test.each([
    ["小数", "a fraction", 1_003.5],
    ["负数", "negative", -1],
    ["字符串", "a string", "1003"],
    ["缺少", "missing", undefined],
    ["null", "null", null],
    ["不安全的整数", "an unsafe integer", 2 ** 53],
    ["NaN，不是 JSON.parse 产生的，来自手工做的数组", "NaN (not from JSON.parse, but from a hand-made array)", Number.NaN],
    ["-0，JSON.stringify 把它写成 0", "-0 (JSON.stringify writes it as 0)", -0],
  ])("ts（%s）是 BAD_TS / a ts that is %s is BAD_TS", (_zh, _en, ts) => {
    expectReplayError(
      logWith(3, (entry) => withKey(entry, "ts", ts)),
      3,
      "BAD_TS",
    );
  });

  test.each([
    ["数组", "an array", [1, 2]],
    ["null", "null", null],
    ["字符串", "a string", "content"],
    ["缺少", "missing", undefined],
    ["里面有 Date 的对象", "an object with a Date inside", { when: new Date(0) }],
    ["里面有 NaN 的对象", "an object with NaN inside", { scores: [1, Number.NaN] }],
    ["里面有 -0 的对象", "an object with -0 inside", { scores: [1, -0] }],
  ])("data（%s）是 BAD_DATA：data 必须是 JSON 对象 / data that is %s is BAD_DATA (data must be a JSON object)", (_zh, _en, data) => {
    expectReplayError(
      logWith(6, (entry) => withKey(entry, "data", data)),
      6,
      "BAD_DATA",
    );
  });

  test("JSON.parse 能产生 -0（来自文本 -0）：fromLog 在 data 里和 ts 上都拒绝它 / JSON.parse can produce -0 (from the text -0): fromLog rejects it in data and as a ts", () => {
    const text = '[{"id":0,"type":"test/progress","ts":1000,"data":{"delta":-0}}]';
    expectReplayError(JSON.parse(text), 0, "BAD_DATA");
    const asTs = '[{"id":0,"type":"test/progress","ts":-0,"data":{}}]';
    const error = expectReplayError(JSON.parse(asTs), 0, "BAD_TS");
    expect(error.message, "ts 不能是 -0：用 Object.is(ts, -0) 判断 / ts is not -0: Object.is(ts, -0)").toMatch(/\bts\b/);
  });

  test("嵌套超过 MAX_JSON_DEPTH 层的 data（文件里可以是任意深度）是 BAD_DATA，写出上限 / data nested deeper than MAX_JSON_DEPTH (a file can hold any depth) is BAD_DATA naming the limit", () => {
    const levels = MAX_JSON_DEPTH + 1;
    const text = `[{"id":0,"type":"test/progress","ts":1000,"data":{"deep":${"[".repeat(levels)}${"]".repeat(levels)}}}]`;
    const error = expectReplayError(JSON.parse(text), 0, "BAD_DATA");
    expect(
      error.message.replaceAll(",", ""),
      "保留 JsonValueError 的 reason：它写出了上限 / keep the JsonValueError's reason: it names the limit",
    ).toContain(String(MAX_JSON_DEPTH));
  });

  test.each([
    ["NOT_A_LOG", () => ({ events: [] }), 0, /array/],
    ["NOT_AN_EVENT", () => logWith(3, () => "user/message"), 3, /object/],
    ["NOT_AN_EVENT", () => logWith(3, () => null), 3, /object/],
    ["ID_MISMATCH", () => logWith(3, (entry) => ({ ...entry, id: 8 })), 3, /\bid\b/],
    ["BAD_TYPE", () => logWith(3, (entry) => ({ ...entry, type: 7 })), 3, /\btype\b/],
    ["BAD_TS", () => logWith(3, (entry) => ({ ...entry, ts: -5 })), 3, /\bts\b/],
    ["BAD_DATA", () => logWith(6, (entry) => ({ ...entry, data: { scores: [1, Number.NaN] } })), 6, /\bdata\b.*scores\[1\]/],
  ] as const)(
    "$0 的消息点出要改的字段（data 还要点出里面的路径） / the message of $0 names the field to fix (and, for data, the path inside it)",
    (code, log, index, names) => {
      const error = expectReplayError(log(), index, code);
      expect(error.message, `detail 必须说出哪里不对（匹配 ${names}） / the detail must say what is wrong (matching ${names})`).toMatch(
        names,
      );
    },
  );

  /** `levels` arrays nested around nothing, as JSON.parse makes them from a file. */
  const deepArray = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

  test.each([
    [
      "bigint 类型的 id（JSON.stringify 遇到它会抛错）是 ID_MISMATCH",
      "an id that is a bigint (JSON.stringify throws on it) is ID_MISMATCH",
      "ID_MISMATCH",
      "id",
      3n,
    ],
    [
      "嵌套 5,000 层数组的 id（JSON.stringify 遇到它会栈溢出）是 ID_MISMATCH",
      "an id nested 5,000 arrays deep (JSON.stringify overflows on it) is ID_MISMATCH",
      "ID_MISMATCH",
      "id",
      deepArray(5_000),
    ],
    ["嵌套 5,000 层数组的 type 是 BAD_TYPE", "a type nested 5,000 arrays deep is BAD_TYPE", "BAD_TYPE", "type", deepArray(5_000)],
    ["嵌套 5,000 层数组的 ts 是 BAD_TS", "a ts nested 5,000 arrays deep is BAD_TS", "BAD_TS", "ts", deepArray(5_000)],
    [
      "10 万字符的字符串 id 是 ID_MISMATCH",
      "an id that is a 100,000-character string is ID_MISMATCH",
      "ID_MISMATCH",
      "id",
      "3".repeat(100_000),
    ],
    [
      "10 万字符长的键是 UNEXPECTED_KEY",
      "a key that is 100,000 characters long is UNEXPECTED_KEY",
      "UNEXPECTED_KEY",
      "x".repeat(100_000),
      1,
    ],
    [
      "10 万字符的键下面有 NaN 的 data 是 BAD_DATA",
      "data with NaN under a 100,000-character key is BAD_DATA",
      "BAD_DATA",
      "data",
      { ["k".repeat(100_000)]: Number.NaN },
    ],
  ] as const)("%s，消息要短 / %s, with a short message", (_zh, _en, code, key, value) => {
    const error = expectReplayError(
      logWith(3, (entry) => ({ ...entry, [key]: value })),
      3,
      code,
    );
    expect(
      error.message.length,
      "用几个词描述找到的东西（长字符串截短，数组和对象只说是什么）：绝不整个 JSON.stringify / describe what was found in a few words (clip long strings, name arrays and objects): never JSON.stringify it whole",
    ).toBeLessThan(300);
  });

  test("读取时抛错的日志（已撤销的 Proxy）是 NOT_A_LOG，原错误作为 cause / a log that throws when read (a revoked Proxy) is NOT_A_LOG, with the error as its cause", () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    const error = expectReplayError(proxy, 0, "NOT_A_LOG");
    expect(
      error.cause,
      "把原错误放进 cause：new ReplayError(index, code, detail, { cause: error }) / keep the error as the cause: new ReplayError(index, code, detail, { cause: error })",
    ).toBeInstanceOf(TypeError);
    expect(error.message, "detail 要说出发生了什么 / a detail that says what happened").toMatch(/event #0: \S/);
  });

  test("读取时抛错的条目（getter、Proxy 的 trap）是它那个下标上的 NOT_AN_EVENT，原错误作为 cause / an entry that throws when read (a getter, a Proxy's trap) is NOT_AN_EVENT at its index, with the error as its cause", () => {
    const boom = new Error("测试里的 getter 故意抛错 / a getter threw");
    const throwing = (): unknown =>
      Object.defineProperty({ id: 2, type: "step/start", ts: 1_002, data: { turn: 1, step: 1 } }, "ts", {
        get: () => {
          throw boom;
        },
        enumerable: true,
      });
    for (const log of [
      logWith(2, throwing),
      new Proxy(storedLog(), {
        get: (target, key, receiver) => {
          if (key === "2") throw boom;
          return Reflect.get(target, key, receiver);
        },
      }),
    ]) {
      const error = expectReplayError(log, 2, "NOT_AN_EVENT");
      expect(
        error.cause,
        "把原错误放进 cause：new ReplayError(index, code, detail, { cause: error }) / keep the error as the cause: new ReplayError(index, code, detail, { cause: error })",
      ).toBe(boom);
      expect(error.message, "detail 要说出发生了什么 / a detail that says what happened").toMatch(/event #2: \S/);
    }
  });

  test("多出来的键是 UNEXPECTED_KEY（事件正好有 id、type、ts、data 这几个键） / an unexpected extra key is UNEXPECTED_KEY (an event has exactly id, type, ts and data)", () => {
    const error = expectReplayError(
      logWith(3, (entry) => ({ ...entry, role: "assistant" })),
      3,
      "UNEXPECTED_KEY",
    );
    expect(error.message).toContain("role");
  });

  test("已知类型的坏数据是 SCHEMA，消息点明类型和字段 / bad data for a known type is SCHEMA, and the message names the type and the field", () => {
    const error = expectReplayError(
      logWith(1, (entry) => ({ ...entry, data: { content: 1 } })),
      1,
      "SCHEMA",
    );
    expect(error.message).toContain("user/message");
    expect(error.message).toContain("content");
  });

  test.each([
    ["user/message 里", "a user/message", 1, { content: "1+2*3 等于几？", role: "user" }, "role"],
    [
      "assistant/message 的工具调用里",
      "an assistant/message's tool call",
      3,
      { content: "", tool_calls: [{ ...calculatorCall, type: "function" }] },
      "type",
    ],
  ])(
    "%s多出词表里没有的键，是 SCHEMA，点出那个键 / a key the vocabulary does not know, in %s, is SCHEMA naming the key",
    (_zh, _en, index, data, key) => {
      const error = expectReplayError(
        logWith(index, (entry) => ({ ...entry, data })),
        index,
        "SCHEMA",
      );
      expect(
        error.message,
        "保留 EventDataError 的消息：它点出了那个未知的键 / keep the EventDataError's message: it names the unknown key",
      ).toContain(`"${key}"`);
    },
  );

  test.each([
    ["reason 未知的 turn/end", "a turn/end with an unknown reason", "turn/end", { turn: 1, reason: "done" }],
    ["没有 is_error 的 tool/result", "a tool/result without is_error", "tool/result", { call_id: "call_1", content: "7" }],
    [
      "tool_calls 不是数组的 assistant/message",
      "an assistant/message whose tool_calls is not an array",
      "assistant/message",
      { content: "", tool_calls: {} },
    ],
    ["step 为 0 的 step/start（计数从 1 开始）", "a step/start with step 0 (counters start at 1)", "step/start", { turn: 1, step: 0 }],
  ])(
    "已知类型按它的 schema 重新检查：%s，是 SCHEMA / known types are re-checked against their schema: %s is SCHEMA",
    (_zh, _en, type, data) => {
      expectReplayError(
        logWith(4, (entry) => ({ ...entry, type, data })),
        4,
        "SCHEMA",
      );
    },
  );

  test.each([
    ["对象", "an object", { 0: storedLog()[0] }],
    ["字符串", "a string", JSON.stringify(storedLog())],
    ["null", "null", null],
  ])("不是数组的日志（%s）是 NOT_A_LOG / a log that is not an array (%s) is NOT_A_LOG", (_zh, _en, log) => {
    expectReplayError(log, 0, "NOT_A_LOG");
  });

  test("报告的是第一条坏事件 / the first broken entry is the one reported", () => {
    const log = logWith(2, (entry) => ({ ...entry, ts: -1 }));
    log[5] = null;
    expectReplayError(log, 2, "BAD_TS");
  });

  test("消息写出下标：event #3 / the message names the index: event #3", () => {
    const error = replayError(() => Session.fromLog(logWith(3, (entry) => ({ ...entry, type: "" }))));
    expect(error.message).toMatch(/event #3\b/);
  });
});

// ── properties ────────────────────────────────────────────────────────────────────────────────────

/** A log written by your Session (step 05.2), then saved and read back as JSON. */
function savedLog(inputs: readonly EventInput[], start: number) {
  const session = new Session({ clock: tickingClock(start) });
  for (const { type, data } of inputs) session.append(type, data);
  return { session, stored: JSON.parse(JSON.stringify(session.events)) as Record<string, unknown>[] };
}

const startArb = fc.integer({ min: 0, max: 2 ** 45 });

describe("05.4 属性测试（随机日志；失败时 fast-check 打印种子，可以重现） / properties (random logs; on failure fast-check prints a seed to replay)", () => {
  test("重放相等：保存的日志经 fromLog 得到同样的事件，派生出同样的消息 / replay equality: fromLog of a saved log has the same events and derives the same messages", () => {
    fc.assert(
      fc.property(eventInputsArb, startArb, (inputs, start) => {
        const { session, stored } = savedLog(inputs, start);
        const replayed = Session.fromLog(stored);
        expect(replayed.events).toEqual(session.events);
        expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
      }),
      { numRuns: 100 },
    );
  });

  type Entry = Record<string, unknown>;
  const corruptions = {
    "id changed": { code: "ID_MISMATCH", corrupt: (entry: Entry) => ({ ...entry, id: (entry.id as number) + 1 }) },
    "type emptied": { code: "BAD_TYPE", corrupt: (entry: Entry) => ({ ...entry, type: "" }) },
    "ts made negative": { code: "BAD_TS", corrupt: (entry: Entry) => ({ ...entry, ts: -1 - (entry.ts as number) }) },
  } as const;

  test("任意位置损坏一条：ReplayError 恰好指向那个下标 / one corrupted entry anywhere: ReplayError at exactly that index", () => {
    fc.assert(
      fc.property(
        fc.array(eventInputArb, { minLength: 1, maxLength: 20 }),
        startArb,
        fc.nat(),
        fc.constantFrom(...(Object.keys(corruptions) as (keyof typeof corruptions)[])),
        (inputs, start, at, kind) => {
          const { stored } = savedLog(inputs, start);
          const index = at % stored.length;
          stored[index] = corruptions[kind].corrupt(stored[index]!);
          expectReplayError(stored, index, corruptions[kind].code);
        },
      ),
      { numRuns: 100 },
    );
  });

  // The chapter's promise, end to end: the log is the single source of truth, so nothing append
  // accepts may be impossible to save or to read back. Inputs near the depth limit, far past it
  // (5,000 levels, where JSON.stringify overflows), and anything at all. Deep data is drawn as a
  // description and built in the test, so a failing case prints short.
  const deepInputArb = fc.record({
    type: fc.constant("test/deep"),
    levels: fc.constantFrom(1, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, 5_000),
    bottom: jsonValueArb,
  });
  const anythingInputArb = fc.record({ type: fc.constant("test/anything"), data: fc.anything() });
  const anyInputArb = fc.oneof(eventInputArb, deepInputArb, anythingInputArb);

  /** The data a drawn input stands for: `levels` arrays around `bottom`, inside the data object. */
  function dataOf(input: { data: unknown } | { levels: number; bottom: unknown }): unknown {
    if ("data" in input) return input.data;
    let deep = input.bottom;
    for (let i = 0; i < input.levels; i++) deep = [deep];
    return { deep }; // the data object is one level more
  }

  test("append 接受的任何东西，JSON.stringify 都写得出，fromLog 都读回同样的日志和消息 / whatever append accepts, JSON.stringify writes, and fromLog reads back to the same log and messages", () => {
    fc.assert(
      fc.property(fc.array(anyInputArb, { maxLength: 6 }), startArb, (inputs, start) => {
        const session = new Session({ clock: tickingClock(start) });
        for (const input of inputs) {
          try {
            session.append(input.type, dataOf(input) as never);
          } catch (error) {
            // Every type here is valid, so only the data can be refused: what is not a JSON object.
            caughtAs(JsonValueError, error, "append 拒绝不是 JSON 对象的数据 / append refuses data that is not a JSON object");
          }
        }
        let text: string;
        try {
          text = JSON.stringify(session.events);
        } catch (error) {
          throw new Error(
            `append 接受了 JSON.stringify 写不出的数据（${String(error)}）：你的 freezeJson 在 MAX_JSON_DEPTH 处停下了吗？ / ` +
              `append accepted data that JSON.stringify cannot write (${String(error)}): does your freezeJson stop at MAX_JSON_DEPTH?`,
            { cause: error },
          );
        }
        const replayed = Session.fromLog(JSON.parse(text));
        // Compared as text: the same log writes out the same. (toEqual on 500 levels is slow.)
        expect(
          JSON.stringify(replayed.events) === text,
          "重放出的日志写出来必须和保存的那份一模一样 / the replayed log must write out exactly as the saved one",
        ).toBe(true);
        expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
      }),
      { numRuns: 100 },
    );
  });

  // Logs as a file might hold them: mostly well-formed entries with random fields (ids mostly right,
  // so checks past the id run too), and any JSON at all.
  const storedEntryArb = fc.record(
    {
      id: fc.oneof(fc.constant("index"), fc.jsonValue()),
      type: fc.oneof(fc.constantFrom(...knownEventTypes, "test/other"), fc.jsonValue()),
      ts: fc.oneof(fc.maxSafeNat(), fc.jsonValue()),
      data: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), fc.jsonValue()),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  const storedLogArb = fc.oneof(
    fc.array(fc.oneof({ arbitrary: storedEntryArb, weight: 4 }, { arbitrary: fc.jsonValue(), weight: 1 }), {
      maxLength: 4,
    }),
    fc.jsonValue(),
  );

  test("JSON.parse 读回来的任何东西，要么能重放，要么是 ReplayError，绝不是别的错误 / whatever JSON.parse gives back either replays or is a ReplayError, never another error", () => {
    fc.assert(
      fc.property(storedLogArb, (drawn) => {
        const withIndex = (entry: unknown, index: number) =>
          typeof entry === "object" && entry !== null && "id" in entry && entry.id === "index" ? { ...entry, id: index } : entry;
        const log = Array.isArray(drawn) ? drawn.map(withIndex) : drawn;
        try {
          Session.fromLog(JSON.parse(JSON.stringify(log)));
        } catch (error) {
          caughtAs(
            ReplayError,
            error,
            "练习步骤 05.4 的规则：fromLog 只抛 ReplayError：把读取包起来，用 describeValue 描述找到的东西 / " +
              "step 05.4's rule: fromLog throws ReplayErrors only: wrap what you read, describe what you found",
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
