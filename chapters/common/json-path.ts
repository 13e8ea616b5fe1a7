// A place inside a JSON value, written as a path from its root: `$.a[2].b`. Errors that point into
// data say where with it: a log event's data (chapter 05), a fixture file's fields.

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
