// Decoy for step 05.1: the depth check is off by one (`>=` where `>` belongs, or the root counted
// as a level of its own), so a value exactly MAX_JSON_DEPTH levels deep is already rejected.
import { freezeJson as chapterFreezeJson } from "../../../chapters/05-session-log/json.ts";
import { JsonValueError, MAX_JSON_DEPTH, type JsonValue } from "../../../chapters/05-session-log/json-value.ts";

export function freezeJson(value: unknown): JsonValue {
  const copy = chapterFreezeJson(value);
  // DECOY: one level too strict.
  if (depthOf(copy) >= MAX_JSON_DEPTH) throw new JsonValueError("$", `nested ${MAX_JSON_DEPTH} levels or more`);
  return copy;
}

/** How many arrays and objects nest in a (frozen, acyclic) copy: a loop over a work stack. */
function depthOf(value: JsonValue): number {
  let deepest = 0;
  const stack: [JsonValue, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, above] = next;
    if (typeof item !== "object" || item === null) continue;
    deepest = Math.max(deepest, above + 1);
    for (const child of Object.values(item)) stack.push([child, above + 1]);
  }
  return deepest;
}
