// The depth limit's promise where it matters: data as deep as freezeJson allows goes through the
// whole life of a log (append, save with JSON.stringify, replay) even when the caller has already
// used much of the call stack (a listener, a test runner, a server's request handler). freezeJson
// recurses once per level, so this is what MAX_JSON_DEPTH was chosen for.
import { describe, expect, test } from "vitest";
import { JsonValueError, MAX_JSON_DEPTH } from "./json-value.ts";
import { Session } from "./session.ts";

/** Calls itself `levels` times, then runs `work`: a way to use up a chosen part of the stack. */
function descend(levels: number, work: () => unknown): unknown {
  return levels === 0 ? work() : descend(levels - 1, work);
}

/** How many calls of `descend` fit on the stack from here (a binary search for the overflow). */
function stackCapacity(): number {
  let fits = 0;
  let overflows = 1_000_000;
  while (overflows - fits > 1) {
    const middle = Math.floor((fits + overflows) / 2);
    try {
      descend(middle, () => undefined);
      fits = middle;
    } catch {
      overflows = middle;
    }
  }
  return fits;
}

/** Runs `work` with about `fraction` of the stack in use; returns its result or what it threw. */
function withStackUsed(fraction: number, work: () => unknown): unknown {
  stackCapacity(); // once to warm `descend` up, so that both measurements use frames of one size
  return descend(Math.floor(stackCapacity() * fraction), () => {
    try {
      return work();
    } catch (error) {
      return error;
    }
  });
}

function nested(levels: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** Appends `data`, saves the log as text, replays it: the number of events read back. */
function appendSaveReplay(data: object): number {
  const session = new Session({ clock: () => 0 });
  session.append("test/deep", data as never);
  const text = JSON.stringify(session.events);
  return Session.fromLog(JSON.parse(text)).events.length;
}

describe("MAX_JSON_DEPTH leaves the caller most of the call stack", () => {
  // JSON.stringify of frozen arrays is the costliest step: at 1,000 levels this fails from about 55%.
  test("with two thirds of the stack already in use, data at the limit appends, saves and replays", () => {
    const atLimit = { deep: nested(MAX_JSON_DEPTH - 1) }; // the data object is a level of its own
    expect(
      withStackUsed(2 / 3, () => appendSaveReplay(atLimit)),
      "no RangeError anywhere on the way",
    ).toBe(1);
  });

  test("with two thirds of the stack already in use, data past the limit is still a JsonValueError, not a RangeError", () => {
    const outcome = withStackUsed(2 / 3, () => appendSaveReplay({ deep: nested(100_000) }));
    expect(outcome).toBeInstanceOf(JsonValueError);
    expect((outcome as JsonValueError).reason).toContain(String(MAX_JSON_DEPTH));
  });
});
