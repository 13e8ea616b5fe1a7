// A TypeScript file as a list of its top-level definitions and class members, for `npm run compare`:
// the parts a stub asks the learner to write (a `todo("05.3", …)` in the body, or `TODO(p2)` in its
// comment), found in the stub, the learner's file and the answer by the same name.
import ts from "typescript";

export interface Member {
  /** `freezeJson`, `Session.append`, `Session.#notify`, `Session.events` (a getter). */
  readonly key: string;
  /** The member's text with its leading comments, dedented. */
  readonly text: string;
  /**
   * The member's code alone, dedented: no leading comments, so neither a stub's doc comment (which the
   * learner never wrote) nor a file header that happens to stand above the first member.
   */
  readonly code: string;
  /** 1-based line where the member (or its leading comment) starts. */
  readonly line: number;
  /** Every identifier the member uses (`checkType`, `#notify`, …): what its helpers might be. */
  readonly uses: ReadonlySet<string>;
}

export function membersOf(source: string, fileName = "file.ts"): Member[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const members: Member[] = [];
  const add = (key: string, node: ts.Node) => members.push(memberOf(key, node, file));
  for (const statement of file.statements) {
    if (ts.isClassDeclaration(statement) && statement.name !== undefined) {
      for (const member of statement.members) {
        const name =
          member.name === undefined ? (ts.isConstructorDeclaration(member) ? "constructor" : undefined) : nameOf(member.name, file);
        if (name !== undefined) add(`${statement.name.text}.${name}`, member);
      }
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) add(declaration.name.text, statement);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      add(statement.name.text, statement);
    }
  }
  return members;
}

function nameOf(name: ts.PropertyName, file: ts.SourceFile): string {
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText(file);
}

function memberOf(key: string, node: ts.Node, file: ts.SourceFile): Member {
  const start = node.getFullStart();
  const raw = file.text.slice(start, node.end).replace(/^\s*\n/, "");
  const from = file.text.indexOf(raw.trimStart(), start);
  const uses = new Set<string>();
  const visit = (child: ts.Node): void => {
    if (ts.isIdentifier(child) || ts.isPrivateIdentifier(child)) uses.add(child.text);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  const code = file.text.slice(node.getStart(file), node.end);
  // Dedented as the whole member is: its first line starts at the member's own indent.
  const indent = " ".repeat(file.getLineAndCharacterOfPosition(node.getStart(file)).character);
  return { key, text: dedent(raw), code: dedent(indent + code), line: file.getLineAndCharacterOfPosition(from).line + 1, uses };
}

function dedent(text: string): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  const indents = lines.filter((line) => line.trim() !== "").map((line) => /^ */.exec(line)![0].length);
  const cut = Math.min(...indents);
  return lines.map((line) => line.slice(cut)).join("\n");
}

/** The members a stub asks the learner to write for `stepId`: a todo() call (which the formatter may break after its `(`) or a TODO(id) comment. */
export function stepMembers(stub: readonly Member[], stepId: string): Member[] {
  const call = new RegExp(String.raw`\btodo\(\s*"${stepId.replaceAll(".", "\\.")}"`, "u");
  return stub.filter((member) => call.test(member.text) || member.text.includes(`TODO(${stepId})`));
}

/** The last part of a key: `Session.#notify` → `#notify`. */
function simpleName(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

/**
 * The answer's members that `wanted` uses, directly or through each other, and that neither the
 * stub gives nor the step itself asks for: the helpers the answer wrote along the way.
 */
export function helpersOf(answer: readonly Member[], wanted: readonly Member[], stub: readonly Member[]): Member[] {
  const given = new Set([...stub.map((member) => member.key), ...wanted.map((member) => member.key)]);
  const helpers = new Map<string, Member>();
  const queue = [...wanted];
  for (let member = queue.shift(); member !== undefined; member = queue.shift()) {
    for (const candidate of answer) {
      if (given.has(candidate.key) || helpers.has(candidate.key) || !member.uses.has(simpleName(candidate.key))) continue;
      helpers.set(candidate.key, candidate);
      queue.push(candidate);
    }
  }
  return answer.filter((member) => helpers.has(member.key)); // in the answer's order
}
