// The workbook's import graph, as shipped: every .ts file's relative imports (type-only ones and
// `declare module` augmentations too), with each learner file read from its shipped stub, so a
// learner's own edits never change what the structure tests (scripts/maintainer/structure.test.ts) see.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** File → the files it imports (absolute paths). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every .ts file under `dir`, skipping node_modules, hidden folders and the folders in `skip`. */
export function typeScriptFiles(dir: string, skip: ReadonlySet<string> = new Set()): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.name === "node_modules" || entry.name.startsWith(".") || skip.has(full)) continue;
    if (entry.isDirectory()) files.push(...typeScriptFiles(full, skip));
    else if (entry.name.endsWith(".ts")) files.push(full);
  }
  return files;
}

/** The relative import specifiers of a source text, resolved against `file`'s folder. */
export function importsOf(source: string, file: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"))
    .map((specifier) => resolveModule(path.resolve(path.dirname(file), specifier)));
}

function resolveModule(target: string): string {
  for (const candidate of [target, `${target}.ts`, path.join(target, "index.ts")]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return target; // unresolved: kept, so a reach into a forbidden folder is still seen
}

/**
 * The graph of `files`; a file listed in `readFrom` is read from there (a learner file from its
 * shipped stub) but keeps its own place, so its `./todo.ts` is the learner folder's.
 */
export function importGraph(files: readonly string[], readFrom: ReadonlyMap<string, string> = new Map()): ImportGraph {
  return new Map(files.map((file) => [file, importsOf(readFileSync(readFrom.get(file) ?? file, "utf8"), file)]));
}

/** Each import circle once, as the path around it (Tarjan's strongly connected components). */
export function importCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  // Iterative, like the rest of the workbook's walks: a long chain of imports must not overflow.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { file: string; next: number }[] = [{ file: start, next: 0 }];
    visit(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const targets = graph.get(top.file) ?? [];
      const target = targets[top.next++];
      if (target !== undefined) {
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          visit(target);
          work.push({ file: target, next: 0 });
        } else if (onStack.has(target)) low.set(top.file, Math.min(low.get(top.file)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(top.file)!));
      if (low.get(top.file) === index.get(top.file)) {
        const component: string[] = [];
        for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
          onStack.delete(member);
          component.push(member);
          if (member === top.file) break;
        }
        const selfImport = (graph.get(top.file) ?? []).includes(top.file);
        if (component.length > 1 || selfImport) circles.push(circleThrough(graph, new Set(component), top.file));
      }
    }
  }
  return circles;

  function visit(file: string): void {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
  }
}

/** A path from `start` back to itself inside one strongly connected component. */
function circleThrough(graph: ImportGraph, component: ReadonlySet<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of graph.get(file) ?? []) {
      if (target === start) {
        const circle = [start];
        for (let at: string | undefined = file; at !== undefined && at !== start; at = cameFrom.get(at)) circle.splice(1, 0, at);
        return [...circle, start];
      }
      if (component.has(target) && !cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** Everything `start` reaches, each with the chain of imports that leads there. */
export function reachable(graph: ImportGraph, start: string): Map<string, readonly string[]> {
  const chains = new Map<string, readonly string[]>([[start, [start]]]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of graph.get(file) ?? []) {
      if (chains.has(target)) continue;
      chains.set(target, [...chains.get(file)!, target]);
      if (graph.has(target)) queue.push(target);
    }
  }
  return chains;
}
