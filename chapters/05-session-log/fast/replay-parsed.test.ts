// Session.fromLog(log, { quickFreeze: freezeParsedJson }), the log file reader's replay: the same checks
// and the same errors as the default replay, but the parsed data is frozen in place and kept instead of
// copied.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { eventInputsArb, jsonValueArb, tickingClock } from "../../../exercises/05-session-log/arbitraries.ts";
import { MAX_JSON_DEPTH } from "../json-value.ts";
import { ReplayError } from "../session-types.ts";
import { Session } from "../session.ts";
import { freezeParsedJson } from "./json-fast.ts";

/** A random valid log as the reader has it: each event parsed from its own line. */
const linesArb = eventInputsArb.map((inputs) => {
  const session = new Session({ clock: tickingClock() });
  for (const { type, data } of inputs) session.append(type, data);
  return session.events.map((event) => JSON.stringify(event));
});

/** MAX_JSON_DEPTH arrays, one inside the other: under an object key, one level too deep for a log. */
const deepArray = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;

/** JSON text a line may hold in place of a field: any JSON, and what JSON allows but a log refuses. */
const fieldTextArb = fc.oneof(
  jsonValueArb.map((value) => JSON.stringify(value)),
  fc.constantFrom("-0", "1e999", "9007199254740993", '{"content":-0}', `{"deep":${deepArray}}`, `{"fits":${deepArray.slice(1, -1)}}`),
);

/** One line changed: a field of its event (or an extra key) given other JSON, or the line made a non-event. */
const damagedArb = linesArb
  .filter((lines) => lines.length > 0)
  .chain((lines) =>
    fc.tuple(
      fc.constant(lines),
      fc.nat(lines.length - 1),
      fc.constantFrom("id", "type", "ts", "data", "extra", "whole line"),
      fieldTextArb,
    ),
  )
  .map(([lines, index, field, text]) => {
    const damaged = [...lines];
    const line = lines[index] as string;
    // A function, not a replacement string: in one, "$`" or "$'" inside the generated text would be read as a pattern.
    damaged[index] = field === "whole line" ? text : line.replace(/\}$/, () => `,"${field}":${text}}`);
    return damaged;
  });

type Outcome = { readonly events: unknown } | { readonly error: unknown };

/** The reader's replay (in place) or the default one (a copy) of the lines. */
function replayed(lines: readonly string[], inPlace: boolean): Outcome {
  const entries = lines.map((line): unknown => JSON.parse(line));
  try {
    return { events: Session.fromLog(entries, inPlace ? { quickFreeze: freezeParsedJson } : {}).events };
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
    return { error: { index: error.index, code: error.code, message: error.message, cause } };
  }
}

describe("Session.fromLog with { quickFreeze: freezeParsedJson }", () => {
  test("takes over the parsed data: each event keeps the very object parsed, now frozen", () => {
    const lines = ['{"id":0,"type":"user/message","ts":5,"data":{"content":"hi"}}', '{"id":1,"type":"note","ts":6,"data":{"a":[1]}}'];
    const entries = lines.map((line) => JSON.parse(line) as { data: { a?: number[] } });
    const session = Session.fromLog(entries, { quickFreeze: freezeParsedJson });
    expect(
      session.events.map((event) => event.data),
      "no copy: the reader's parsed objects are the log's",
    ).toEqual(entries.map((entry) => entry.data));
    for (const [index, event] of session.events.entries()) expect(event.data).toBe(entries[index]?.data);
    expect(Object.isFrozen(entries[1]?.data.a), "frozen all the way down, in place").toBe(true);
    expect(session.deriveMessages()).toEqual([{ role: "user", content: "hi" }]);
  });

  test("takes over the parsed record too: each event is the very object parsed, so a large log is never held twice; an id of -0 is not", () => {
    const parsed = [JSON.parse('{"id":0,"type":"turn/start","ts":5,"data":{"turn":1}}') as unknown];
    const session = Session.fromLog(parsed, { quickFreeze: freezeParsedJson });
    expect(session.events[0], "the reader's record is the event").toBe(parsed[0]);
    expect(Object.isFrozen(parsed[0])).toBe(true);
    const negativeZero = [JSON.parse('{"id":0,"type":"turn/start","ts":5,"data":{"turn":1},"id":-0}') as unknown];
    const replayed = Session.fromLog(negativeZero, { quickFreeze: freezeParsedJson }).events[0];
    expect(Object.is(replayed?.id, 0), "the event's id is its index, 0, as in the default replay").toBe(true);
  });

  test("without it, the stored log is copied, never shared (the default, for a log someone else holds)", () => {
    const entries = [JSON.parse('{"id":0,"type":"note","ts":6,"data":{"a":[1]}}') as { data: unknown }];
    const session = Session.fromLog(entries);
    expect(session.events[0]?.data).not.toBe(entries[0]?.data);
    expect(Object.isFrozen(entries[0]?.data), "the caller's log is left as it was").toBe(false);
  });

  test("replays a valid log to the same events as the default replay", () => {
    fc.assert(
      fc.property(linesArb, (lines) => {
        expect(replayed(lines, true)).toStrictEqual(replayed(lines, false));
      }),
      { numRuns: 150 },
    );
  });

  test("refuses a damaged log with the same ReplayError (index, code, message, cause) as the default replay", () => {
    fc.assert(
      fc.property(damagedArb, (lines) => {
        expect(replayed(lines, true)).toStrictEqual(replayed(lines, false));
      }),
      { numRuns: 400 },
    );
  });
});
