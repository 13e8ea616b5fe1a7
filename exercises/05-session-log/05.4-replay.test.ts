// Step 05.4 — replay (book §5.6 "重放：从日志重建一切"). `Session.fromLog` rebuilds a session from a
// stored log — typically `JSON.parse` of saved events — and trusts nothing in it: every entry is
// checked, and the first broken one is reported as a ReplayError with its index and a code naming
// the rule. Most tests here hand fromLog a log written by hand. The tests that check what is "not
// projected" and the properties at the end also use your projection (step 05.3), and the properties
// build their logs with your Session (step 05.2).
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { EventDataError } from "../../chapters/05-session-log/event-schemas.ts";
import { JsonValueError, MAX_JSON_DEPTH } from "../../chapters/05-session-log/json-value.ts";
import { ReplayError } from "../../chapters/05-session-log/session-types.ts";
import { Session } from "./session.ts";
import { eventInputArb, eventInputsArb, jsonValueArb, knownEventTypes, tickingClock, type EventInput } from "./arbitraries.ts";

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
    return expect.fail(
      `fromLog must accept this log, but threw ${String(error)}. ` +
        "Look schemas up by own key only (the given checkEventData does: Object.hasOwn)",
    );
  }
}

/** Runs `replay` and returns what it threw (or fails the test if it threw nothing). */
function replayError(replay: () => unknown): ReplayError {
  try {
    replay();
  } catch (error) {
    expect(error, "fromLog must throw a ReplayError").toBeInstanceOf(ReplayError);
    return error as ReplayError;
  }
  return expect.fail(
    "fromLog accepted a broken log; it must throw a ReplayError (a hole in a sparse array counts: forEach and map skip holes, so loop with an index)",
  );
}

function expectReplayError(log: unknown, index: number, code: string): ReplayError {
  const error = replayError(() => Session.fromLog(log));
  expect({ index: error.index, code: error.code }, "the index of the first broken entry, and the rule's code").toEqual({
    index,
    code,
  });
  expect(error.message, "the message names the entry").toContain(`event #${index}`);
  return error;
}

function expectDeepFrozen(value: unknown, where: string): void {
  if (typeof value !== "object" || value === null) return;
  expect(Object.isFrozen(value), `${where} must be frozen`).toBe(true);
  for (const [key, child] of Object.entries(value)) expectDeepFrozen(child, `${where}.${key}`);
}

// ── a good log ────────────────────────────────────────────────────────────────────────────────────

describe("05.4 fromLog: a well-formed log replays as it was", () => {
  const asStored =
    "each event comes back as stored, ts included: commit the stored events, do not append them again (append stamps a new ts)";

  test("a stored log replays to the same events", () => {
    expect(Session.fromLog(storedLog()).events, asStored).toEqual(storedLog());
  });

  test("a JSON round trip replays to the same events", () => {
    const text = JSON.stringify(storedLog());
    expect(Session.fromLog(JSON.parse(text)).events, asStored).toEqual(storedLog());
  });

  test("an empty log replays to an empty session", () => {
    expect(Session.fromLog([]).events).toEqual([]);
  });

  test("unknown but well-formed types are kept, and not projected", () => {
    const session = Session.fromLog(storedLog());
    expect(session.events[6], "an unknown type stays in the log").toEqual(storedLog()[6]);
    expect(session.deriveMessages(), "only user/assistant/tool events become messages").toEqual(storedMessages);
  });

  test.each(["constructor", "__proto__", "toString"])(
    'an event whose type is "%s" is an ordinary unknown type: kept, not projected',
    (type) => {
      const log = logWith(6, (entry) => ({ ...entry, type }));
      const session = replayWithoutError(log);
      expect(session.events[6], "kept as it was stored").toEqual({ ...storedLog()[6], type });
      expect(session.deriveMessages()).toEqual(storedMessages);
    },
  );

  test("the replayed events are deep-frozen, in a frozen snapshot", () => {
    const session = Session.fromLog(storedLog());
    expectDeepFrozen(session.events, "events");
  });

  test("nothing is shared with the input: changing it afterwards changes nothing", () => {
    const log = storedLog();
    const session = Session.fromLog(log);
    session.events.forEach((event, index) => {
      expect(event, `events[${index}] must be a new object, not the caller's`).not.toBe(log[index]);
      expect(event.data, `events[${index}].data must be a copy`).not.toBe(log[index]!.data);
    });
    const assistant = log[3]!.data as { content: string; tool_calls: { arguments: string }[] };
    assistant.content = "changed";
    assistant.tool_calls[0]!.arguments = "changed";
    assistant.tool_calls.push({ arguments: "added" });
    log[0]!.id = 99;
    log.push({ id: 8, type: "user/message", ts: 2_000, data: { content: "added later" } });
    expect(session.events).toEqual(storedLog());
  });

  test("a replayed session keeps appending with the next id", () => {
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

  test("a replayed session's listeners hear the new events only", () => {
    const session = Session.fromLog(storedLog());
    const heard: number[] = [];
    session.subscribe((event) => heard.push(event.id));
    session.append("step/end", { turn: 1, step: 2 });
    expect(heard).toEqual([8]);
  });
});

// ── broken logs ───────────────────────────────────────────────────────────────────────────────────

describe("05.4 fromLog: a broken log is a ReplayError naming the entry and the rule", () => {
  test.each([
    ["a gap (…, 1, 3, …)", 2, 3],
    ["a duplicate (…, 1, 1, …)", 2, 1],
    ["a string id", 2, "2"],
    ["a missing id", 2, undefined],
  ])("ids must equal their index — %s is ID_MISMATCH", (_, index, id) => {
    expectReplayError(
      logWith(index, (entry) => withKey(entry, "id", id)),
      index,
      "ID_MISMATCH",
    );
  });

  test("ids must start at 0 — a log numbered from 1 fails at entry #0", () => {
    const log = storedLog().map((entry) => ({ ...entry, id: (entry.id as number) + 1 }));
    expectReplayError(log, 0, "ID_MISMATCH");
  });

  test("the message of an ID_MISMATCH says which id was found and which was expected", () => {
    const error = expectReplayError(
      logWith(3, (entry) => ({ ...entry, id: 7 })),
      3,
      "ID_MISMATCH",
    );
    const { detail } = error;
    expect(detail, "name the id that was found").toContain("7");
    expect(detail, "and the id that was expected (the index)").toContain("3");
  });

  test.each([
    ["null", null],
    ["a string", "user/message"],
    ["a number", 3],
    ["an array", [3, "user/message", 1_003, {}]],
  ])("an entry that is not an object (%s) is NOT_AN_EVENT", (_, entry) => {
    expectReplayError(
      logWith(3, () => entry),
      3,
      "NOT_AN_EVENT",
    );
  });

  test("a hole in a hand-made sparse array is NOT_AN_EVENT, not skipped", () => {
    const log: unknown[] = storedLog();
    delete log[2]; // [e0, e1, <hole>, e3, …]: forEach and map would skip it
    expectReplayError(log, 2, "NOT_AN_EVENT");
  });

  test.each([
    ["missing", undefined],
    ["empty", ""],
    ["a number", 42],
    ["null", null],
  ])("a type that is %s is BAD_TYPE", (_, type) => {
    expectReplayError(
      logWith(3, (entry) => withKey(entry, "type", type)),
      3,
      "BAD_TYPE",
    );
  });

  test.each([
    ["a fraction", 1_003.5],
    ["negative", -1],
    ["a string", "1003"],
    ["missing", undefined],
    ["null", null],
    ["an unsafe integer", 2 ** 53],
    ["NaN (not from JSON.parse, but from a hand-made array)", Number.NaN],
    ["-0 (JSON.stringify writes it as 0)", -0],
  ])("a ts that is %s is BAD_TS", (_, ts) => {
    expectReplayError(
      logWith(3, (entry) => withKey(entry, "ts", ts)),
      3,
      "BAD_TS",
    );
  });

  test.each([
    ["an array", [1, 2]],
    ["null", null],
    ["a string", "content"],
    ["missing", undefined],
    ["an object with a Date inside", { when: new Date(0) }],
    ["an object with NaN inside", { scores: [1, Number.NaN] }],
    ["an object with -0 inside", { scores: [1, -0] }],
  ])("data that is %s is BAD_DATA (data must be a JSON object)", (_, data) => {
    expectReplayError(
      logWith(6, (entry) => withKey(entry, "data", data)),
      6,
      "BAD_DATA",
    );
  });

  test("JSON.parse can produce -0 (from the text -0): fromLog rejects it in data and as a ts", () => {
    const text = '[{"id":0,"type":"test/progress","ts":1000,"data":{"delta":-0}}]';
    expectReplayError(JSON.parse(text), 0, "BAD_DATA");
    const asTs = '[{"id":0,"type":"test/progress","ts":-0,"data":{}}]';
    const error = expectReplayError(JSON.parse(asTs), 0, "BAD_TS");
    expect(error.message, "ts is not -0: Object.is(ts, -0)").toMatch(/\bts\b/);
  });

  test("data nested deeper than MAX_JSON_DEPTH (a file can hold any depth) is BAD_DATA naming the limit", () => {
    const levels = MAX_JSON_DEPTH + 1;
    const text = `[{"id":0,"type":"test/progress","ts":1000,"data":{"deep":${"[".repeat(levels)}${"]".repeat(levels)}}}]`;
    const error = expectReplayError(JSON.parse(text), 0, "BAD_DATA");
    expect(error.message.replaceAll(",", ""), "keep the JsonValueError's reason: it names the limit").toContain(String(MAX_JSON_DEPTH));
  });

  test.each([
    ["NOT_A_LOG", () => ({ events: [] }), 0, /array/],
    ["NOT_AN_EVENT", () => logWith(3, () => "user/message"), 3, /object/],
    ["NOT_AN_EVENT", () => logWith(3, () => null), 3, /object/],
    ["ID_MISMATCH", () => logWith(3, (entry) => ({ ...entry, id: 8 })), 3, /\bid\b/],
    ["BAD_TYPE", () => logWith(3, (entry) => ({ ...entry, type: 7 })), 3, /\btype\b/],
    ["BAD_TS", () => logWith(3, (entry) => ({ ...entry, ts: -5 })), 3, /\bts\b/],
    ["BAD_DATA", () => logWith(6, (entry) => ({ ...entry, data: { scores: [1, Number.NaN] } })), 6, /\bdata\b.*scores\[1\]/],
  ] as const)("the message of %s names the field to fix (and, for data, the path inside it)", (code, log, index, names) => {
    const error = expectReplayError(log(), index, code);
    expect(error.message, `the detail must say what is wrong (matching ${names})`).toMatch(names);
  });

  /** `levels` arrays nested around nothing, as JSON.parse makes them from a file. */
  const deepArray = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

  test.each([
    ["an id that is a bigint (JSON.stringify throws on it)", "ID_MISMATCH", "id", 3n],
    ["an id nested 5,000 arrays deep (JSON.stringify overflows on it)", "ID_MISMATCH", "id", deepArray(5_000)],
    ["a type nested 5,000 arrays deep", "BAD_TYPE", "type", deepArray(5_000)],
    ["a ts nested 5,000 arrays deep", "BAD_TS", "ts", deepArray(5_000)],
    ["an id that is a 100,000-character string", "ID_MISMATCH", "id", "3".repeat(100_000)],
    ["a key that is 100,000 characters long", "UNEXPECTED_KEY", "x".repeat(100_000), 1],
    ["data with NaN under a 100,000-character key", "BAD_DATA", "data", { ["k".repeat(100_000)]: Number.NaN }],
  ] as const)("%s is %s, with a short message", (_, code, key, value) => {
    const error = expectReplayError(
      logWith(3, (entry) => ({ ...entry, [key]: value })),
      3,
      code,
    );
    expect(
      error.message.length,
      "describe what was found in a few words (clip long strings, name arrays and objects): never JSON.stringify it whole",
    ).toBeLessThan(300);
  });

  test("a log that throws when read (a revoked Proxy) is NOT_A_LOG, with the error as its cause", () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    const error = expectReplayError(proxy, 0, "NOT_A_LOG");
    expect(error.cause, "new ReplayError(index, code, detail, { cause: error })").toBeInstanceOf(TypeError);
    expect(error.message, "a detail that says what happened").toMatch(/event #0: \S/);
  });

  test("an entry that throws when read (a getter, a Proxy's trap) is NOT_AN_EVENT at its index, with the error as its cause", () => {
    const boom = new Error("a getter threw");
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
      expect(error.cause, "new ReplayError(index, code, detail, { cause: error })").toBe(boom);
      expect(error.message, "a detail that says what happened").toMatch(/event #2: \S/);
    }
  });

  test("an unexpected extra key is UNEXPECTED_KEY (an event has exactly id, type, ts and data)", () => {
    const error = expectReplayError(
      logWith(3, (entry) => ({ ...entry, role: "assistant" })),
      3,
      "UNEXPECTED_KEY",
    );
    expect(error.message).toContain("role");
  });

  test("bad data for a known type is SCHEMA, and the message names the type and the field", () => {
    const error = expectReplayError(
      logWith(1, (entry) => ({ ...entry, data: { content: 1 } })),
      1,
      "SCHEMA",
    );
    expect(error.message).toContain("user/message");
    expect(error.message).toContain("content");
  });

  test.each([
    ["a user/message", 1, { content: "1+2*3 等于几？", role: "user" }, "role"],
    ["an assistant/message's tool call", 3, { content: "", tool_calls: [{ ...calculatorCall, type: "function" }] }, "type"],
  ])("a key the vocabulary does not know, in %s, is SCHEMA naming the key", (_, index, data, key) => {
    const error = expectReplayError(
      logWith(index, (entry) => ({ ...entry, data })),
      index,
      "SCHEMA",
    );
    expect(error.message, "keep the EventDataError's message: it names the unknown key").toContain(`"${key}"`);
  });

  test.each([
    ["a turn/end with an unknown reason", "turn/end", { turn: 1, reason: "done" }],
    ["a tool/result without is_error", "tool/result", { call_id: "call_1", content: "7" }],
    ["an assistant/message whose tool_calls is not an array", "assistant/message", { content: "", tool_calls: {} }],
    ["a step/start with step 0 (counters start at 1)", "step/start", { turn: 1, step: 0 }],
  ])("known types are re-checked against their schema: %s is SCHEMA", (_, type, data) => {
    expectReplayError(
      logWith(4, (entry) => ({ ...entry, type, data })),
      4,
      "SCHEMA",
    );
  });

  test.each([
    ["an object", { 0: storedLog()[0] }],
    ["a string", JSON.stringify(storedLog())],
    ["null", null],
  ])("a log that is not an array (%s) is NOT_A_LOG", (_, log) => {
    expectReplayError(log, 0, "NOT_A_LOG");
  });

  test("the first broken entry is the one reported", () => {
    const log = logWith(2, (entry) => ({ ...entry, ts: -1 }));
    log[5] = null;
    expectReplayError(log, 2, "BAD_TS");
  });

  test("the message names the index: event #3", () => {
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

describe("05.4 properties (random logs; on failure fast-check prints a seed to replay)", () => {
  test("replay equality: fromLog of a saved log has the same events and derives the same messages", () => {
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

  test("one corrupted entry anywhere: ReplayError at exactly that index", () => {
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

  test("whatever append accepts, JSON.stringify writes, and fromLog reads back to the same log and messages", () => {
    fc.assert(
      fc.property(fc.array(anyInputArb, { maxLength: 6 }), startArb, (inputs, start) => {
        const session = new Session({ clock: tickingClock(start) });
        for (const input of inputs) {
          try {
            session.append(input.type, dataOf(input) as never);
          } catch (error) {
            expect([TypeError, JsonValueError, EventDataError].some((errorClass) => error instanceof errorClass)).toBe(true);
          }
        }
        let text: string;
        try {
          text = JSON.stringify(session.events);
        } catch (error) {
          return expect.unreachable(
            `append accepted data that JSON.stringify cannot write (${String(error)}): does your freezeJson stop at MAX_JSON_DEPTH?`,
          );
        }
        const replayed = Session.fromLog(JSON.parse(text));
        // Compared as text: the same log writes out the same. (toEqual on 500 levels is slow.)
        expect(JSON.stringify(replayed.events) === text, "the replayed log must write out exactly as the saved one").toBe(true);
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

  test("whatever JSON.parse gives back either replays or is a ReplayError, never another error", () => {
    fc.assert(
      fc.property(storedLogArb, (drawn) => {
        const withIndex = (entry: unknown, index: number) =>
          typeof entry === "object" && entry !== null && "id" in entry && entry.id === "index" ? { ...entry, id: index } : entry;
        const log = Array.isArray(drawn) ? drawn.map(withIndex) : drawn;
        try {
          Session.fromLog(JSON.parse(JSON.stringify(log)));
        } catch (error) {
          expect(error, "fromLog throws ReplayErrors only: wrap what you read, describe what you found").toBeInstanceOf(ReplayError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
