// `npm run compare -- 05.3`: the parts of your file that the step asks you to write, each beside the
// answer's version of it — not the stub's header comments, imports or re-exports. Which parts those
// are comes from the shipped stub: every function, method or value whose body calls
// `todo("05.3", …)` (or whose comment says `TODO(p2)`). Lines starting with `-` are yours, `+` the
// answer's, unmarked lines the same in both. The helpers the answer wrote along the way are listed
// after, with where to find them; `--helpers` prints their code too.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import pc from "picocolors";
import { visible } from "../../chapters/common/text.ts";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { answerFile, isMain, learnerFile, readArgs, requireStep, runMain, shown, UsageError } from "../command.ts";
import { helpersOf, membersOf, stepMembers, type Member } from "./members.ts";
import { shippedStubsDir, steps, type Step } from "../steps.ts";

/** A whole-member diff (every line shown), coloured; `undefined` when the two are the same. */
export function memberDiff(mine: string, answer: string): string | undefined {
  if (mine === answer) return undefined;
  const patch = createTwoFilesPatch("yours", "answer", `${mine}\n`, `${answer}\n`, "", "", {
    context: Number.MAX_SAFE_INTEGER,
  });
  return patch
    .split("\n")
    .filter((line) => !/^(=+|---|\+\+\+|@@|\\ No newline|Index:)/.test(line))
    .map((line) => visible(line)) // your file's text, shown as it is: a stray "\r" or escape character too
    .map((line) => (line.startsWith("-") ? pc.red(line) : line.startsWith("+") ? pc.green(line) : line))
    .join("\n")
    .trimEnd();
}

function read(file: string, what: string): string {
  if (!existsSync(file)) throw new UsageError(`${what} ${shown(file)} does not exist`);
  return readFileSync(file, "utf8");
}

export interface CompareFiles {
  readonly mine: string;
  readonly answer: string;
  readonly shippedStub: string;
}

export function filesOf(step: Step, dir?: string): CompareFiles {
  return {
    mine: learnerFile(step, dir),
    answer: answerFile(step),
    shippedStub: path.join(shippedStubsDir, step.file),
  };
}

/**
 * The answer's members, and those of the files it re-exports from (`export { … } from "./x.ts"`): 05.8's
 * answer re-exports the assembler written in stream-assembler.ts. `fileOf` says where each one lives.
 */
function answerMembers(file: string): Member[] & { fileOf: Map<Member, string> } {
  const source = read(file, "the answer");
  const members = Object.assign(membersOf(source), { fileOf: new Map<Member, string>() });
  for (const [, from] of source.matchAll(/^export \{[^}]*\} from "(\.[^"]+)";$/gm)) {
    const reexported = path.resolve(path.dirname(file), from ?? "");
    for (const member of membersOf(read(reexported, "the answer"))) {
      members.push(member);
      members.fileOf.set(member, reexported);
    }
  }
  return members;
}

export function compareStep(step: Step, files: CompareFiles, showHelpers = false): string {
  const stub = membersOf(read(files.shippedStub, "the shipped stub"));
  const mine = membersOf(read(files.mine, `your file (restore it: npm run reset -- ${step.id})`));
  const answer = answerMembers(files.answer);
  const wanted = stepMembers(stub, step.id);
  if (wanted.length === 0) throw new UsageError(`the stub of ${step.id} marks nothing with todo("${step.id}", …)`);
  const at = (file: string, member: Member | undefined) => (member === undefined ? "—" : `${shown(file)}:${member.line}`);
  const answerAt = (member: Member | undefined) =>
    at(member === undefined ? files.answer : (answer.fileOf.get(member) ?? files.answer), member);
  const lines = [
    pc.bold(`练习步骤 ${step.id} — 你写的部分与答案对照 / the parts you write, beside the answer`),
    `${pc.red("- 你的 / yours")}   ${pc.green("+ 答案 / the answer")}`,
  ];
  for (const { key } of wanted) {
    const mineMember = mine.find((member) => member.key === key);
    const answerMember = answer.find((member) => member.key === key);
    lines.push("", pc.cyan(`── ${key} `) + pc.dim(`(${at(files.mine, mineMember)} · ${answerAt(answerMember)})`));
    if (answerMember === undefined) lines.push(pc.yellow(`答案里没有 ${key} / the answer has no ${key}`));
    else if (mineMember === undefined) lines.push(pc.yellow(`你的文件里没有 ${key} / not in your file`), pc.green(answerMember.text));
    else lines.push(memberDiff(mineMember.text, answerMember.text) ?? pc.green("✓ 与答案相同 / same as the answer"));
  }
  const helpers = helpersOf(
    answer,
    answer.filter((member) => wanted.some((w) => w.key === member.key)),
    stub,
  );
  const missing = helpers.filter((helper) => !mine.some((member) => member.key === helper.key));
  if (missing.length > 0) {
    lines.push("", pc.bold("答案还用到这些辅助定义，你的文件里没有 / the answer also uses these helpers, not in your file:"));
    const width = Math.max(...missing.map((helper) => helper.key.length));
    for (const helper of missing) {
      lines.push(`  ${helper.key.padEnd(width)}  ${pc.dim(answerAt(helper))}`);
      if (showHelpers) lines.push(...helper.text.split("\n").map((line) => `    ${pc.green(line)}`));
    }
    if (!showHelpers) lines.push(pc.dim("连同代码一起显示 / with their code:"), pc.dim(`  npm run compare -- ${step.id} --helpers`));
  }
  lines.push(pc.dim("\n写法可以不同：测试说了算 / yours may differ in ways that don't matter: your tests decide."));
  return lines.join("\n");
}

const COMMAND = {
  usage: ["npm run compare -- <练习步骤 / step> [--helpers]"],
  flags: {
    helpers: { type: "boolean", help: "连同答案用到的辅助函数的代码一起显示 / print the answer's helpers' code too" },
  },
  positionals: true,
} as const satisfies Command<Flags>;

export function compareCommand(argv: readonly string[], list: readonly Step[] = steps): string {
  const { id, values } = readArgs(argv, COMMAND);
  const step = requireStep(id, "compare", list);
  return compareStep(step, filesOf(step), values.helpers === true);
}

if (isMain(import.meta.url)) {
  await runMain(() => console.log(compareCommand(process.argv.slice(2))));
}
