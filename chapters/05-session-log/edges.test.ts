// Past what the exercises ask: how the chapter's own answers treat inputs a learner's version may
// treat differently and still pass (a Proxy that lists a key it does not have, an anonymous class, an
// object from another realm, an event whose fields are inherited, a subscriber whose promise rejects),
// and what a ReplayError keeps for whoever debugs it.
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { copyPlainJson } from "./fast/json-fast.ts";
import { freezeJson } from "./json.ts";
import { EventDataError } from "./event-schemas.ts";
import { JsonValueError, type JsonObject } from "./json-value.ts";
import { ReplayError } from "./session-types.ts";
import { Session } from "./session.ts";

function thrownBy(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  return expect.fail("expected it to throw");
}

describe("freezeJson: the chapter's answer at the edges", () => {
  it("a Proxy that lists a key it has no property for is a JsonValueError at that key, not a TypeError", () => {
    const ghost = new Proxy({}, { ownKeys: () => ["ghost"] });
    const error = thrownBy(() => freezeJson({ p: ghost }));
    expect(error).toBeInstanceOf(JsonValueError);
    expect(error).toMatchObject({ path: "$.p.ghost", reason: expect.stringMatching(/no property/) });
  });

  it("a plain object or array made in another realm (a vm context, an iframe) is accepted: copied into plain objects and arrays of this one", () => {
    const foreign = runInNewContext('({ a: 1, list: [1, { b: "x" }] })') as object;
    expect(Object.getPrototypeOf(foreign), "the test needs an object whose prototype is the other realm's").not.toBe(Object.prototype);
    for (const copy of [freezeJson(foreign), new Session().append("x/y", foreign as JsonObject).data]) {
      expect(JSON.stringify(copy)).toBe('{"a":1,"list":[1,{"b":"x"}]}');
      const list = (copy as { list: object[] }).list;
      expect([Object.getPrototypeOf(copy), Object.getPrototypeOf(list), Object.getPrototypeOf(list[1])]).toEqual([
        Object.prototype,
        Array.prototype,
        Object.prototype,
      ]);
      expect(Object.isFrozen(list[1])).toBe(true);
    }
    // The quick pass may give up on it (the careful walk then decides), but never copies it otherwise.
    const quick = copyPlainJson(foreign);
    if (quick !== undefined) expect(quick).toStrictEqual(freezeJson(foreign));
  });

  it("from another realm too, only a plain object or array: a Date, a class instance or a look-alike prototype is refused, named truly", () => {
    expect(thrownBy(() => freezeJson({ v: runInNewContext("new Date(0)") }))).toMatchObject({
      path: "$.v",
      reason: "Date is not a plain object or array",
    });
    expect(thrownBy(() => freezeJson({ v: runInNewContext("new (class Point { x = 1 })()") }))).toMatchObject({
      reason: "Point is not a plain object or array",
    });
    // A prototype dressed up as Object.prototype, whose constructor is not the built-in Object.
    const lookAlike = Object.create(null) as { constructor?: unknown };
    lookAlike.constructor = { Object: () => {} }.Object; // a function named "Object", not the built-in one
    (lookAlike.constructor as { prototype: unknown }).prototype = lookAlike;
    expect(thrownBy(() => freezeJson({ v: Object.create(lookAlike) }))).toMatchObject({
      path: "$.v",
      reason: "an object whose prototype only looks like Object.prototype is not a plain object or array",
    });
  });

  it("an instance of an anonymous class is named by its prototype, not by an empty name", () => {
    const error = thrownBy(() => freezeJson({ v: new (class {})() }));
    expect(error).toMatchObject({
      path: "$.v",
      reason: "an object with a custom prototype is not a plain object or array",
    });
  });
});

describe("fromLog keeps the underlying error as the ReplayError's cause", () => {
  const entry = { id: 0, type: "user/message", ts: 0 };

  it.each([
    ["BAD_DATA", "JsonValueError", { ...entry, data: { content: Number.NaN } }, JsonValueError],
    ["SCHEMA", "EventDataError", { ...entry, data: { content: 1 } }, EventDataError],
  ] as const)("%s: the cause is the %s itself, with the whole path", (code, _, stored, causeClass) => {
    const error = thrownBy(() => Session.fromLog([stored]));
    expect(error).toBeInstanceOf(ReplayError);
    expect((error as ReplayError).code).toBe(code);
    expect((error as ReplayError).cause).toBeInstanceOf(causeClass);
    expect((error as ReplayError).cause).toMatchObject({ path: "$.content" });
  });

  it("an event is a record of its own fields, as JSON.parse makes it: one whose fields are inherited is refused at its index", () => {
    const stored = Object.create({ id: 0, type: "turn/start", ts: 1, data: { turn: 1 } }) as object;
    const error = thrownBy(() => Session.fromLog([stored]));
    expect(error).toBeInstanceOf(ReplayError);
    expect(error).toMatchObject({
      index: 0,
      code: "NOT_AN_EVENT",
      detail: 'its field "id" is inherited, not its own: an event is a record of its own id, type, ts and data, as JSON.parse makes it',
    });
    const halfInherited = Object.assign(Object.create({ data: { turn: 1 } }) as object, { id: 1, type: "turn/start", ts: 1 });
    const valid = { id: 0, type: "user/message", ts: 1, data: { content: "hi" } };
    expect(thrownBy(() => Session.fromLog([valid, halfInherited]))).toMatchObject({
      index: 1,
      code: "NOT_AN_EVENT",
      message: expect.stringMatching(/^重放失败：第 1 个事件 \/ replay failed at event #1: its field "data" is inherited/),
    });
  });
});

describe("a subscriber whose promise rejects is contained like one that throws", () => {
  /** Lets a rejected promise settle, and Node's check for unhandled rejections run after it. */
  const settle = async () => {
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  };

  it("reported to onListenerError with its event; the event stays logged; the next subscriber hears it; no rejection is left unhandled", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      const reported: [unknown, number][] = [];
      const session = new Session({ onListenerError: (error, event) => void reported.push([error, event.id]) });
      const failure = new Error("x");
      const heard: number[] = [];
      session.subscribe(async () => {
        throw failure;
      });
      session.subscribe((event) => void heard.push(event.id));
      const event = session.append("turn/start", { turn: 1 });
      await settle();
      expect(reported, "the rejection goes where a throw goes").toEqual([[failure, 0]]);
      expect(session.events).toEqual([event]);
      expect(heard).toEqual([0]);
      expect(unhandled, "the session must handle its listener's rejected promise").toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });

  it("without onListenerError, the default report names the event, as for a throw; an onListenerError that throws is reported too", async () => {
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const plain = new Session();
      plain.subscribe(() => Promise.reject(new Error("later")));
      plain.append("turn/start", { turn: 1 });
      const failingHandler = new Session({
        onListenerError: () => {
          throw new Error("the handler failed too");
        },
      });
      failingHandler.subscribe(() => Promise.reject(new Error("later")));
      failingHandler.append("turn/start", { turn: 1 });
      await settle();
      expect(said.mock.calls.map(([line]) => line)).toEqual([
        "[session] a listener failed on event #0 turn/start:",
        "[session] a listener failed on event #0 turn/start:",
      ]);
      expect(said.mock.calls.map(([, error]) => (error as Error).message)).toEqual(["later", "the handler failed too"]);
    } finally {
      said.mockRestore();
    }
  });
});
