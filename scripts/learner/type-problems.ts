// A type error as the learner reads it, and how watch and progress print a file's type errors. Apart
// from typecheck.ts (which loads TypeScript, a second or so): the watch's first screen does not wait for it.

/** One type error, where the learner reads it: the file from the workbook's root, 1-based line and column. */
export interface TypeProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: number;
  /** The message and what it elaborates, one line each (indented as TypeScript indents them). */
  readonly zh: readonly string[];
  readonly en: readonly string[];
}

/** "1 type error", "2 type errors". */
export const typeErrors = (count: number): string => `${count} type error${count === 1 ? "" : "s"}`;

/** The lines the watch and progress print for a file's type errors: Chinese first, each with its file:line. */
export function typeProblemLines(problems: readonly TypeProblem[], max = 3): string[] {
  const lines: string[] = [];
  for (const problem of problems.slice(0, max)) {
    lines.push(`${problem.file}:${problem.line}:${problem.column}  TS${problem.code}`);
    lines.push(...problem.zh.map((zh, index) => `  ${zh} / ${(problem.en[index] ?? "").trimStart()}`));
  }
  if (problems.length > max)
    lines.push(`…还有 ${problems.length - max} 个类型错误 / ${typeErrors(problems.length - max).replace(" ", " more ")}`);
  return lines;
}
