// One way to name a place inside a JSON value, shared by every error in the workbook that points
// into data: freezeJson's, the event schemas', and the fixture loader's.

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
