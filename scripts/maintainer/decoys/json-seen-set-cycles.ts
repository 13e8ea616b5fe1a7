// Decoy for step 05.1: cycles are found with a set of every object seen so far, not of the objects
// on the current path from the top. So the same object used twice side by side — shared, not
// circular — is rejected as a "circular reference". Real errors are the chapter's.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import { JsonValueError, type JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  const frozen = chapterFreezeJson(value); // every real error, with its real path
  const repeated = firstRepeat(value);
  if (repeated !== undefined) throw new JsonValueError(repeated, "circular reference");
  return frozen;
}

/** DECOY: the path where an object or array turns up a second time, anywhere in the value. */
function firstRepeat(value: unknown): string | undefined {
  const seen = new Set<object>();
  const stack: [string, unknown][] = [["$", value]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [path, item] = next;
    if (typeof item !== "object" || item === null) continue;
    if (seen.has(item)) return path;
    seen.add(item);
    for (const [key, child] of Object.entries(item)) stack.push([`${path}[${JSON.stringify(key)}]`, child]);
  }
  return undefined;
}
