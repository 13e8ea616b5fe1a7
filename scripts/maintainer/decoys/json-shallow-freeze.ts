// Decoy for step 05.1: checks the value like the chapter, but freezes only the top level of the
// copy (Object.freeze is not deep): nested objects and arrays of the result can still be changed.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import type { JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  const checked = chapterFreezeJson(value);
  // DECOY: a fresh, unfrozen copy of the checked value, with just its top level frozen.
  return Object.freeze(structuredClone(checked));
}
