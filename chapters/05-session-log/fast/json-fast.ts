// Past the book, for speed: two short cuts around freezeJson's careful walk (../json.ts), which reads
// every property through its descriptor, remembers the path to each value and defines each copied
// property one by one. Both cut corners only where they can tell it is safe, and both answer
// `undefined` ("not sure") rather than throw: the session then runs freezeJson itself, so a value that
// is not plain JSON is refused with exactly the error (path and reason) the careful walk gives. Each
// stays because it earns its place: docs/benchmarks.md has the measured gain of each.
//   copyPlainJson     for any value, as append gets it: copies and freezes plain data in one quick pass.
//   freezeParsedJson  for a value the caller parsed itself with JSON.parse: freezes it in place, no copy
//                     (or for a session's own events, frozen already: demo ④ shares them, changing nothing).
import { types } from "node:util";
import { MAX_JSON_DEPTH, type JsonValue } from "../json-value.ts";

/**
 * A frozen copy of `value` when it is plainly JSON: no Proxy (checked before anything is read, so no
 * trap runs), no getter, symbol, hole, extra array property, non-enumerable property or custom
 * prototype, numbers finite, safe and not -0, at most MAX_JSON_DEPTH levels. Otherwise `undefined`.
 */
export function copyPlainJson(value: unknown): JsonValue | undefined {
  return copy(value, 0);
}

function copy(value: unknown, depth: number): JsonValue | undefined {
  if (typeof value !== "object" || value === null) return isJsonPrimitive(value) ? value : undefined;
  // At the limit, or in a cycle (which nests without end), the careful walk says which it is.
  if (depth === MAX_JSON_DEPTH || types.isProxy(value)) return undefined;
  return Array.isArray(value) ? copyArray(value, depth) : copyObject(value, depth);
}

function copyArray(value: readonly unknown[], depth: number): JsonValue | undefined {
  const length = value.length;
  // Its own keys are exactly its indexes and "length": no hole, no extra property, no symbol.
  if (Object.getPrototypeOf(value) !== Array.prototype || Reflect.ownKeys(value).length !== length + 1) return undefined;
  const items: JsonValue[] = new Array(length); // at its final size: quicker than pushing one by one
  for (let index = 0; index < length; index++) {
    const item = copy(dataOf(value, index), depth + 1);
    if (item === undefined) return undefined;
    items[index] = item;
  }
  return Object.freeze(items);
}

function copyObject(value: object, depth: number): JsonValue | undefined {
  const proto: unknown = Object.getPrototypeOf(value);
  const keys = Object.keys(value);
  // Every own key is an enumerable string: no symbol key, nothing JSON.stringify would skip. (Two
  // counts, not Reflect.ownKeys: V8 answers these two more quickly.)
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Object.getOwnPropertyNames(value).length !== keys.length || Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const fields: { [key: string]: JsonValue } = {};
  for (const key of keys) {
    const field = copy(dataOf(value, key), depth + 1);
    if (field === undefined) return undefined;
    // A "__proto__" key must become an own property, as JSON.parse makes it: `fields[key] = …` would
    // set the copy's prototype instead.
    if (key === "__proto__") Object.defineProperty(fields, key, { value: field, enumerable: true, writable: true, configurable: true });
    else fields[key] = field;
  }
  return Object.freeze(fields);
}

/** An own data property's value, read without calling a getter; `undefined` for an accessor. */
function dataOf(value: object, key: string | number): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  return descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined;
}

/**
 * Freezes, in place, a value that JSON.parse returned and nothing else holds, and gives it back; or
 * `undefined` when it breaks a rule JSON.parse does not enforce. Given a session's own frozen events
 * (demo ④ rebuilds from them), it freezes nothing new, so the events may be shared: neither can change. JSON.parse only makes plain objects,
 * arrays and primitives (no getter, Proxy, cycle or hole), so what is left to check is what JSON text
 * can still say: nesting deeper than MAX_JSON_DEPTH, -0, an integer past 2^53, and 1e999 (Infinity).
 */
export function freezeParsedJson(value: unknown): JsonValue | undefined {
  return freezeInPlace(value, 0) ? (value as JsonValue) : undefined;
}

function freezeInPlace(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return isJsonPrimitive(value);
  if (depth === MAX_JSON_DEPTH) return false;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) if (!freezeInPlace(child, depth + 1)) return false;
  Object.freeze(value);
  return true;
}

/** The rules of ../json.ts's checkPrimitive, as a yes/no: finite, not -0, and an integer only if safe. */
function isJsonPrimitive(value: unknown): value is null | boolean | number | string {
  if (typeof value !== "number") return value === null || typeof value === "string" || typeof value === "boolean";
  return Number.isFinite(value) && !Object.is(value, -0) && (Number.isSafeInteger(value) || !Number.isInteger(value));
}
