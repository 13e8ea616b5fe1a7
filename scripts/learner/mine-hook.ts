// The resolve hook behind `--mine` (registered by scripts/learner/mine.ts with node:module's `register`, so it
// runs in Node's hooks thread for that one run). Every import is first resolved as usual; when the file
// it lands on is in the mapping, the import loads the file mapped to instead: the chapter's answer
// becomes the learner's file for a step that is done, the learner's file becomes the answer for one
// that is not. Nothing is copied or rewritten. A file never gets itself back: a learner's session.ts
// that imports the chapter's Session (to build on it) gets the chapter's.
import type { InitializeHook, ResolveHook } from "node:module";

/** URL → URL, as scripts/learner/mine.ts computes it from the step manifest. */
export interface HookData {
  readonly entries: readonly (readonly [from: string, to: string])[];
}

let mapping = new Map<string, string>();

export const initialize: InitializeHook<HookData> = (data) => {
  mapping = new Map(data.entries);
};

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  const to = mapping.get(resolved.url);
  return to === undefined || to === context.parentURL ? resolved : { ...resolved, url: to };
};
