// Types count: a step is done when its tests pass and its file type-checks (CI runs `tsc --noEmit` on the
// learner's files too). `npm run watch` keeps one TypeScript language service warm in its runner's
// child process, so a save's type errors come right after its test result; `npm run progress` asks one
// once for every step's file. Each error is told Chinese first, with the file and line: TypeScript
// ships its messages in Chinese too (typescript/lib/zh-cn), and the English one it gives is matched
// against its template to fill the Chinese one with the same names and types.
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import ts from "typescript";
import { root } from "../steps.ts";
import type { TypeProblem } from "./type-problems.ts";

export class TypeChecker {
  readonly #service: ts.LanguageService;

  /** `files`: the files the program starts from (the learner's); what they import comes with them. */
  constructor(files: readonly string[], dir = root) {
    const config = ts.readConfigFile(path.join(dir, "tsconfig.json"), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => [...files],
      // A file's version is its modification time: every save is seen, however the file was written.
      getScriptVersion: (file) => String(modified(file)),
      getScriptSnapshot: (file) => {
        const text = ts.sys.readFile(file);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => dir,
      getCompilationSettings: () => options,
      getDefaultLibFileName: ts.getDefaultLibFilePath,
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    this.#service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  /** The type errors of `file` (its syntax first), as `tsc --noEmit` would report them. */
  check(file: string): TypeProblem[] {
    const diagnostics = [...this.#service.getSyntacticDiagnostics(file), ...this.#service.getSemanticDiagnostics(file)];
    return diagnostics.map(problemOf);
  }
}

function modified(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function problemOf(diagnostic: ts.Diagnostic): TypeProblem {
  const { file, start = 0 } = diagnostic;
  const at = file?.getLineAndCharacterOfPosition(start) ?? { line: 0, character: 0 };
  const lines = messageLines(diagnostic.messageText, diagnostic.code, 0);
  return {
    file: file === undefined ? "" : path.relative(root, file.fileName).split(path.sep).join("/"),
    line: at.line + 1,
    column: at.character + 1,
    code: diagnostic.code,
    zh: lines.map(([zh]) => zh),
    en: lines.map(([, en]) => en),
  };
}

/** A message and the chain under it (what it elaborates), each line as [Chinese, English]. */
function messageLines(message: string | ts.DiagnosticMessageChain, code: number, depth: number): [string, string][] {
  const indent = "  ".repeat(depth);
  if (typeof message === "string") return [[indent + inChinese(code, message), indent + message]];
  const own: [string, string] = [indent + inChinese(message.code, message.messageText), indent + message.messageText];
  return [own, ...(message.next ?? []).flatMap((next) => messageLines(next, next.code, depth + 1))];
}

/** TypeScript's table of its messages (in its runtime, not in its published types): English, with their keys. */
const englishMessages = (ts as unknown as { readonly Diagnostics: Readonly<Record<string, ts.DiagnosticMessage>> }).Diagnostics;
const templates = new Map<number, { readonly en: RegExp; readonly zh: string }>();
const chinese = (() => {
  const file = createRequire(import.meta.url).resolve("typescript/lib/zh-cn/diagnosticMessages.generated.json");
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
})();

/**
 * TypeScript's Chinese for an English message it gave: the English template of `code` (`Type '{0}' is
 * not assignable to type '{1}'.`) read back into its arguments, which fill the Chinese template. A message
 * that does not read back stays English.
 */
export function inChinese(code: number, english: string): string {
  let template = templates.get(code);
  if (template === undefined) {
    const known = Object.values(englishMessages).find((message) => message.code === code);
    const zh = known === undefined ? undefined : chinese[known.key];
    if (known === undefined || zh === undefined) return english;
    const pattern = known.message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\{(\d+)\\\}/g, "(?<a$1>[\\s\\S]*?)");
    template = { en: new RegExp(`^${pattern}$`), zh };
    templates.set(code, template);
  }
  const match = template.en.exec(english);
  if (match === null) return english;
  const args = match.groups ?? {}; // none for a message without placeholders ("Expression expected.")
  return template.zh.replace(/\{(\d+)\}/g, (whole, index: string) => args[`a${index}`] ?? whole);
}
