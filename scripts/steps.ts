// The workbook's steps, in the order a learner takes them. Everything that needs to know the steps
// reads this list: the vitest projects that run the tests against the answers, the stubs check, and
// the progress / hint / compare / reset commands.
import { fileURLToPath } from "node:url";
import path from "node:path";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const exercisesDir = path.join(root, "exercises/05-session-log");
export const chapterDir = path.join(root, "chapters/05-session-log");
export const solutionsDir = path.join(root, "solutions/05-session-log");

export interface Step {
  /** What a learner types: `npm run hint -- 05.3`. */
  readonly id: string;
  readonly title: string;
  readonly titleZh: string;
  /** The book section the step follows. */
  readonly bookSection: string;
  /** The file the learner edits, inside exercises/05-session-log/. */
  readonly file: string;
  /** The step's test file, inside exercises/05-session-log/. */
  readonly test: string;
  /** The folder holding the answer: the chapter for the core steps, solutions/ for the book's 练习. */
  readonly answerDir: string;
  /** Heading anchor in exercises/05-session-log/README.md. */
  readonly readmeAnchor: string;
  /** Earlier steps whose code this step's tests also run (see each test file's opening comment). */
  readonly needs: readonly string[];
}

export const steps: readonly Step[] = [
  {
    id: "05.1",
    title: "freezeJson: validate, copy and deep-freeze event data",
    titleZh: "freezeJson：校验、复制并深度冻结事件数据",
    bookSection: "5.3 (第 1 点)",
    file: "json.ts",
    test: "05.1-freeze-json.test.ts",
    answerDir: chapterDir,
    readmeAnchor: "051-freezejson",
    needs: [],
  },
  {
    id: "05.2",
    title: "Session: append, events, subscribe",
    titleZh: "Session：append、events、subscribe",
    bookSection: "5.2–5.3",
    file: "session.ts",
    test: "05.2-session.test.ts",
    answerDir: chapterDir,
    readmeAnchor: "052-session",
    needs: ["05.1"],
  },
  {
    id: "05.3",
    title: "The projection: which events become messages",
    titleZh: "投影：哪些事件变成消息",
    bookSection: "5.4",
    file: "projection.ts",
    test: "05.3-projection.test.ts",
    answerDir: chapterDir,
    readmeAnchor: "053-projection",
    needs: ["05.2"],
  },
  {
    id: "05.4",
    title: "Session.fromLog: replay a stored log",
    titleZh: "Session.fromLog：重放已保存的日志",
    bookSection: "5.6",
    file: "session.ts",
    test: "05.4-replay.test.ts",
    answerDir: chapterDir,
    readmeAnchor: "054-replay",
    needs: ["05.1", "05.2", "05.3"],
  },
  {
    id: "05.5",
    title: "runAgent: the logged agent loop",
    titleZh: "runAgent：日志化的智能体循环",
    bookSection: "5.5, 5.7",
    file: "agent-loop.ts",
    test: "05.5-agent-loop.test.ts",
    answerDir: chapterDir,
    readmeAnchor: "055-runagent",
    needs: ["05.1", "05.2", "05.3"],
  },
  // The book's 练习 as code (练习1 is a question: its model answer is solutions/05-session-log/练习1.md).
  {
    id: "p2",
    title: "A coding assistant's inspection and UI events that never reach the model",
    titleZh: "代码助手的检查与界面事件：记录、重放，但不进入模型",
    bookSection: "练习2",
    file: "coding-assistant.ts",
    test: "p2-coding-assistant.test.ts",
    answerDir: solutionsDir,
    readmeAnchor: "练习2",
    needs: [],
  },
  {
    id: "p3",
    title: "Redaction over an append-only log",
    titleZh: "只追加日志上的遮蔽（redaction）",
    bookSection: "练习3",
    file: "redaction.ts",
    test: "p3-redaction.test.ts",
    answerDir: solutionsDir,
    readmeAnchor: "练习3",
    needs: [],
  },
  {
    id: "p4",
    title: "A new process event (model/usage) and a derived view for a cost dashboard",
    titleZh: "新的过程事件（model/usage）与成本面板的派生视图",
    bookSection: "练习4",
    file: "usage-view.ts",
    test: "p4-usage-view.test.ts",
    answerDir: solutionsDir,
    readmeAnchor: "练习4",
    needs: [],
  },
];

export function findStep(id: string): Step | undefined {
  return steps.find((step) => step.id === id);
}

/** Every file a learner edits, mapped to the answer that stands in for it in the answers run. */
export function answerFiles(): Map<string, string> {
  return new Map(
    steps.map((step) => [path.join(exercisesDir, step.file), path.join(step.answerDir, step.file)]),
  );
}
