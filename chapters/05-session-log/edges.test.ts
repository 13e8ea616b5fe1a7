// Past what the exercises ask: how the chapter's own answers treat inputs a learner's version may
// treat differently and still pass (a Proxy that lists a key it does not have, an anonymous class),
// and what a ReplayError keeps for whoever debugs it.
import { describe, expect, it } from "vitest";
import { freezeJson } from "./json.ts";
import { EventDataError } from "./event-schemas.ts";
import { JsonValueError } from "./json-value.ts";
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
});
