// The compiled schema checks (schema-check.ts) against zod itself: a compiled check may only say yes
// to what zod accepts, and it should say yes to all of it (or the quick path is quietly lost). An
// error reads the same whichever path found it, because on a no checkEventData asks zod.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { jsonValueArb, knownEventDataArbs, knownEventTypes } from "../../exercises/05-session-log/arbitraries.ts";
import { checkEventData, eventSchemas, type EventSchemas } from "./event-schemas.ts";
import { fastCheckOf } from "./schema-check.ts";

/** Valid data, then the same with one change that may break it: a field dropped, added or replaced. */
const dataArb = fc.constantFrom(...knownEventTypes).chain((type) =>
  knownEventDataArbs[type].chain((valid: object) =>
    fc
      .oneof(
        fc.constant(valid),
        fc.constantFrom(...Object.keys(valid)).map((key) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key))),
        fc
          .tuple(fc.constantFrom(...Object.keys(valid), "role", "__proto__"), jsonValueArb)
          .map(([key, value]) => ({ ...valid, [key]: value })),
        fc.anything(),
        jsonValueArb,
      )
      .map((data) => ({ type, data })),
  ),
);

/** The same schemas wrapped in a pipe, which the compiler does not know: checkEventData asks zod alone. */
const zodOnly: EventSchemas = Object.fromEntries(
  Object.entries(eventSchemas).map(([type, schema]) => [type, z.unknown().pipe(schema as z.ZodType)]),
);

function errorOf(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe("a compiled schema check agrees with zod", () => {
  test.each(knownEventTypes)("the schema of %s compiles (else its events take zod's slower path)", (type) => {
    expect(fastCheckOf(eventSchemas[type])).toBeTypeOf("function");
  });

  test("says yes exactly when zod's safeParse succeeds, on valid data and on data one change away", () => {
    fc.assert(
      fc.property(dataArb, ({ type, data }) => {
        const schema = eventSchemas[type] as z.ZodType;
        expect(fastCheckOf(schema)?.(data), `${type}: ${String(JSON.stringify(data))}`).toBe(schema.safeParse(data).success);
      }),
      { numRuns: 1_000 },
    );
  });

  test("checkEventData throws the same error, word for word, as zod alone gives", () => {
    fc.assert(
      fc.property(dataArb, ({ type, data }) => {
        expect(errorOf(() => checkEventData(type, data))).toBe(errorOf(() => checkEventData(type, data, zodOnly)));
      }),
      { numRuns: 500 },
    );
  });

  test("a schema with a check the compiler does not know (.refine, .min) is not compiled: zod checks it", () => {
    const refined = z.strictObject({ a: z.number() }).refine((data) => data.a > 1);
    expect(fastCheckOf(refined)).toBeUndefined();
    expect(fastCheckOf(z.strictObject({ a: z.string().min(2) }))).toBeUndefined();
    expect(fastCheckOf(z.strictObject({ a: z.string().transform((text) => text.length) }))).toBeUndefined();
    expect(() => checkEventData("x/y", { a: 1 }, { "x/y": refined })).toThrow('invalid data for "x/y" at $');
  });
});
