// 5.3 step 1: `freezeJson` — before an event enters the log, its data is checked to be plain JSON,
// copied, and deep-frozen, all in one pass. After that no caller can change what was logged.
// The walk is plain recursion, one call per level of nesting. That is safe because a value may nest
// at most MAX_JSON_DEPTH (500) levels, the most a saved log can hold (see json-value.ts), and 500
// calls use a small part of the call stack (log-depth.test.ts checks how small).
import { types } from "node:util";
import { clip } from "../common/text.ts";
import { formatPath, JsonValueError, MAX_JSON_DEPTH, type JsonPrimitive, type JsonValue } from "./json-value.ts";

/** Where a value sits: its parent's spot and its key there. `undefined` is the root, `$`. */
type Spot = { readonly parent: Spot; readonly key: string | number } | undefined;

type Copy = JsonValue[] | { [key: string]: JsonValue };

export function freezeJson(value: unknown): JsonValue {
  return freeze(value, undefined, new Set());
}

/**
 * `ancestors` holds the containers we are inside right now, so its size is the depth, and meeting
 * one of them again is a cycle. A set of everything ever seen would wrongly reject the same object
 * used twice side by side (that one is copied twice, as JSON.stringify would write it twice).
 */
function freeze(value: unknown, spot: Spot, ancestors: Set<object>): JsonValue {
  if (typeof value !== "object" || value === null) return checkPrimitive(value, spot);
  if (ancestors.has(value)) throw new JsonValueError(pathOf(spot), "circular reference");
  if (ancestors.size === MAX_JSON_DEPTH) {
    throw new JsonValueError(pathOf(spot), `nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`);
  }
  const { copy, children } = readContainer(value, spot);
  ancestors.add(value);
  for (const [key, child] of children) addChild(copy, key, freeze(child, { parent: spot, key }, ancestors));
  ancestors.delete(value);
  return Object.freeze(copy); // its children are frozen already: the copy freezes bottom-up
}

/**
 * An empty copy of the right kind, and the children to put in it. Every property is read exactly
 * once, as a descriptor, never through `get`: a getter or a Proxy trap runs the caller's code, which
 * could answer differently each time. Accessors are rejected, not called.
 */
function readContainer(value: object, spot: Spot): { copy: Copy; children: [string | number, unknown][] } {
  const { proto, isArray, keys } = read(spot, () => ({
    proto: Object.getPrototypeOf(value) as object | null,
    isArray: Array.isArray(value),
    keys: Reflect.ownKeys(value),
  }));
  const plain = read(spot, () => (isArray ? isBuiltInPrototype(proto, "Array") : proto === null || isBuiltInPrototype(proto, "Object")));
  if (!plain) throw new JsonValueError(pathOf(spot), `${kindOf(proto)} is not a plain object or array`);
  const symbol = keys.find((key) => typeof key === "symbol");
  if (symbol !== undefined) throw new JsonValueError(pathOf(spot), `symbol key ${clip(String(symbol), 40)}`);
  const names = keys as string[];
  const childKeys = isArray ? arrayIndexes(names, lengthOf(value, spot), spot) : names;
  const children = childKeys.map((key): [string | number, unknown] => [key, dataOf(value, key, { parent: spot, key })]);
  return { copy: isArray ? [] : {}, children };
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

/** An array's length, from its descriptor: `value.length` would ask a Proxy's `get` trap, which may lie. */
function lengthOf(value: object, spot: Spot): number {
  return read(spot, () => Object.getOwnPropertyDescriptor(value, "length")?.value as number);
}

/** The value of own data property `key`, read once through its descriptor; `spot` is where errors point. */
function dataOf(value: object, key: string | number, spot: Spot): unknown {
  const d = read(spot, () => Object.getOwnPropertyDescriptor(value, key));
  if (d === undefined) throw new JsonValueError(pathOf(spot), "listed as a key but has no property (a Proxy?)");
  if (!("value" in d)) throw new JsonValueError(pathOf(spot), "accessor property (getter/setter)");
  // JSON.stringify would silently drop it; we refuse rather than lose data without a word.
  if (!d.enumerable) throw new JsonValueError(pathOf(spot), "non-enumerable property");
  return d.value;
}

/** Runs a read that may run the caller's code (a Proxy's trap): whatever it throws is reported here. */
function read<T>(spot: Spot, reading: () => T): T {
  try {
    return reading();
  } catch (error) {
    throw new JsonValueError(pathOf(spot), "reading it threw an error (a Proxy trap?), kept as this error's cause", {
      cause: error,
    });
  }
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

/**
 * Whether `proto` is the built-in Object.prototype (or Array.prototype) of this realm or of another one
 * (a `vm` context, an iframe): `{ a: 1 }` made there is as plain as one made here, and copies into the
 * same `{ a: 1 }`. A look-alike is told apart by its constructor, which must be that realm's built-in
 * function of the name. Nothing of the caller's runs: a Proxy is never asked, the rest is read as descriptors.
 */
function isBuiltInPrototype(proto: object | null, name: "Object" | "Array"): boolean {
  if (proto === globalThis[name].prototype) return true;
  if (proto === null || types.isProxy(proto)) return false;
  const ctor: unknown = Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
  if (typeof ctor !== "function" || types.isProxy(ctor)) return false;
  const builtIn = functionSource.call(ctor) === `function ${name}() { [native code] }`;
  return builtIn && Object.getOwnPropertyDescriptor(ctor, "prototype")?.value === proto;
}

const functionSource = Function.prototype.toString;

/** Names a non-plain object's kind from its prototype's constructor, without calling anything. */
function kindOf(proto: object | null): string {
  try {
    const ctor: unknown = proto && Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
    const name: unknown = typeof ctor === "function" && Object.getOwnPropertyDescriptor(ctor, "name")?.value;
    // Named Object or Array, yet not the built-in one: say so, not "Object is not a plain object".
    if (name === "Object" || name === "Array") return `an object whose prototype only looks like ${name}.prototype`;
    if (typeof name === "string" && name !== "") return clip(name, 40);
  } catch {
    // A Proxy as the prototype threw: the error does not get to choose our message.
  }
  return "an object with a custom prototype";
}

/**
 * The copy is an ordinary `{}` (prototype Object.prototype), even of a null-prototype input: what
 * JSON.parse makes, so a log read back from a file holds the same values as the live one (05.1's
 * tests say so). defineProperty, not `copy[key] = …`: a "__proto__" key from JSON.parse must
 * become an own property, not swap the copy's prototype. Writable and configurable, as an assignment
 * would make it (the copy is frozen next): other attributes make V8 store an array's items slowly.
 */
function addChild(copy: Copy, key: string | number, value: JsonValue): void {
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The path from the root to `spot`, e.g. `$.a[2].b`. */
function pathOf(spot: Spot): string {
  const keys: (string | number)[] = [];
  for (let s = spot; s !== undefined; s = s.parent) keys.push(s.key);
  return formatPath(keys.reverse());
}
