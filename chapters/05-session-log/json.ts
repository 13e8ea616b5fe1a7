// 5.3 step 1: `freezeJson` — before an event enters the log, its data is checked to be plain JSON,
// copied, and deep-frozen, all in one pass. After that no caller can change what was logged.
// The walk uses an explicit work stack instead of recursion, so a 100,000-deep value is just a
// long loop, never a "Maximum call stack size exceeded".
import { formatPath, JsonValueError, type JsonArray, type JsonObject, type JsonPrimitive, type JsonValue } from "./json-value.ts";

/** Where a value sits: its parent's spot and its key there. `undefined` is the root, `$`. */
type Spot = { readonly parent: Spot; readonly key: string | number } | undefined;

/** The work stack holds two kinds of job: copy a value into place, and finish a container. */
type Job =
  | { readonly kind: "visit"; readonly value: unknown; readonly spot: Spot; readonly put: (copy: JsonValue) => void }
  | { readonly kind: "leave"; readonly original: object; readonly copy: JsonArray | JsonObject };

export function freezeJson(value: unknown): JsonValue {
  let result: JsonValue = null;
  const stack: Job[] = [{ kind: "visit", value, spot: undefined, put: (copy) => (result = copy) }];
  // Only the containers we are inside *right now*: meeting one of them again is a cycle. A set of
  // everything ever seen would wrongly reject the same object used twice side by side.
  const ancestors = new Set<object>();
  // Containers already copied. Their copy is frozen, so sharing it is safe, and a value that reuses
  // one object many times (a DAG) costs one copy instead of one per path.
  const finished = new Map<object, JsonArray | JsonObject>();
  for (let job = stack.pop(); job !== undefined; job = stack.pop()) {
    if (job.kind === "leave") {
      ancestors.delete(job.original);
      finished.set(job.original, Object.freeze(job.copy)); // children are all in: freeze bottom-up
    } else if (typeof job.value !== "object" || job.value === null) {
      job.put(checkPrimitive(job.value, job.spot));
    } else if (ancestors.has(job.value)) {
      throw new JsonValueError(pathOf(job.spot), "circular reference");
    } else {
      const done = finished.get(job.value);
      if (done !== undefined) job.put(done);
      else enter(job.value, job.spot, job.put, stack, ancestors);
    }
  }
  return result;
}

/** Starts copying a container: its "leave" job goes under its children, so it runs after them. */
function enter(original: object, spot: Spot, put: (copy: JsonValue) => void, stack: Job[], ancestors: Set<object>) {
  const children = childrenOf(original, spot);
  const copy: JsonValue[] | { [key: string]: JsonValue } = Array.isArray(original) ? [] : {};
  put(copy);
  ancestors.add(original);
  stack.push({ kind: "leave", original, copy });
  // Pushed last-first so they pop in order: the first bad spot in reading order is the one reported.
  for (const [key, child] of children.reverse()) {
    stack.push({ kind: "visit", value: child, spot: { parent: spot, key }, put: (c) => defineOwn(copy, key, c) });
  }
}

/**
 * Reads every own property exactly once, as a descriptor. Accessors are rejected, not called:
 * reading a getter runs the caller's code, which could answer differently each time or throw.
 */
function childrenOf(value: object, spot: Spot): [string | number, unknown][] {
  const proto: object | null = Object.getPrototypeOf(value);
  const length = Array.isArray(value) && proto === Array.prototype ? value.length : undefined;
  if (length === undefined && proto !== Object.prototype && proto !== null) {
    throw new JsonValueError(pathOf(spot), `${kindOf(proto)} is not a plain object or array`);
  }
  const symbol = Object.getOwnPropertySymbols(value)[0];
  if (symbol !== undefined) throw new JsonValueError(pathOf(spot), `symbol key ${String(symbol)}`);
  const names = Object.getOwnPropertyNames(value);
  const keys = length === undefined ? names : arrayIndexes(names, length, spot);
  return keys.map((key) => [key, dataOf(Object.getOwnPropertyDescriptor(value, key), { parent: spot, key })]);
}

/**
 * An array's own keys must be exactly its indexes (and "length"). They come in a fixed order —
 * indexes ascending, then "length", then anything else — so one pass finds the first hole or extra.
 */
function arrayIndexes(names: string[], length: number, spot: Spot): number[] {
  const indexes: number[] = [];
  for (const key of names) {
    const i = indexes.length;
    if (i < length && key === String(i)) indexes.push(i);
    else if (i < length) throw new JsonValueError(pathOf({ parent: spot, key: i }), "hole in a sparse array");
    else if (key !== "length") throw new JsonValueError(pathOf({ parent: spot, key }), "extra property on an array");
  }
  return indexes;
}

function dataOf(d: PropertyDescriptor | undefined, spot: Spot): unknown {
  if (d === undefined || !("value" in d)) throw new JsonValueError(pathOf(spot), "accessor property (getter/setter)");
  // JSON.stringify would silently drop it; we refuse rather than lose data without a word.
  if (!d.enumerable) throw new JsonValueError(pathOf(spot), "non-enumerable property");
  return d.value;
}

function checkPrimitive(value: unknown, spot: Spot): JsonPrimitive {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value !== "number") throw new JsonValueError(pathOf(spot), `${typeof value} is not a JSON value`);
  if (!Number.isFinite(value)) throw new JsonValueError(pathOf(spot), `${value} is not a finite number`);
  // JSON.stringify(-0) is "0": the log would not read back what was written.
  if (Object.is(value, -0)) throw new JsonValueError(pathOf(spot), "negative zero (-0)");
  // Past 2^53 integers lose precision, here and in most other JSON readers.
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new JsonValueError(pathOf(spot), `integer ${value} is outside the safe range`);
  }
  return value;
}

/** Names a non-plain object's kind from its prototype's constructor, without calling anything. */
function kindOf(proto: object | null): string {
  const ctor: unknown = proto && Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
  const name: unknown = typeof ctor === "function" && Object.getOwnPropertyDescriptor(ctor, "name")?.value;
  return typeof name === "string" && name !== "" ? name : "an object with a custom prototype";
}

/**
 * The copy is an ordinary `{}` (prototype Object.prototype), friendlier to compare and print than a
 * null-prototype one. defineProperty, not `copy[key] = …`: a "__proto__" key from JSON.parse must
 * become an own property, not swap the copy's prototype.
 */
function defineOwn(copy: JsonValue[] | { [key: string]: JsonValue }, key: string | number, value: JsonValue) {
  if (Array.isArray(copy)) copy.push(value); // items arrive in index order
  else Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The path from the root to `spot`, e.g. `$.a[2].b`. */
function pathOf(spot: Spot): string {
  const keys: (string | number)[] = [];
  for (let s = spot; s !== undefined; s = s.parent) keys.push(s.key);
  return formatPath(keys.reverse());
}
