// What a JSON value is, and the error for one that is not: the types `freezeJson` returns, the depth
// it accepts, and the path format every error that points into data uses. Given to the learner in
// step 05.1.
import { formatPath } from "../common/json-path.ts";
import { clip } from "../common/text.ts";

// Where in a value: every error that points into data writes its path this way (`$.a[2].b`).
export { formatPath };

export type JsonPrimitive = null | boolean | number | string;
export type JsonArray = readonly JsonValue[];
export type JsonObject = { readonly [key: string]: JsonValue };
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;

/**
 * The most arrays and objects a value may nest: `[[1]]` is 2 levels. Whatever the log accepts must be
 * writable with JSON.stringify, which on Node 20 overflows the call stack at 2,199 levels of frozen
 * arrays (the log's data is frozen; plain arrays reach 4,103) with a nearly empty stack, and at
 * fewer the more of the stack is already in use (`npm run bench` measures it). An event adds two
 * levels around its data: the log array and the event object. At 500, a log still saves with three
 * quarters of the stack in use, and freezeJson's recursion stays small. Real event data is a handful
 * of levels deep.
 */
export const MAX_JSON_DEPTH = 500;

/**
 * Thrown when a value is not plain JSON; `path` points at the offending spot, like `$.a[2].b`. The
 * message clips a long path (500 levels, or one key a megabyte long); the `path` field keeps it whole.
 */
export class JsonValueError extends Error {
  override readonly name = "JsonValueError";
  constructor(
    readonly path: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${clip(path, 200)}: ${reason}`, options);
  }
}
