// Error messages say what they found, but a value read from a file or handed over by a caller may be
// a megabyte long or nested thousands of levels deep: describe it in a few words, never print it all.
// Given to the learner with the contracts (steps 05.1 and 05.4 use it).
import { clip } from "../common/text.ts";

/**
 * What `value` is, for an error message: a string quoted and clipped, a number as written (-0 too),
 * anything else only named. Never JSON.stringify: it overflows on deep nesting and throws on a bigint.
 */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clip(value, 40));
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "boolean" || value === null || value === undefined) return String(value);
  if (typeof value === "object") return containerKind(value);
  return `a ${typeof value}`; // bigint, symbol, function
}

function containerKind(value: object): string {
  try {
    return Array.isArray(value) ? "an array" : "an object";
  } catch {
    return "a revoked Proxy"; // the only object Array.isArray throws on
  }
}
