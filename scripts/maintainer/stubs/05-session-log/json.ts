// Step 05.1 — book §5.3 "Session.append：唯一的写入路径", point 1 (`_freeze_json`).
// Write `freezeJson(value)`: in one pass, check that `value` is plain JSON, copy it, and deep-freeze
// the copy. Anything that is not JSON (a cycle, NaN, -0, an unsafe integer, undefined, a Date, a
// hole in an array, a getter…) is thrown as `new JsonValueError(path, reason)`, the path like `$.a[2].b`.
// A value may nest at most MAX_JSON_DEPTH (500) levels, the most a saved log can hold, so a
// recursive walk is fine: check the depth before going a level deeper, and past the limit throw a
// JsonValueError whose reason names it. Read each property once, through its descriptor: a getter or
// a Proxy runs the caller's code, and whatever that throws becomes a JsonValueError (its cause).
// The copy is made of ordinary `{}` and `[]`, even where the input has a null prototype: the same
// values JSON.parse gives, so a log read back from a file holds exactly what the live one held.
// The rules in full: exercises/05-session-log/README.md#step-05-1 and 05.1-freeze-json.test.ts.
// Run: npx vitest exercises/05-session-log/05.1-freeze-json.test.ts
import { todo } from "./todo.ts";
// Given (chapters/05-session-log/json-value.ts): the error class JsonValueError (throw it with a path,
// a reason and maybe { cause }), the depth limit MAX_JSON_DEPTH, formatPath (a list of keys and
// indexes → `$.a[2]["b c"]`) and the JSON types JsonValue and JsonPrimitive. Only the function below is yours.
import {
  formatPath,
  JsonValueError,
  MAX_JSON_DEPTH,
  type JsonPrimitive,
  type JsonValue,
} from "../../chapters/05-session-log/json-value.ts";

/** A deep-frozen copy of `value`, or a JsonValueError naming the first spot that is not JSON. */
export function freezeJson(value: unknown): JsonValue {
  return todo(
    "05.1",
    "freezeJson：一次遍历检查它是不是纯 JSON，复制，再深度冻结副本",
    "freezeJson: check, copy and deep-freeze a JSON value",
  );
}
