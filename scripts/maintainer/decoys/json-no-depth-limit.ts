// Decoy for step 05.1: no depth limit. The walk never counts levels (say, a work stack instead of
// recursion), so data nested 5,000 deep is accepted, and the log holding it can never be written out:
// JSON.stringify overflows the stack on it. Everything else is the chapter's.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import { JsonValueError, MAX_JSON_DEPTH, type JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  try {
    return chapterFreezeJson(value);
  } catch (error) {
    // DECOY: a value whose only fault is its depth is copied and frozen anyway.
    if (error instanceof JsonValueError && error.reason.includes(String(MAX_JSON_DEPTH))) {
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
