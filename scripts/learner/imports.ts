// Which files of the learner's folder a file loads, directly or through others there, as they stand
// now: a learner may add an import, and 05.6 has them wire message-cache.ts into session.ts. `npm run
// watch` re-runs the steps whose tests reach a saved file; `npm run reset` names the steps whose tests
// reach a file left calling a stub; `--mine` keeps a step's verdict while the files its tests reach are
// unchanged. (The step manifest alone is not enough: 05.2's tests reach
// projection.ts, a later step's file, through session.ts; scripts/learner/watch.test.ts shows it.)
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { exercisesDir, type Step } from "../steps.ts";

/** A relative module specifier after `from`, `import` or `import(`: what a learner's file can load. */
const IMPORT = /\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

/**
 * The files in `dir` that `start` reaches, `start` first, each with its text, in the order they are
 * met (depth first). `read` lets a caller read each file once across several starts.
 */
export function filesReached(start: string, dir: string, read = readText): Map<string, string> {
  const reached = new Map<string, string>();
  const visit = (file: string) => {
    if (reached.has(file) || !file.startsWith(`${dir}${path.sep}`) || !isFile(file)) return;
    const text = read(file);
    reached.set(file, text);
    for (const [, specifier = ""] of text.matchAll(IMPORT)) visit(resolved(path.resolve(path.dirname(file), specifier)));
  };
  visit(start);
  return reached;
}

/** `./json` means `./json.ts`, as the workbook's TypeScript settings let a learner write it. */
function resolved(target: string): string {
  return isFile(target) || !isFile(`${target}.ts`) ? target : `${target}.ts`;
}

const isFile = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;

function readText(file: string): string {
  return readFileSync(file, "utf8");
}

/**
 * The steps of `list` whose test file imports one of `files`, directly or through other files of the
 * exercise folder, as the files stand now (a learner may add an import). Each file is read once a call.
 */
export function stepsImporting(files: readonly string[], list: readonly Step[], dir = exercisesDir): Step[] {
  const texts = new Map<string, string>();
  const read = (file: string) => {
    const text = texts.get(file) ?? readFileSync(file, "utf8");
    texts.set(file, text);
    return text;
  };
  return list.filter((step) => {
    const reached = filesReached(path.join(dir, step.test), dir, read);
    return files.some((file) => reached.has(path.resolve(file)));
  });
}
