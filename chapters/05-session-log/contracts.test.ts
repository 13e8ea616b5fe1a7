// The given contracts' own promises: each error class names itself (a log line or a test report
// then says which error it was), says where in its message, and no error message grows with its input.
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { describeValue } from "./describe.ts";
import { checkEventData, EventDataError } from "./event-schemas.ts";
import { formatPath, JsonValueError } from "./json-value.ts";
import { AgentRunError } from "./loop-types.ts";
import { ReplayError, reportListenerError } from "./session-types.ts";
import { Session } from "./session.ts";

describe("error classes", () => {
  it("each names itself and puts where it happened first in its message", () => {
    const cause = new Error("underneath");
    const errors = [
      [new JsonValueError("$.a[2]", "NaN is not a finite number", { cause }), "JsonValueError", "$.a[2]: NaN is not a finite number"],
      [
        new ReplayError(3, "BAD_TS", "ts must be …", { cause }),
        "ReplayError",
        "重放失败：第 3 个事件 / replay failed at event #3: ts must be …",
      ],
      [
        new EventDataError("user/message", "$.content", "expected string"),
        "EventDataError",
        'invalid data for "user/message" at $.content: expected string',
      ],
      [new AgentRunError("turn 1 failed", new Session(), { cause }), "AgentRunError", "turn 1 failed"],
    ] as const;
    for (const [error, name, message] of errors) {
      expect(error.name).toBe(name);
      expect(error.message).toBe(message);
    }
    expect(errors.slice(0, 2).map(([error]) => error.cause)).toEqual([cause, cause]);
  });

  it("a JsonValueError's message clips a long path, and its path field keeps all of it", () => {
    const path = `$[${JSON.stringify("k".repeat(1_000))}]`;
    const error = new JsonValueError(path, "NaN is not a finite number");
    expect(error.path).toBe(path);
    expect(error.message).toBe(`${path.slice(0, 199)}…: NaN is not a finite number`);
  });

  it("a schema error quoting a very long unknown key stays short", () => {
    const data = { content: "hi", ["k".repeat(100_000)]: 1 };
    let error: unknown;
    try {
      checkEventData("user/message", data);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EventDataError);
    expect((error as EventDataError).reason.length).toBeLessThanOrEqual(200);
    expect((error as EventDataError).reason).toMatch(/^Unrecognized key: "kkk.*…$/);
  });

  it("a schema's own refinement failing is an EventDataError at the data's root", () => {
    const refined = z.strictObject({ a: z.number() }).refine((data) => data.a > 1);
    expect(() => checkEventData("x/y", { a: 1 }, { "x/y": refined })).toThrow('invalid data for "x/y" at $');
  });
});

describe("formatPath and reportListenerError", () => {
  it("formatPath: indexes in brackets, identifiers after a dot, anything else quoted (a symbol by its description)", () => {
    expect(formatPath(["a", 2, "b c", "_$1", Symbol("s")])).toBe('$.a[2]["b c"]._$1["Symbol(s)"]');
  });

  it("reportListenerError logs the event's id and type with the error itself", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const error = new Error("listener failed");
      reportListenerError(error, { id: 3, type: "user/message", ts: 0, data: { content: "hi" } });
      expect(log).toHaveBeenCalledWith(expect.stringMatching(/#3 user\/message/), error);
    } finally {
      log.mockRestore();
    }
  });
});

describe("describe.ts: what was found, in a few words", () => {
  it.each([
    ["a short string, quoted", "user/message", '"user/message"'],
    ["a long string, quoted and clipped to 40", "x".repeat(1_000), `"${"x".repeat(39)}…"`],
    ["a number as written", 1_003.5, "1003.5"],
    ["-0, which String() would show as 0", -0, "-0"],
    ["NaN", Number.NaN, "NaN"],
    ["true", true, "true"],
    ["null", null, "null"],
    ["undefined", undefined, "undefined"],
    ["an array, named, never printed", [1, [2, [3]]], "an array"],
    ["an object, named, never printed", { id: 1 }, "an object"],
    ["a bigint (JSON.stringify would throw)", 10n, "a bigint"],
    ["a symbol", Symbol("s"), "a symbol"],
    ["a function", () => 1, "a function"],
    [
      "a revoked Proxy (Array.isArray would throw)",
      (() => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      })(),
      "a revoked Proxy",
    ],
  ])("%s", (_, value, described) => {
    expect(describeValue(value)).toBe(described);
  });

  it("an array nested 10,000 levels deep is just an array (no walk, no overflow)", () => {
    const deep: unknown = JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`);
    expect(describeValue(deep)).toBe("an array");
  });
});
