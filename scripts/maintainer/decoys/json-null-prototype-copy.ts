// Decoy for step 05.1: checks, copies and deep-freezes like the chapter, but builds every object of
// the copy with Object.create(null). Frozen and equal by toEqual, yet not what JSON.parse gives: a
// log read back from a file would hold different values than the live one.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import type { JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  return withNullPrototypes(chapterFreezeJson(value));
}

function withNullPrototypes(value: JsonValue): JsonValue {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(withNullPrototypes));
  // DECOY: a null-prototype copy.
  const copy = Object.create(null) as Record<string, JsonValue>;
  for (const [key, child] of Object.entries(value)) {
    Object.defineProperty(copy, key, { value: withNullPrototypes(child), enumerable: true, writable: true, configurable: true });
  }
  return Object.freeze(copy);
}
