// The failing test is the teacher: what a learner reads when stuck is a test's name, an assertion's
// message, an `expect.unreachable` / `expect.fail` text, a `thrownAs` hint, or an error a test helper
// throws. Each of them, in the exercise tests and their helpers, is Chinese first with English beside
// after " / " (GLOSSARY.md), and its Chinese half is written as Chinese: full-width punctuation, no space
// next to it. The texts are found by parsing the files (TypeScript's compiler API), not listed, so a test
// added later is held to the rule too. Also checked: `thrownAs` names the file each error class it is
// asked for really lives in, and says in full what came instead.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { caughtAs, homeOf, rejectedAs, thrownAs } from "../../exercises/05-session-log/thrown.ts";
import { JsonValueError } from "../../chapters/05-session-log/json-value.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const folder = "exercises/05-session-log";

// ── what a learner reads ──────────────────────────────────────────────────────────────────────────

/** A text a learner can see, as written in the source: `${…}` stands for what is filled in at run time. */
interface Shown {
  readonly file: string;
  readonly line: number;
  readonly what: "name" | "message" | "hint" | "error";
  readonly text: string;
}

const testFunctions = new Set(["test", "it", "describe"]);
const hintTakers = new Set(["thrownAs", "caughtAs", "rejectedAs"]);

/** `test`, `describe.each([...])`, `test.skipIf(x)`: the name a call chain starts from, if it names tests. */
function rootName(callee: ts.Expression): string | undefined {
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return rootName(callee.expression);
  if (ts.isCallExpression(callee)) return rootName(callee.expression);
  return undefined;
}

/** The argument of `call` that a learner reads, and what kind of text it is. */
function shownArgument(call: ts.CallExpression): [Shown["what"], ts.Expression | undefined] | undefined {
  const callee = call.expression;
  const [first, second, third] = call.arguments;
  const calleeText = callee.getText();
  if (calleeText === "expect" || calleeText === "expect.soft") return ["message", second];
  if (calleeText === "expect.unreachable" || calleeText === "expect.fail") return ["message", first];
  if (ts.isIdentifier(callee) && hintTakers.has(callee.text)) return ["hint", third];
  const name = rootName(callee);
  if (name !== undefined && testFunctions.has(name)) return ["name", first];
  return undefined;
}

/** `const name = <a text>` in this file, for messages kept in a constant. */
function textConstants(source: ts.SourceFile): Map<string, ts.Expression> {
  const found = new Map<string, ts.Expression>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) found.set(node.name.text, node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The text an expression makes, when it is written out in the source; undefined when it is computed. */
function textOf(node: ts.Expression, constants: ReadonlyMap<string, ts.Expression>, seen = new Set<string>()): string | undefined {
  if (ts.isParenthesizedExpression(node)) return textOf(node.expression, constants, seen);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => `\${…}${span.literal.text}`).join("");
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [left, right] = [textOf(node.left, constants, seen), textOf(node.right, constants, seen)];
    return left === undefined && right === undefined ? undefined : (left ?? "${…}") + (right ?? "${…}");
  }
  if (ts.isIdentifier(node) && !seen.has(node.text)) {
    const value = constants.get(node.text);
    return value === undefined ? undefined : textOf(value, constants, new Set([...seen, node.text]));
  }
  return undefined;
}

/** Every text a learner can read in one file of the exercise tests or their helpers. */
function shownTexts(file: string, sourceText: string): Shown[] {
  const source = ts.createSourceFile(file, sourceText, ts.ScriptTarget.Latest, true);
  const constants = textConstants(source);
  const found: Shown[] = [];
  const add = (what: Shown["what"], node: ts.Expression | undefined) => {
    const text = node === undefined ? undefined : textOf(node, constants);
    if (node === undefined || text === undefined) return;
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, what, text });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const shown = shownArgument(node);
      if (shown !== undefined) add(...shown);
    }
    // `throw new Error("…")` in a helper: what the learner reads when the helper gives up.
    if (ts.isThrowStatement(node) && ts.isNewExpression(node.expression) && /Error$/u.test(node.expression.expression.getText(source))) {
      add("error", node.expression.arguments?.[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// ── the rule ──────────────────────────────────────────────────────────────────────────────────────

const han = /\p{Script=Han}/u;
const fullWidth = "，。；：、！？（）“”";
const spaceByFullWidth = new RegExp(`[${fullWidth}] | [${fullWidth}]`, "u");
const halfWidthByHan = /\p{Script=Han}[,;:!?()]|[,;:!?()]\p{Script=Han}/u;

/** What is wrong with a text a learner reads, in words (nothing: it keeps the rule). */
function problemsOf(text: string): string[] {
  const split = text.indexOf(" / ");
  if (split === -1) return [han.test(text) ? 'no English beside: "中文 / English"' : 'English only: write "中文 / English"'];
  const chinese = text.slice(0, split);
  if (!han.test(chinese)) return ['English first: write "中文 / English"'];
  const problems: string[] = [];
  if (!/[A-Za-z]/u.test(text.slice(split + 3))) problems.push("no English after the ' / '");
  if (spaceByFullWidth.test(chinese)) problems.push("a space next to full-width punctuation in the Chinese half");
  if (halfWidthByHan.test(chinese)) problems.push("half-width punctuation next to Chinese: use ，：；！？（）");
  return problems;
}

/** The exercise tests, and the helpers they import that are not a learner's file (those import ./todo.ts). */
function exerciseTestFiles(): string[] {
  const names = readdirSync(path.join(root, folder)).filter((name) => name.endsWith(".ts"));
  const tests = names.filter((name) => name.endsWith(".test.ts"));
  const read = (name: string) => readFileSync(path.join(root, folder, name), "utf8");
  const imported = new Set(tests.flatMap((name) => [...read(name).matchAll(/from "\.\/([\w.-]+\.ts)"/gu)].map((match) => match[1])));
  const helpers = names.filter((name) => imported.has(name) && !name.endsWith(".test.ts") && !read(name).includes('from "./todo.ts"'));
  return [...tests, ...helpers].map((name) => `${folder}/${name}`);
}

const files = exerciseTestFiles();
const shown = files.flatMap((file) => shownTexts(file, readFileSync(path.join(root, file), "utf8")));
const describeShown = ({ file, line, what, text }: Shown, problems: readonly string[]) =>
  `${file}:${line} (${what}) ${JSON.stringify(text)}: ${problems.join("; ")}`;

describe("what a learner reads in the exercise tests: Chinese first, English beside", () => {
  test("the scan finds every kind of text: test names, assertion messages, unreachable texts, thrownAs hints, helpers' errors", () => {
    const source = [
      'describe("05.9 english only", () => {',
      '  test.each([1])("name %s", (n) => {',
      '    expect(n, "a message").toBe(1);',
      "    expect.unreachable(`got ${n}`);",
      '    thrownAs(TypeError, () => n, "a hint");',
      '    const why = "kept in a constant";',
      "    expect(n, why).toBe(1);",
      '    expect(n, "a long " + "message").toBe(1);',
      "  });",
      "});",
      'function helper(): never { throw new Error("the helper gives up"); }',
    ].join("\n");
    const found = shownTexts("sample.test.ts", source);
    expect(found.map(({ line, what, text }) => [line, what, text])).toEqual([
      [1, "name", "05.9 english only"],
      [2, "name", "name %s"],
      [3, "message", "a message"],
      [4, "message", "got ${…}"],
      [5, "hint", "a hint"],
      [7, "message", "kept in a constant"],
      [8, "message", "a long message"],
      [11, "error", "the helper gives up"],
    ]);
    expect(found.filter(({ text }) => problemsOf(text).length === 0)).toEqual([]);
    expect(
      files.filter((file) => file.endsWith("thrown.ts") || file.endsWith("stream-arbitraries.ts")),
      "helpers the tests import are scanned too",
    ).toHaveLength(2);
    expect(files, "a learner's own file is not a test's text").not.toContain(`${folder}/json.ts`);
  });

  test("the rule: Chinese before ' / ', English after, and the Chinese half written as Chinese", () => {
    expect(problemsOf("返回副本，不要返回输入本身 / return a copy, not the input itself")).toEqual([]);
    expect(problemsOf("05.1 freezeJson：接受什么 / what it accepts")).toEqual([]);
    expect(problemsOf("${…} 没有冻结：冻结副本里的每个对象和数组 / ${…} is not frozen")).toEqual([]);
    expect(problemsOf("return a copy, not the input itself")).toHaveLength(1);
    expect(problemsOf("return a copy / 返回副本")).toHaveLength(1);
    expect(problemsOf("返回副本")).toHaveLength(1);
    expect(problemsOf("返回副本， 不要返回输入本身 / return a copy")).toHaveLength(1);
    expect(problemsOf("返回副本,不要返回输入本身 / return a copy")).toHaveLength(1);
    expect(problemsOf("返回副本(不是输入) / return a copy")).toHaveLength(1);
  });

  test("every test name, assertion message, unreachable text, thrownAs hint and helper error is Chinese first, English beside", () => {
    expect(shown.length, "the exercise tests have hundreds of texts; check shownTexts()").toBeGreaterThan(500);
    const broken = shown.flatMap((text) => {
      const problems = problemsOf(text.text);
      return problems.length === 0 ? [] : [describeShown(text, problems)];
    });
    const why = `write the Chinese first, then " / " and the English (GLOSSARY.md's terms):\n${broken.join("\n")}\n`;
    expect(broken.length, why).toBe(0);
  });
});

describe("thrownAs names where each error class lives", () => {
  /** `thrownAs(SomeError, …)` and its kin: the classes the exercise tests expect. */
  const expectedClasses = [
    ...new Set(
      files.flatMap((file) =>
        [...readFileSync(path.join(root, file), "utf8").matchAll(/\b(?:thrownAs|caughtAs|rejectedAs)\(\s*([A-Z]\w*)/gu)].map(
          (match) => match[1] ?? "",
        ),
      ),
    ),
  ];

  test.each(expectedClasses)("%s: its file is named, and exports it", async (name) => {
    const home = homeOf(name);
    if (home === undefined) {
      expect(globalThis, `${name} is neither JavaScript's own nor in thrown.ts's table of homes`).toHaveProperty(name);
      return;
    }
    const module = (await import(path.join(root, home))) as Record<string, unknown>;
    expect(typeof module[name], `${home} must export ${name}`).toBe("function");
  });
});

describe("thrownAs: a wrong class says the rule, the class and its file, and all of what came, Chinese first", () => {
  const hint = "练习步骤 05.4 的规则：fromLog 逐条检查 / step 05.4's rule: fromLog checks each entry";
  // What a weak id check in fromLog meets once 05.6 is wired in: the part that matters is at the end.
  const long = `message cache: ${"x".repeat(200)} expected event #2, got #3\n(project every committed event once, in id order)`;
  // Caught by hand, not by thrownAs: thrownAs would stand in the stack of the failure this block reads.
  const failureOf = (act: () => unknown): Error => {
    try {
      act();
    } catch (error) {
      return error as Error;
    }
    throw new Error("thrownAs 应当让测试失败 / thrownAs must fail the test");
  };

  test("the message: the rule, then the class and where it is defined, then every line of what was thrown; the error kept as the cause", () => {
    const thrown = new RangeError(long);
    const failure = failureOf(() =>
      thrownAs(
        JsonValueError,
        () => {
          throw thrown;
        },
        hint,
      ),
    );
    expect(failure.message.split("\n")).toEqual([
      "练习步骤 05.4 的规则：fromLog 逐条检查：应当抛出 JsonValueError（定义在 chapters/05-session-log/json-value.ts），你的代码却抛出了 RangeError / " +
        "step 05.4's rule: fromLog checks each entry: expected JsonValueError (defined in chapters/05-session-log/json-value.ts), but your code threw RangeError",
      `  RangeError: ${long.split("\n")[0]}`,
      "  (project every committed event once, in id order)",
    ]);
    expect(failure.cause).toBe(thrown);
    expect(
      failure.stack,
      "the stack starts at the test, so the first learner file in a report is where the learner's code threw",
    ).not.toContain("thrown.ts");
  });

  test("nothing thrown, a promise that resolves, and a caught value of the wrong class are said the same way", async () => {
    expect(failureOf(() => thrownAs(TypeError, () => 1)).message).toBe(
      "应当抛出 TypeError（JavaScript 自带的错误类），却什么都没抛出 / expected TypeError (JavaScript's own error class) to be thrown, but nothing was",
    );
    class ElsewhereError extends Error {}
    expect(failureOf(() => thrownAs(ElsewhereError, () => 1)).message, "a class not in the table is not called JavaScript's own").toBe(
      "应当抛出 ElsewhereError，却什么都没抛出 / expected ElsewhereError to be thrown, but nothing was",
    );
    const resolved = await rejectedAs(JsonValueError, Promise.resolve(1), hint).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(resolved?.message).toMatch(
      /^练习步骤 05\.4 的规则：fromLog 逐条检查：应当抛出 JsonValueError（定义在 \S+），却正常完成了，没有拒绝 \/ /u,
    );
    expect(failureOf(() => caughtAs(JsonValueError, "a string", hint)).message).toContain("你的代码抛出的却不是 Error");
    const kept = new JsonValueError("$", "NaN is not JSON");
    expect(caughtAs(JsonValueError, kept), "the expected class is handed back").toBe(kept);
    expect(await rejectedAs(JsonValueError, Promise.reject(kept))).toBe(kept);
  });
});
