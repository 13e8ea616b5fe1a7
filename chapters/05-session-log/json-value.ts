// What a JSON value is, and the error for one that is not: the types `freezeJson` returns and the
// path format every error that points into data uses. Given to the learner in step 05.1.

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

/** `$.a[2].b`: array indexes in brackets, and keys that are not identifiers quoted: `$["weird key"]`. */
export function formatPath(keys: readonly PropertyKey[]): string {
  let path = "$";
  for (const key of keys) {
    if (typeof key === "number") path += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) path += `.${key}`;
    else path += `[${JSON.stringify(String(key))}]`;
  }
  return path;
}
