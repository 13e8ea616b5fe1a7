// Decoy for step 05.1: checks the value like the chapter, then freezes the caller's own objects in
// place and returns them. No copy: the caller's data is frozen under its feet, and the log holds
// objects the caller still has.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import type { JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  chapterFreezeJson(value);
  // DECOY: the input itself, frozen in place.
  const stack: unknown[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === "object" && item !== null) stack.push(...Object.values(Object.freeze(item)));
  }
  return value as JsonValue;
}
