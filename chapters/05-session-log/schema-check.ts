// Beyond 5.2, for speed: zod's safeParse is general (it builds a result, collects issues, copies the
// data), and it ran on every append and every replayed event. Here a zod schema is compiled once into
// a plain predicate built from the schema's own definition, so zod stays the one place the vocabulary
// is written. The predicate only says yes or "ask zod": when it says no, checkEventData runs zod for
// the verdict and the message, so an error reads exactly as before (schema-check.test.ts checks that
// the two agree on valid and invalid data). A schema using anything not handled here is not compiled.
import type { z } from "zod";

/** Whether a value certainly fits the schema; `false` means "not sure: ask zod". */
export type FastCheck = (value: unknown) => boolean;

const compiled = new WeakMap<z.ZodType, FastCheck | null>();

/** The schema's predicate, compiled on first use; `undefined` when the schema uses a feature not handled here. */
export function fastCheckOf(schema: z.ZodType): FastCheck | undefined {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema) ?? null;
    compiled.set(schema, check);
  }
  return check ?? undefined;
}

// zod 4 keeps each schema's definition in `_zod.def`; read as plain data, never trusted to be complete.
type Def = { readonly type: string; readonly [key: string]: unknown };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

function compile(schema: unknown): FastCheck | undefined {
  const def = defOf(schema);
  // Checks (.min, .refine, …) are compiled for numbers only: any other schema with checks is zod's alone.
  if (def.type !== "number" && ((def.checks ?? []) as readonly unknown[]).length > 0) return undefined;
  switch (def.type) {
    case "string":
      return (value) => typeof value === "string";
    case "boolean":
      return (value) => typeof value === "boolean";
    case "unknown":
      return () => true;
    case "number":
      return compileNumber(def);
    case "literal":
      return compileOneOf(def.values as readonly unknown[]);
    case "enum":
      return compileEnum(def.entries as { readonly [key: string]: unknown });
    case "optional":
      return orElse(compile(def.innerType), undefined);
    case "nullable":
      return orElse(compile(def.innerType), null);
    case "array":
      return compileArray(compile(def.element));
    case "object":
      return compileObject(def);
    case "record":
      return isPlainString(def.keyType) ? compileRecord(compile(def.valueType)) : undefined;
    case "union":
      return compileUnion(def);
    default:
      return undefined; // a feature this compiler does not know: zod alone checks this schema
  }
}

function compileNumber(def: Def): FastCheck | undefined {
  // z.number() refuses NaN and ±Infinity; each check narrows it further.
  const checks: FastCheck[] = [(value) => typeof value === "number" && Number.isFinite(value)];
  for (const check of (def.checks ?? []) as readonly unknown[]) {
    const rule = defOf(check) as Def & { check: string; format?: string; value?: number; inclusive?: boolean };
    if (rule.check === "number_format" && rule.format === "safeint") checks.push((value) => Number.isSafeInteger(value));
    else if (rule.check === "greater_than" && typeof rule.value === "number") {
      const { value: bound, inclusive } = rule;
      checks.push((value) => (inclusive ? (value as number) >= bound : (value as number) > bound));
    } else return undefined;
  }
  return (value) => checks.every((check) => check(value));
}

function compileOneOf(allowed: readonly unknown[]): FastCheck {
  return (value) => allowed.includes(value);
}

// z.enum(["a", "b"]) has entries { a: "a", b: "b" }; an enum from a TypeScript enum may map names to
// numbers, which zod reads with rules of its own: not compiled.
function compileEnum(entries: { readonly [key: string]: unknown }): FastCheck | undefined {
  const pairs = Object.entries(entries);
  return pairs.every(([key, value]) => key === value) ? compileOneOf(pairs.map(([key]) => key)) : undefined;
}

function orElse(inner: FastCheck | undefined, alsoAllowed: undefined | null): FastCheck | undefined {
  return inner && ((value) => value === alsoAllowed || inner(value));
}

function compileArray(element: FastCheck | undefined): FastCheck | undefined {
  return element && ((value) => Array.isArray(value) && value.every((item) => element(item)));
}

/** A record of string keys: zod refuses an array, and an object with a symbol key. */
function compileRecord(valueCheck: FastCheck | undefined): FastCheck | undefined {
  return (
    valueCheck &&
    ((value) =>
      isObject(value) && Object.getOwnPropertySymbols(value).length === 0 && Object.values(value).every((item) => valueCheck(item)))
  );
}

/**
 * A strict object (catchall never) refuses keys its shape does not name; a plain z.object (no
 * catchall) ignores them. Every field is checked, the optional ones too: they accept undefined.
 */
function compileObject(def: Def): FastCheck | undefined {
  const catchall = def.catchall === undefined ? "strip" : defOf(def.catchall).type;
  if (catchall !== "never" && catchall !== "strip") return undefined;
  const fields: [string, FastCheck][] = [];
  for (const [key, field] of Object.entries(def.shape as object)) {
    const check = compile(field);
    if (check === undefined) return undefined;
    fields.push([key, check]);
  }
  const known = new Set(fields.map(([key]) => key));
  return (value) =>
    isObject(value) &&
    fields.every(([key, check]) => check((value as Record<string, unknown>)[key])) &&
    (catchall === "strip" || onlyKnownKeys(value, known));
}

// for…in, not Object.keys: no array is made. It also lists inherited enumerable keys, which a plain
// object has none of; if it ever had, the answer would be "ask zod", never a wrong yes.
function onlyKnownKeys(value: object, known: ReadonlySet<string>): boolean {
  for (const key in value) if (!known.has(key)) return false;
  return true;
}

/**
 * Any option that fits is enough. A discriminated union (a stream chunk's `kind`) goes straight to the
 * option its discriminator names, instead of trying each in turn.
 */
function compileUnion(def: Def): FastCheck | undefined {
  const options = def.options as readonly unknown[];
  const checks = options.map(compile);
  if (!checks.every((check) => check !== undefined)) return undefined;
  const byTag = typeof def.discriminator === "string" ? optionsByTag(options, checks, def.discriminator) : undefined;
  if (byTag === undefined) return (value) => checks.some((check) => check(value));
  const tag = def.discriminator as string;
  return (value) => isObject(value) && (byTag.get((value as Record<string, unknown>)[tag])?.(value) ?? false);
}

/** Each option's check by the one literal value its discriminator field allows; `undefined` if any allows more. */
function optionsByTag(options: readonly unknown[], checks: readonly FastCheck[], tag: string): Map<unknown, FastCheck> | undefined {
  const byTag = new Map<unknown, FastCheck>();
  for (const [index, option] of options.entries()) {
    const field = defOf(option).type === "object" ? (defOf(option).shape as Record<string, unknown>)[tag] : undefined;
    const values = field === undefined ? undefined : (defOf(field).values as readonly unknown[] | undefined);
    const check = checks[index];
    if (values?.length !== 1 || check === undefined || byTag.has(values[0])) return undefined;
    byTag.set(values[0], check);
  }
  return byTag;
}

function isPlainString(schema: unknown): boolean {
  const def = defOf(schema);
  return def.type === "string" && ((def.checks ?? []) as readonly unknown[]).length === 0;
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
