// Decoy for step 05.1: a recursive walk. Natural to write and right on everyday values, but every
// level of nesting takes a stack frame, so 100,000 levels end in a RangeError ("Maximum call stack
// size exceeded") instead of a frozen copy.
import { freezeJson as chapterFreezeJson } from "../../chapters/05-session-log/json.ts";
import { type JsonValue } from "../../chapters/05-session-log/json-value.ts";


export function freezeJson(value: unknown): JsonValue {
  return visit(chapterFreezeJson(value));
}

/** DECOY: one stack frame per level of nesting. */
function visit(value: JsonValue): JsonValue {
  if (typeof value === "object" && value !== null) for (const child of Object.values(value)) visit(child);
  return value;
}
