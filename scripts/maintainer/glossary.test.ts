// GLOSSARY.md, enforced: every Chinese text a learner reads uses one terminology, its punctuation is
// full-width with no space after it and no line break inside a paragraph, and no command a learner may
// copy is followed by Chinese punctuation (copied, `npm run demo -- --offline。` passes the
// argument "--offline。", which is not "--offline"). The texts are found, not listed: every Markdown
// file; every string with Chinese in it in the .ts files under chapters/, exercises/, solutions/,
// scripts/ and fixtures/; and data files (.json, .toml, .yaml, .txt) beside that code or at the top,
// such as the step manifest steps.toml — so a text someone adds later is checked too.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { root } from "../steps.ts";

// ── the rules ─────────────────────────────────────────────────────────────────────────────────────

interface Rule {
  /** The variant as GLOSSARY.md names it (in its "不用" column, in backticks). */
  readonly variant: string;
  /** Matches the variant in one line of text (code spans already blanked out, except for commands). */
  readonly find: RegExp;
  /** What to write instead: the failure message says it. */
  readonly use: string;
}

const han = String.raw`\p{Script=Han}`;
// An English word written into Chinese prose: a Han character on either side, spaces allowed.
const englishWordInChinese = (word: string) => new RegExp(String.raw`(?<=${han}[ \t]*)${word}\b|\b${word}(?=[ \t]*${han})`, "giu");

const termRules: readonly Rule[] = [
  { variant: "回合", find: /回合/gu, use: "轮次 / 一轮 (turn)" },
  { variant: "监听器", find: /监听器/gu, use: "订阅者 (subscriber)" },
  { variant: "推理", find: /推理/gu, use: "思考内容 (reasoning_content)" },
  { variant: "reasoning", find: englishWordInChinese("reasoning"), use: "思考内容 (reasoning_content)" },
  { variant: "writer", find: englishWordInChinese("writer"), use: "写入者 (writer)" },
  // 参数 stays right for a function's parameters and a tool call's arguments; a flag is a 选项.
  {
    variant: "参数",
    find: /列出(?:这些)?参数|--[a-z][a-z-]*\s*参数|命令行参数|(?:demo|view|record|watch)\s*参数/gu,
    use: "选项 for a command-line flag (参数 is a function's or a tool call's)",
  },
  {
    variant: "listener",
    find: englishWordInChinese("listeners?"),
    use: "订阅者 (subscriber); `listener` only as a code name, in backticks",
  },
  { variant: "stub", find: englishWordInChinese("stubs?"), use: "桩 (stub; 桩（stub） on its first use in a file)" },
  { variant: "系统提示", find: /系统提示(?!词)/gu, use: "系统提示词 (system prompt)" },
  { variant: "工具定义", find: /工具定义/gu, use: "工具说明 (tool specs)" },
  { variant: "性质测试", find: /性质测试/gu, use: "属性测试 (property test)" },
  { variant: "词汇表", find: /词汇表/gu, use: "词表 (event vocabulary)" },
  { variant: "第 3 号事件", find: /第\s*[\w-]+\s*号事件/gu, use: "“事件 #3” for an event by its id (the book's 看到新事件 #0)" },
  { variant: "§5.3", find: /§\s*\d+(?:\.\d+)?/gu, use: 'the "5.3 节" form (book section)' },
  {
    variant: "书 5.3",
    // "书 5.3", "书中 5.3", "书中章节 5.3", "书中章节：** 5.3" — unless "节" follows the number (or range).
    // The lookahead + backreference takes the whole number or range at once, so it cannot back off to 5.2.
    find: /书(?:中章节|中|里)?[\s：:*]*(?=(\d+\.\d+(?:\s*[–~、-]\s*\d+\.\d+)*))\1(?!\s*节)/gu,
    use: 'the "5.3 节" form (book section)',
  },
  {
    variant: "步骤 05.x",
    find: /(?<!练习)步骤\s*(?:0\d\.\d|p\d)/gu,
    use: "练习步骤 05.x (an exercise step; 步骤 alone is a loop step, step/start)",
  },
  {
    variant: "| 步骤 |",
    // A table's column of exercise steps (05.1, p2, …) is headed 练习步骤: 步骤 alone is a loop step.
    find: /^\|\s*步骤\s*\|(?=\s*\p{Script=Han})/gu,
    use: "练习步骤 as the header of a column of exercise steps (步骤 alone is a loop step, step/start)",
  },
  {
    variant: "练习 05.x",
    find: /练习\s+(?:0\d\.\d|p\d)/gu,
    use: "练习步骤 05.x, or 挑战 05.6 for a challenge (练习 alone is the book's 练习1–4)",
  },
  { variant: "练习 2", find: /练习\s+[1-4](?![.\d])/gu, use: "练习2 (the book's 练习1–4, no space)" },
  {
    variant: "12 个事件",
    // The book counts events with 条 ("共有 12 条事件"); 第 3 个事件 (a position) is the book's too.
    find: /(?<!第\s*[\d,]*)\d[\d,]*\s*个事件/gu, // 第 10 个事件 too: not "0 个事件" after 第 1
    use: "N 条事件 (the book's count word; 第 N 个事件 names a position)",
  },
  {
    variant: "turn/start, user/message",
    find: /[a-z]+\/[a-z-]+, [a-z]+\/[a-z-]+/gu,
    use: "、 between the items of a Chinese list, each item in backticks",
  },
  {
    variant: "挑战 challenge",
    // A Chinese label and its English gloss side by side, as a screen or a usage line shows them.
    find: /(?:挑战 challenge|提示 hint|列表 list|退出 quit|演示 demo|个测试 tests|练习步骤 step)\b/gu,
    use: "挑战 / challenge (中文 / English)",
  },
  { variant: "章末", find: /章末/gu, use: "书末 (the book's 练习1–4 and its 对照官方 table)" },
  { variant: "挑战步骤", find: /挑战步骤/gu, use: "挑战 (or 挑战练习步骤): 步骤 alone is a loop step" },
  { variant: "每个事件", find: /(?:同一|最后一|下一|[一每])个事件/gu, use: "每条事件、一条事件、下一条事件 (events take 条)" },
  { variant: "对比", find: /对比/gu, use: "对照 (the book's 对照官方; npm run compare); 比较 for two values" },
  { variant: "助手消息", find: /助手消息/gu, use: "assistant 消息 (the role's name)" },
  { variant: "seed", find: englishWordInChinese("seeds?"), use: "种子 (fast-check's seed; `seed` only as code, in backticks)" },
  {
    variant: "第一个理由",
    // The book opens with three problems; the first is the stream chunks worth keeping, not sending.
    find: /第一个理由|开头的?第\s*1\s*点|开头第\s*1\s*个问题/gu,
    use: "本章开头的第 1 个问题 (the book's three problems)",
  },
  { variant: "边到边", find: /边到边/gu, use: "随到随显示, 边收边处理 (a stream is handled as it arrives)" },
  { variant: "能读过撕裂尾行", find: /能读过撕裂尾行/gu, use: "容忍撕裂尾行的读取 (05.7's title)" },
  { variant: "打码", find: /打码/gu, use: "遮蔽 (redaction)" },
  {
    variant: "回放日志",
    find: /回放(?:日志|会话)|(?:日志|会话)的?回放|重放\s*(?:fixture|录制|流量)/gu,
    use: "重放 for a log (Session.fromLog), 回放 for a recorded fixture (see GLOSSARY.md)",
  },
];

const commandRule: Rule = {
  variant: "。，；：、！？",
  // A command (plain or in backticks) whose last character touches Chinese punctuation.
  find: /\b(?:npm|npx|tsx)(?: +[!-~]+)+[。，；：、！？]/gu,
  use: "nothing right after a command: put it on its own line, or end it with a space or a newline",
};

const halfWidthRule: Rule = {
  variant: "用完 (max_steps)",
  // Half-width punctuation in the Chinese a program prints: a comma, colon or semicolon after Chinese
  // (or after a step id that follows it, "练习步骤 05.2:"), or brackets round a code name. Not read in
  // Markdown, whose English prose quotes Chinese words, and the book's own output, as they are.
  find: /(?<=[\p{Script=Han}）」”](?: ?(?:[\d.]+|\$\{…\}))?)[,;:](?=\s|\p{Script=Han}|$)|(?<=\p{Script=Han}) ?\([a-z_]+\)/gu,
  use: "full-width punctuation in Chinese text: ，：；（）",
};

const spaceRule: Rule = {
  variant: "， 再",
  // Full-width punctuation carries its own space: one typed after it shows as a gap ("同步写入， 再 fsync").
  // A " / " before the English half, a table cell's end and the end of a line are not gaps.
  // A closing quote ends a Chinese quotation in English prose too: there only Chinese after the space is a gap.
  find: /[，。；：、！？）][ \t]+(?![ \t]|\/|\||$)|[”」』》][ \t]+(?=\p{Script=Han})/gu,
  use: "no space after full-width punctuation",
};

const flagRule: Rule = {
  variant: "--save）",
  // A flag glued to full-width punctuation, in text a terminal shows (a code span ends it in Markdown).
  find: /(?<![\w`-])--[a-z][a-z-]*[）。，；：、！？]/gu,
  use: "a space or a code span between a flag and Chinese punctuation (--save） copies as one word)",
};

const terminalRule: Rule = {
  variant: "**逐字节**",
  // A hint (steps.toml) is printed to a terminal as written: Markdown emphasis shows as asterisks, and a
  // file name outside backticks runs into the Chinese around it ("来自 chapters/x.ts）").
  find: /\*\*[^*]+\*\*|(?<![\w./-])(?:[\w.-]+\/)*[\w-]+\.(?:ts|md|json|jsonl|toml)\b/gu,
  use: "no ** in a hint; a file name in backticks (`chapters/05-session-log/events.ts`)",
};

// ── the texts ─────────────────────────────────────────────────────────────────────────────────────

/** One line of Chinese text, where it is, and which line of its file. */
interface TextLine {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

const cjk = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/u;
// This file holds every variant, on purpose, as rules and as the samples that prove them.
const self = "scripts/maintainer/glossary.test.ts";
const codeDirs = ["chapters", "exercises", "solutions", "scripts", "fixtures"];
// Not fixtures/data/: what a model said in a recording is evidence, not the workbook's wording.
const dataFile = /\.(?:json|toml|ya?ml|txt)$/u;
const recordings = "fixtures/data/";

/** Every file under `dir` (relative to the repo root), skipping node_modules and dot-folders. */
function walk(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (!entry.isDirectory()) return [relative];
    return entry.name === "node_modules" || entry.name.startsWith(".") ? [] : walk(relative);
  });
}

/** Files read line by line: every Markdown file, and the data files beside the code and at the top (steps.toml). */
function textFiles(): string[] {
  const all = walk("");
  const topLevel = (file: string) => !file.includes("/");
  const data = all.filter(
    (file) => dataFile.test(file) && !file.startsWith(recordings) && (topLevel(file) || codeDirs.some((dir) => file.startsWith(`${dir}/`))),
  );
  return [...all.filter((file) => file.endsWith(".md")), ...data];
}

function codeFiles(): string[] {
  return codeDirs.flatMap(walk).filter((file) => file.endsWith(".ts") && file !== self);
}

function textLines(file: string, text: string): TextLine[] {
  return text.split("\n").flatMap((line, i) => (cjk.test(line) ? [{ file, line: i + 1, text: line }] : []));
}

/**
 * The Chinese strings of a .ts file, line by line. A template's `${name}` is filled in when `name` is
 * a string constant of the same file — that is how `离线运行：${offline}。` shows its command.
 */
function codeStringLines(file: string, source: string): TextLine[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const constants = stringConstants(sourceFile);
  const found: TextLine[] = [];
  const visit = (node: ts.Node): void => {
    const text = renderString(node, sourceFile, constants);
    if (text !== undefined && cjk.test(text)) {
      const first = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
      text.split("\n").forEach((line, i) => {
        found.push({ file, line: first + i, text: line });
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/** The raw text of a string or template (escapes left as written, so lines stay source lines). */
function renderString(node: ts.Node, sourceFile: ts.SourceFile, constants: ReadonlyMap<string, string>): string | undefined {
  if (ts.isStringLiteral(node)) return node.getText(sourceFile).slice(1, -1);
  if (ts.isNoSubstitutionTemplateLiteral(node)) return node.rawText ?? node.text;
  if (!ts.isTemplateExpression(node)) return undefined;
  const spans = node.templateSpans.map((span) => {
    const filled = ts.isIdentifier(span.expression) ? constants.get(span.expression.text) : undefined;
    return (filled ?? "${…}") + (span.literal.rawText ?? span.literal.text);
  });
  return (node.head.rawText ?? node.head.text) + spans.join("");
}

/** `const name = "text"` anywhere in the file, for names that hold one value only. */
function stringConstants(sourceFile: ts.SourceFile): Map<string, string> {
  const values = new Map<string, Set<string>>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isStringLiteral(node.initializer)) {
      values.set(node.name.text, (values.get(node.name.text) ?? new Set()).add(node.initializer.text));
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return new Map([...values].flatMap(([name, set]) => (set.size === 1 ? [[name, [...set][0]!] as const] : [])));
}

function allTextLines(): TextLine[] {
  const read = (file: string) => readFileSync(path.join(root, file), "utf8");
  return [
    ...textFiles().flatMap((file) => textLines(file, read(file))),
    ...codeFiles().flatMap((file) => codeStringLines(file, read(file))),
  ];
}

/** Each `todo(step, whatZh, what)` call in a stub: its two texts as written (`${…}` for what is filled in). */
function todoCalls(file: string, source: string): { file: string; line: number; zh: string; en: string }[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: { file: string; line: number; zh: string; en: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "todo") {
      const [, zh, en] = node.arguments.map((argument) => renderString(argument, sourceFile, new Map()) ?? "");
      const line = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
      found.push({ file, line, zh: zh ?? "", en: en ?? "" });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

// ── the findings ──────────────────────────────────────────────────────────────────────────────────

interface Finding {
  readonly file: string;
  readonly line: number;
  /** The text that broke the rule, as found. */
  readonly found: string;
  readonly use: string;
}

/** Code spans name code (`listener`, `stub` in a path); a term rule reads the prose around them. */
const blankCodeSpans = (text: string) => text.replace(/`[^`]*`/gu, (span) => " ".repeat(span.length));

function findAll(rule: Rule, lines: readonly TextLine[], prose: boolean): Finding[] {
  return lines.flatMap(({ file, line, text }) =>
    [...(prose ? blankCodeSpans(text) : text).matchAll(rule.find)].map((match) => ({
      file,
      line,
      found: match[0],
      use: rule.use,
    })),
  );
}

const termFindings = (lines: readonly TextLine[]) => termRules.flatMap((rule) => findAll(rule, lines, true));
/**
 * In Markdown a code span already ends the command: `npm test`， copies as `npm test`. Plain text and
 * terminal output have no such end, so there the punctuation must not touch the command.
 */
const endsInCodeSpan = (finding: Finding) => finding.file.endsWith(".md") && /`[。，；：、！？]$/u.test(finding.found);
const commandFindings = (lines: readonly TextLine[]) => findAll(commandRule, lines, false).filter((finding) => !endsInCodeSpan(finding));
const flagFindings = (lines: readonly TextLine[]) => findAll(flagRule, lines, false);
/** The hints, as `npm run hint` and the watch print them: steps.toml's Chinese lines, not its comments or its `key = value` fields. */
const terminalFindings = (lines: readonly TextLine[]) =>
  findAll(
    terminalRule,
    lines.filter((line) => line.file === "steps.toml" && !/^\s*(?:#|(?:\{\s*)?\w+\s*=)/u.test(line.text)),
    true,
  );
/**
 * Files that hold text breaking the punctuation rules on purpose: the bad samples that prove
 * exercise-messages.test.ts's own rules, and zod's own Chinese messages, quoted by steps.test.ts.
 */
const quotesOnPurpose = new Set(["scripts/maintainer/exercise-messages.test.ts", "scripts/steps.test.ts"]);
/** The Chinese of a line: the part before " / " (the English beside it), if the line is Chinese at all. */
function chinesePart(text: string): string | undefined {
  const [first = ""] = text.split(" / ");
  return /^\P{L}*\p{Script=Han}|[，。；：、！？（）]/u.test(first) ? first : undefined;
}
function halfWidthFindings(lines: readonly TextLine[]): Finding[] {
  const chinese = lines.flatMap((line) => {
    const part = line.file.endsWith(".md") || quotesOnPurpose.has(line.file) ? undefined : chinesePart(line.text);
    return part === undefined ? [] : [{ ...line, text: part }];
  });
  return findAll(halfWidthRule, chinese, false);
}
/** A code span keeps its backticks and its length, but not its spaces: "`a： b`" is code, "： `a`" is not. */
const maskCodeSpans = (text: string) => text.replace(/`[^`]*`/gu, (span) => `\`${"x".repeat(span.length - 2)}\``);
const spaceFindings = (lines: readonly TextLine[]) =>
  findAll(
    spaceRule,
    lines.filter((line) => !quotesOnPurpose.has(line.file)).map((line) => ({ ...line, text: maskCodeSpans(line.text) })),
    false,
  );

/** In a Markdown file, the first 桩 comes with its English name: 桩（stub）. */
function firstStubFindings(lines: readonly TextLine[]): Finding[] {
  const firstByFile = new Map<string, TextLine>();
  for (const line of lines) {
    if (line.file.endsWith(".md") && !firstByFile.has(line.file) && blankCodeSpans(line.text).includes("桩")) {
      firstByFile.set(line.file, line);
    }
  }
  return [...firstByFile.values()]
    .filter((line) => !/^[^桩]*桩（stub）/u.test(blankCodeSpans(line.text)))
    .map(({ file, line }) => ({ file, line, found: "桩", use: "桩（stub） the first time a file uses it, then 桩" }));
}

const describeFinding = ({ file, line, found, use }: Finding) => `${file}:${line}: "${found}" → ${use}`;

const fence = /^\s*(?:```|~~~)/u;
const tableRow = /^\s*\|/u;
/** A Markdown line without what does not render as text at its edges: indentation, `>` quote marks, `*`/`_` emphasis marks. */
const bare = (line: string) => line.replace(/^[\s>]*[*_]*/u, "").replace(/[*_\s]*$/u, "");

/**
 * Markdown joins a paragraph's lines with a space. In Chinese text a browser shows it as a stray gap:
 * between two Chinese characters ("写入 再"), after full-width punctuation ("写入， 再", "噪音。” `runAgent`")
 * or before it, and at a Chinese dash or ellipsis beside Chinese ("—— 只有"). One paragraph, one line.
 * Between Chinese and a Latin word a space is fine ("中文 English"). Lines in code blocks and tables are
 * not paragraphs; a line before a new block (a list item, a heading, a quote, HTML) ends its paragraph;
 * a line ending in two spaces or "\\" breaks on purpose.
 */
function lineBreakFindings(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  const lines = text.split("\n");
  let inCode = false;
  lines.forEach((line, i) => {
    if (fence.test(line)) inCode = !inCode;
    const next = lines[i + 1];
    if (inCode || fence.test(line) || next === undefined || fence.test(next) || tableRow.test(line) || tableRow.test(next)) return;
    if (next.trim() === "" || / {2}$|\\$/u.test(line) || /^\s*(?:#{1,6}\s|<)/u.test(line) || startsBlock(line, next)) return;
    if (gapBetween(bare(line), bare(next))) {
      const found = `${bare(line).slice(-6)}⏎${bare(next).slice(0, 6)}`;
      findings.push({ file, line: i + 1, found, use: "join the two lines: a line break inside a Chinese paragraph shows as a space" });
    }
  });
  return findings;
}

const fullWidth = /[\u3000-\u303f\uff00-\uffef]/u;
const hanCharacter = /\p{Script=Han}/u;

/** Whether the space a line break becomes, between the end of `before` and the start of `after`, is a gap in Chinese. */
function gapBetween(before: string, after: string): boolean {
  const [last = "", first = ""] = [before.at(-1), after.at(0)];
  const chineseQuote = /[”’]/u.test(last) && cjk.test(before.at(-2) ?? "");
  return (
    fullWidth.test(last) ||
    fullWidth.test(first) ||
    chineseQuote ||
    (hanCharacter.test(last) && (hanCharacter.test(first) || /[—…“‘]/u.test(first))) ||
    (/[—…]/u.test(last) && hanCharacter.test(first))
  );
}

/** Whether `next` opens a new block after `line`: a list item, a heading, HTML, or a quote that starts or ends there. */
function startsBlock(line: string, next: string): boolean {
  const quoted = (text: string) => /^\s*>/u.test(text);
  if (quoted(line) !== quoted(next)) return true;
  return /^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|<)/u.test(next.replace(/^\s*(?:>\s?)*/u, ""));
}

// ── tests ─────────────────────────────────────────────────────────────────────────────────────────

const lines = allTextLines();

describe("GLOSSARY.md: one terminology in every Chinese text", () => {
  test("the scan reaches the Chinese texts: the guides, the 练习1 answer, and strings in code", () => {
    const files = new Set(lines.map((line) => line.file));
    for (const file of [
      "README.zh.md",
      "GLOSSARY.md",
      "chapters/05-session-log/README.md",
      "exercises/05-session-log/README.md",
      "solutions/05-session-log/练习1.md",
      "steps.toml",
    ]) {
      expect(files, `${file} has Chinese text the scan must read; check walk() and textFiles()`).toContain(file);
    }
    const code = [...files].filter((file) => file.endsWith(".ts"));
    expect(code.length, "the .ts files hold Chinese strings (the demo's output, the hints); check codeStringLines()").toBeGreaterThan(0);
  });

  test("each rule catches its variant and lets the glossary's term through", () => {
    const at = (text: string) => [{ file: "sample.md", line: 1, text }];
    const bad = [
      "一个回合的 12 条事件",
      "抛错的监听器",
      "每个 listener 包在 try 里",
      "恢复成原始 stub",
      "原始 stub（见上）",
      "系统提示和工具说明",
      "工具定义与执行",
      "性质测试",
      "加进词汇表",
      "| 05.1 | §5.3 |",
      "见书 5.6",
      "书中 5.3 说",
      "**书中章节：** 5.3 “append”",
      "书 5.2–5.3",
      "跑一个步骤 05.3",
      "而不是打码",
      "回放日志",
      "重放 fixture",
      "其他 demo 参数照常可用",
      "| 步骤 | 书 | 你要写的文件 |",
      "练习 05.6 的属性测试",
      "书末练习 2“为一个代码助手设计事件日志”",
      "12 个事件投影成 4 条消息",
      "正好 12 条事件：turn/start, user/message",
      "挑战 challenge 05.6",
      "h 提示 hint · ",
      "l 列表 list",
      "通过 / passed (86 个测试 tests)",
      "npm run reset -- <练习步骤 step>",
      "章末“对照官方”表",
      "挑战步骤也可以先做",
      "对每个事件调用 deriveEventMessage",
      "也要是一个事件",
      "进度、提示、对比和重置命令",
      "随助手消息的 tool_calls 发出",
      "fast-check 的 seed 和 path",
      "本章开头第一个理由里的流式分片",
      "本章开头的第 1 点",
      "本章开头第 1 个问题（流式分片）",
      "文字边到边显示",
      "能读过撕裂尾行的读取",
    ];
    expect(
      bad.filter((text) => termFindings(at(text)).length !== 1),
      "each sample must give exactly one finding",
    ).toEqual([]);
    const good = [
      "一轮的 12 条事件",
      "轮次边界",
      "抛错的订阅者",
      "`subscribe(listener)` 返回",
      "只是桩（stub），测试",
      "`stub` 里",
      "系统提示词",
      "工具说明",
      "属性测试",
      "词表",
      "5.3 节",
      "书中 5.3 节说",
      "书中 5.2–5.3 节",
      "5.5、5.7 节",
      "练习步骤 05.3",
      "第 2 步的步骤边界",
      "遮蔽",
      "重放日志",
      "回放 fixture",
      "Each step is a stub (`json.ts`)",
      "其他 demo 选项照常可用",
      "| 步骤 | step, `step/start`、`step/end` | 一次模型调用 |",
      "| 练习步骤 | 书 | 你要写的文件 |",
      "挑战 05.6 的属性测试",
      "书末练习2、练习1–4",
      "12 条事件，重放失败：第 3 个事件",
      "第 11 行重放失败，第 10 个事件 id 为 12",
      "`turn/start`、`user/message`",
      "挑战 / challenge",
      "h 提示 / hint · l 列表 / list",
      "(86 个测试 / tests)",
      "书末“对照官方”表",
      "挑战也可以先做，挑战练习步骤 05.6",
      "对每条事件调用 deriveEventMessage",
      "进度、提示、对照和重置命令",
      "随 assistant 消息的 tool_calls 发出",
      "fast-check 的种子（`seed`）和 `path`",
      "本章开头的第 1 个问题（流式分片）；5.3 节第 1 点",
      "文字随到随显示",
      "容忍撕裂尾行的读取",
    ];
    expect(good.flatMap((text) => termFindings(at(text))).map(describeFinding)).toEqual([]);
  });

  test("the command rule catches punctuation after a plain or a filled-in command, and after a backticked one outside Markdown", () => {
    const at = (text: string) => [{ file: "sample.md", line: 1, text }];
    for (const text of ["或离线运行：npm run demo -- --offline。", "先跑 npx vitest exercises，"]) {
      expect(commandFindings(at(text)), text).toHaveLength(1);
    }
    for (const text of [
      "`npm run progress` 看进度",
      "npm 11 可能提示",
      "离线运行：\nnpm run demo -- --offline",
      "（`npm test`）",
      "看进度用 `npm run progress`；",
    ]) {
      expect(commandFindings(at(text)), text).toEqual([]);
    }
    // Outside Markdown a backtick is just a character: the punctuation still travels with the copy.
    expect(commandFindings([{ file: "hint.ts", line: 1, text: "看进度用 `npm run progress`；" }])).toHaveLength(1);
    const source = 'const offline = "npm run demo -- --offline";\nconst s = `请稍后再试，\n或离线运行：${offline}。`;\n';
    expect(commandFindings(codeStringLines("sample.ts", source)).map(describeFinding)).toEqual([
      `sample.ts:3: "npm run demo -- --offline。" → ${commandRule.use}`,
    ]);
  });

  test("GLOSSARY.md names every variant this test forbids, in its 不用 column", () => {
    // A "|" in a table cell is written "\|", code spans included.
    const glossary = readFileSync(path.join(root, "GLOSSARY.md"), "utf8").replaceAll("\\|", "|");
    const missing = [...termRules, commandRule, flagRule, halfWidthRule, spaceRule, terminalRule].filter(
      (rule) => !glossary.includes(`\`${rule.variant}\``),
    );
    expect(
      missing.map((rule) => rule.variant),
      "add these (in backticks) to GLOSSARY.md",
    ).toEqual([]);
  });

  test("no Chinese text uses a variant the glossary replaces", () => {
    expect(termFindings(lines).map(describeFinding), "write the term after → instead").toEqual([]);
  });

  test("the line-break rule finds a break in a paragraph where its space is a gap in Chinese, and only there", () => {
    const found = (text: string) => lineBreakFindings("sample.md", text).map((finding) => finding.line);
    expect(found("同步写入，\n再 fsync")).toEqual([1]);
    expect(found("> 引用里的一段，\n> 接着写")).toEqual([1]);
    expect(found("- 列表项的一段\n  接着写")).toEqual([1]);
    expect(found("**重要。**\n接着写")).toEqual([1]);
    expect(found("第一段。\n\n第二段。")).toEqual([]);
    expect(found("中文\nEnglish")).toEqual([]);
    expect(found("```\n代码里的中文\n接着写\n```")).toEqual([]);
    expect(found("| 表头 |\n| 表格 |")).toEqual([]);
    expect(found("有意换行  \n接着写")).toEqual([]);
    expect(found("一段\n- 列表项")).toEqual([]);
    expect(found("一段\n## 标题")).toEqual([]);
    expect(found("噪音。”\n`runAgent` 接着")).toEqual([1]);
    expect(found("抛 `NOTHING_READ`——\n  只有 0 字节")).toEqual([1]);
    expect(found("- 读取照常；\n  CRLF 行尾照常读入")).toEqual([1]);
    expect(found("写在 `a.ts`\n，接着")).toEqual([1]);
    expect(found("做三件事：\n- 第一件")).toEqual([]);
    expect(found("做三件事：\n1. 第一件")).toEqual([]);
    expect(found('一段。\n<a id="step-05-8"></a>')).toEqual([]);
    expect(found("> English summary, with 练习\n> in it")).toEqual([]);
    expect(found("The book closes with “日志是唯一事实来源” — the log\nis the source")).toEqual([]);
  });

  test("no Chinese paragraph in Markdown is broken across lines", () => {
    const markdown = walk("").filter((file) => file.endsWith(".md"));
    const findings = markdown.flatMap((file) => lineBreakFindings(file, readFileSync(path.join(root, file), "utf8")));
    expect(findings.map(describeFinding), "one paragraph, one line").toEqual([]);
  });

  test("every Markdown file that says 桩 writes 桩（stub） the first time", () => {
    expect(firstStubFindings(lines).map(describeFinding)).toEqual([]);
  });

  test("no command a learner may copy is followed by Chinese punctuation", () => {
    expect(commandFindings(lines).map(describeFinding), "a copied command would carry the punctuation along").toEqual([]);
  });

  test("the flag rule catches a flag glued to full-width punctuation, not one a code span ends", () => {
    const at = (text: string) => [{ file: "sample.ts", line: 1, text }];
    for (const text of ["要接着写请另存新文件（--save）", "请用 --continue，或者", "不和 --load、--out 一起用"]) {
      expect(flagFindings(at(text)), text).toHaveLength(1);
    }
    for (const text of ["请用 --save 另存到新文件", "加上 `--no-stream`）", "(--save)", "npm run demo -- --help"]) {
      expect(flagFindings(at(text)), text).toEqual([]);
    }
  });

  test("the half-width rule catches a comma, colon or semicolon after Chinese, and brackets round a code name, outside Markdown", () => {
    const at = (text: string, file = "sample.ts") => [{ file, line: 1, text }];
    for (const text of [
      "步数预算用完 (max_steps)",
      "轮次结束原因: ok",
      "练习步骤 05.2: 已恢复",
      "结构检查（轮次闭合）: ok",
      "返回副本,不要返回输入",
    ]) {
      expect(halfWidthFindings(at(text)), text).toHaveLength(1);
    }
    for (const text of [
      "步数预算用完（max_steps）",
      "轮次结束原因：ok",
      "投影成 reasoning_content: null",
      "请同时计算 (1+2)*3 和 10/4",
      "通过 / passed (86 个测试 / tests)",
      "无法读入 run.jsonl：… / Cannot load run.jsonl: not JSON",
    ]) {
      expect(halfWidthFindings(at(text)), text).toEqual([]);
    }
    expect(halfWidthFindings(at("the book's 练习, `challenge` past the book", "README.md")), "English prose in Markdown").toEqual([]);
  });

  test("no Chinese a program prints uses half-width punctuation", () => {
    expect(halfWidthFindings(lines).map(describeFinding), "write full-width punctuation in the Chinese").toEqual([]);
  });

  test("the space rule catches a space after full-width punctuation, not the one before an English half or a table's bar", () => {
    const at = (text: string) => [{ file: "sample.md", line: 1, text }];
    for (const text of [
      "同步写入， 再 fsync",
      "锁属于文件本身； `lockLogFile` 还会",
      "的第二个参数： `fc.assert(…)`",
      "读回来。 demo 把",
      "（`npm test`） 之后",
    ]) {
      expect(spaceFindings(at(text)), text).toHaveLength(1);
    }
    for (const text of ["同步写入，再 fsync", "已中断。 / Interrupted.", "| 说明。 | 下一格 |", "行尾的句号。 ", "`a： b` 是代码"]) {
      expect(spaceFindings(at(text)), text).toEqual([]);
    }
  });

  test("no Chinese text has a space after full-width punctuation", () => {
    expect(spaceFindings(lines).map(describeFinding), "take the space out: full-width punctuation has its own").toEqual([]);
  });

  test("the terminal rule catches emphasis and a bare file name in a hint, not a file name in backticks", () => {
    const at = (text: string) => [{ file: "steps.toml", line: 1, text }];
    for (const text of [
      "文件内容必须**逐字节**等于这些事件的行",
      "（来自 chapters/05-session-log/events.ts）收窄类型",
      "可用的 code 列在 session.ts 开头的注释里",
    ]) {
      expect(terminalFindings(at(text)), text).toHaveLength(1);
    }
    for (const text of [
      "（来自 `chapters/05-session-log/events.ts`）收窄类型",
      "`npm run compare -- p2`",
      "# ── 练习1 is a question: its model answer is solutions/05-session-log/练习1.md ──",
      "`Object.is(value, -0)`，`value === 0` 分不出来",
      '{ file = "session.ts", whatZh = "接线：#messages = new MessageCache()" },',
    ]) {
      expect(terminalFindings(at(text)), text).toEqual([]);
    }
    expect(terminalFindings([{ file: "README.md", line: 1, text: "**挑战**，见 session.ts" }]), "Markdown renders both").toEqual([]);
  });

  test("no hint shows Markdown emphasis or a file name outside backticks", () => {
    expect(terminalFindings(lines).map(describeFinding), "a hint is printed as written").toEqual([]);
  });

  test("every stub's todo() says its task in Chinese too, naming the same function or member as the English", () => {
    // The first red test a learner meets is a stub's NotImplementedError: its Chinese half carries the task as the English does.
    const stubs = readdirSync(path.join(root, "scripts/maintainer/stubs/05-session-log")).map(
      (name) => `scripts/maintainer/stubs/05-session-log/${name}`,
    );
    const calls = stubs.flatMap((file) => todoCalls(file, readFileSync(path.join(root, file), "utf8")));
    expect(calls.length, "the stubs call todo(step, whatZh, what)").toBeGreaterThan(stubs.length);
    const head = (text: string) => /^[\w.#]+/u.exec(text)?.[0];
    const wrong = calls.filter(({ zh, en }) => !/\p{Script=Han}/u.test(zh) || head(zh) !== head(en));
    expect(wrong.map(({ file, line, zh, en }) => `${file}:${line}: "${zh}" beside "${en}"`)).toEqual([]);
  });

  test("no flag is glued to Chinese punctuation", () => {
    expect(flagFindings(lines).map(describeFinding), "a copied flag would carry the punctuation along").toEqual([]);
  });
});
