// Decoy for step 05.1: -0 is let through ("it is just zero"). But JSON.stringify(-0) is "0", so the
// log would not read back what was written. Everything else is the chapter's.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import { JsonValueError, type JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  try {
    return chapterFreezeJson(value);
  } catch (error) {
    // DECOY: a value whose only fault is a -0 is frozen as it is.
    if (error instanceof JsonValueError && /-0|negative zero/i.test(error.reason)) {
      return deepFreeze(structuredClone(value) as JsonValue);
    }
    throw error;
  }
}

function deepFreeze(value: JsonValue): JsonValue {
  const stack: JsonValue[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === "object" && item !== null) stack.push(...Object.values(Object.freeze(item)));
  }
  return value;
}
