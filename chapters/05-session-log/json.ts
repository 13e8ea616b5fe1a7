// 5.3 step 1: `freezeJson` — before an event enters the log, its data is checked to be plain JSON,
// copied, and deep-frozen, all in one pass. After that no caller can change what was logged.

export type JsonPrimitive = null | boolean | number | string;
export type JsonArray = readonly JsonValue[];
export type JsonObject = { readonly [key: string]: JsonValue };
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;

/** Thrown when a value is not plain JSON; `path` points at the offending spot, like `$.a[2].b`. */
export class JsonValueError extends Error {
  override readonly name = "JsonValueError";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

export function freezeJson(value: unknown): JsonValue {
  throw new Error("TODO(helper): implement freezeJson");
}
