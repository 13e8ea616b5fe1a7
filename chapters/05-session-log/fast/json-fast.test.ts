// The quick passes of json-fast.ts against the careful walk (../json.ts's freezeJson, the book's): a
// quick pass may give up on anything, but what it returns must be what the careful walk returns, and
// append, which tries the quick copy first, must end exactly as the careful walk does, the same copy
// or the same error.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { jsonValueArb } from "../../../exercises/05-session-log/arbitraries.ts";
import { freezeJson } from "../json.ts";
import { MAX_JSON_DEPTH, type JsonObject } from "../json-value.ts";
import { Session } from "../session.ts";
import { copyPlainJson, freezeParsedJson } from "./json-fast.ts";

type Outcome = { readonly value: unknown } | { readonly error: string };

function outcomeOf(act: () => unknown): Outcome {
  try {
    return { value: act() };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** What append logs as an event's data `{ v: value }`, against the careful walk of the same data. */
function appendAndCareful(value: unknown): [Outcome, Outcome] {
  const logged = outcomeOf(() => new Session().append("x/y", { v: value } as unknown as JsonObject).data);
  return [logged, outcomeOf(() => freezeJson({ v: value }))];
}

function nested(depth: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

const cycle: { self?: unknown } = {};
cycle.self = cycle;
const sparse = [1, , 3];
const withExtra = Object.assign([1, 2], { extra: true });

/** Values a quick pass must not copy as if they were plain JSON, each made fresh. */
const oddities: (() => unknown)[] = [
  () => new Proxy({ a: 1 }, {}),
  () => new Proxy([1], {}),
  // A trap that throws: only the careful walk may run it, and it reports it as a JsonValueError.
  () =>
    new Proxy(
      { a: 1 },
      {
        getOwnPropertyDescriptor: () => {
          throw new Error("a trap threw");
        },
      },
    ),
  () => ({ get a() { return 1; } }), // biome-ignore format: a getter, shown on one line
  () => Object.defineProperty({ a: 1 }, "hidden", { value: 2, enumerable: false }),
  () => ({ a: 1, [Symbol("s")]: 2 }),
  () => sparse,
  () => withExtra,
  () => Object.assign(Object.create(null) as object, { a: 1 }),
  () => JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  () => new Date(0),
  () => new Map(),
  () =>
    new (class Point {
      x = 1;
    })(),
  () => -0,
  () => 2 ** 60,
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => undefined,
  () => () => 1,
  () => 10n,
  () => cycle,
  () => nested(MAX_JSON_DEPTH - 2),
  () => nested(MAX_JSON_DEPTH + 1),
];

/** A JSON value with an oddity somewhere inside it (or none). */
const valueArb = fc.oneof(
  jsonValueArb,
  fc.tuple(jsonValueArb, fc.nat(oddities.length - 1), fc.string()).map(([json, which, key]) => {
    const odd = oddities[which]?.();
    return { [key]: [json, odd] };
  }),
  fc.anything({ withNullPrototype: true, withBigInt: true, withSparseArray: true, withBoxedValues: true, withMap: true }),
);

describe("copyPlainJson, append's quick pass before freezeJson", () => {
  test("copies what the careful walk copies, or gives up; append ends as the careful walk does", () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const quick = copyPlainJson(value);
        const careful = outcomeOf(() => freezeJson(value));
        if (quick !== undefined) {
          expect(careful, "a quick copy of something the careful walk refuses").toHaveProperty("value");
          expect(quick).toStrictEqual((careful as { value: unknown }).value);
          expect(isDeepFrozen(quick), "the quick copy is frozen all the way down").toBe(true);
        }
        const [logged, carefulData] = appendAndCareful(value);
        expect(logged).toStrictEqual(carefulData);
      }),
      { numRuns: 1_000 },
    );
  });

  test("does not give up on plain JSON (else append quietly takes the careful walk)", () => {
    fc.assert(fc.property(jsonValueArb, (value) => copyPlainJson(value) !== undefined));
  });

  test.each(oddities.map((make, index) => [index, make] as const))("oddity #%i: append ends as the careful walk does", (_index, make) => {
    const value = { inside: [make()] };
    const careful = outcomeOf(() => freezeJson(value));
    if ("error" in careful) expect(copyPlainJson(value), "refused by the careful walk: the quick pass must give up").toBeUndefined();
    const [logged, carefulData] = appendAndCareful(value);
    expect(logged).toStrictEqual(carefulData);
  });
});

/** JSON text that JSON.parse reads but the log refuses (or, at the limit, just accepts). */
const hardTexts = ["-0", "1e999", "-1e999", "9007199254740993", "-9007199254740993", "0.5", "1e-999", '{"__proto__":{"a":-0}}'];
const deepText = (depth: number) => `${"[".repeat(depth)}0${"]".repeat(depth)}`;
const textArb = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.tuple(jsonValueArb, fc.constantFrom(...hardTexts)).map(([json, hard]) => `{"ok":${JSON.stringify(json)},"hard":[${hard}]}`),
  fc.constantFrom(deepText(MAX_JSON_DEPTH - 1), deepText(MAX_JSON_DEPTH), deepText(MAX_JSON_DEPTH + 1)),
);

describe("freezeParsedJson, the in-place freeze of what JSON.parse returned", () => {
  test("accepts exactly what the careful walk accepts, frozen in place, equal to the careful copy", () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const parsed: unknown = JSON.parse(text);
        const careful = outcomeOf(() => freezeJson(JSON.parse(text)));
        const frozen = freezeParsedJson(parsed);
        expect(frozen === undefined, `${text.slice(0, 80)}: refused by one, accepted by the other`).toBe("error" in careful);
        if (frozen === undefined) return;
        expect(frozen, "the same value, not a copy").toBe(parsed);
        expect(isDeepFrozen(frozen)).toBe(true);
        expect(frozen).toStrictEqual((careful as { value: unknown }).value);
      }),
      { numRuns: 500 },
    );
  });
});
