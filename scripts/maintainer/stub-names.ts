// What a stub says is given, and what it imports: the names in its "Given:" comments that some
// chapter module exports, and the names its imports and `export *` lines bring in. A stub must import
// everything its comment says is given, so a learner never has to grep chapters/ to find it
// (scripts/maintainer/structure.test.ts checks every shipped stub).
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { importsOf } from "./import-graph.ts";

/** The names a module declares with `export` (functions, classes, types, interfaces, constants). */
export function exportedNames(source: string): string[] {
  const file = ts.createSourceFile("module.ts", source, ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of file.statements) {
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
      }
    } else if ("name" in statement && statement.name !== undefined && ts.isIdentifier(statement.name as ts.Node)) {
      names.push((statement.name as ts.Identifier).text);
    }
  }
  return names;
}

/** Every name `file` can use without importing more: its imports, its own exports, and what its `export *` lines pass on. */
export function boundNames(source: string, file: string): Set<string> {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest);
  const names = new Set(exportedNames(source));
  for (const statement of parsed.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name !== undefined) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings !== undefined && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(element.name.text);
    }
    if (ts.isExportDeclaration(statement) && statement.exportClause === undefined && statement.moduleSpecifier !== undefined) {
      const [target] = importsOf(`export * from ${statement.moduleSpecifier.getText(parsed)};`, file);
      if (target !== undefined) for (const name of exportedNames(readFileSync(target, "utf8"))) names.add(name);
    }
  }
  return names;
}

/** The text of a stub's "Given" comments: from a comment line starting "Given" to the next line that is not a comment. */
export function givenText(source: string): string {
  const paragraphs: string[] = [];
  let inGiven = false;
  for (const line of source.split("\n")) {
    const comment = /^\s*(?:\/\/|\*)\s?(.*)$/.exec(line)?.[1];
    if (comment === undefined) inGiven = false;
    else if (/^Given\b/.test(comment)) inGiven = true;
    if (inGiven && comment !== undefined) paragraphs.push(comment);
  }
  return paragraphs.join("\n");
}

/**
 * The names the stub's `givenText` mentions that `exports` knows and the stub does not bind. Only
 * names that read as code (camelCase, PascalCase, CONSTANTS): `usage` or `text` in a sentence is English.
 */
export function givenButNotImported(stubSource: string, stubFile: string, exports: ReadonlyMap<string, string>): string[] {
  const text = givenText(stubSource);
  const bound = boundNames(stubSource, stubFile);
  return [...exports.keys()]
    .filter((name) => /[A-Z_]/.test(name))
    .filter((name) => new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(text) && !bound.has(name));
}

/** Name → the file exporting it, over `files`. */
export function exportsOf(files: readonly string[], root: string): Map<string, string> {
  const exports = new Map<string, string>();
  for (const file of files) for (const name of exportedNames(readFileSync(file, "utf8"))) exports.set(name, path.relative(root, file));
  return exports;
}
