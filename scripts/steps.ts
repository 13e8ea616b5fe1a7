// The step manifest: the workbook's steps and everything known about each one. Every tool reads
// this list and nothing else: the vitest projects (answers, stubs, decoys), the workbook checks,
// progress, watch, hint, compare, reset, test:chapter, and the guide's step table (generated from it:
// `npm run guide:table`; scripts/steps.test.ts checks it). Adding a step is one entry here plus its files:
//   exercises/05-session-log/<file>   the stub the learner edits (and <test>, its tests)
//   scripts/stubs/05-session-log/<file>  the same stub as shipped: what reset restores (npm run ship-stubs)
//   <answerDir>/<file>                the answer: the chapter for core and challenge steps
//   scripts/decoys/<name>.ts          each decoy: a plausible wrong answer its tests must reject
//   scripts/hints.ts                  the hints, under the step's id
//   exercises/05-session-log/README.md  a section opening with <a id="step-05-N"></a> (guideAnchor)
// The order learners take the steps is the book's (core), the book's 练习 (practice), then the
// challenges past the book: `steps` is sorted so, whatever order the entries are written in.
import { fileURLToPath } from "node:url";
import path from "node:path";
import { guideAnchor } from "../exercises/05-session-log/todo.ts";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const exercisesDir = path.join(root, "exercises/05-session-log");
export const chapterDir = path.join(root, "chapters/05-session-log");
export const solutionsDir = path.join(root, "solutions/05-session-log");
export const decoysDir = path.join(root, "scripts/decoys");
/** The stubs as the workbook ships them, never edited by a learner. */
export const shippedStubsDir = path.join(root, "scripts/stubs/05-session-log");
export const guideFile = path.join(exercisesDir, "README.md");

/** core: the book's sections; practice: the book's 练习 as code; challenge: past the book. */
export type StepKind = "core" | "practice" | "challenge";

export interface Step {
  /** What a learner types: `npm run hint -- 05.3`. */
  readonly id: string;
  readonly kind: StepKind;
  readonly title: string;
  readonly titleZh: string;
  /** The book section the step follows, as the glossary writes it: "5.4 节", "章末练习2". */
  readonly bookSection: string;
  /** The file the learner edits, inside exercises/05-session-log/. */
  readonly file: string;
  /** The step's test file, inside exercises/05-session-log/. */
  readonly test: string;
  /** The folder holding the answer: the chapter for the core steps, solutions/ for the book's 练习. */
  readonly answerDir: string;
  /**
   * Plausible wrong answers (scripts/decoys/<name>.ts) that at least one of the step's tests must fail.
   * A decoy stands in for the step's file, or for `replaces` when the mistake lives in another learner
   * file (05.6: the cache is right, but session.ts feeds it from the wrong place).
   */
  readonly decoys: readonly { readonly name: string; readonly mistake: string; readonly replaces?: string }[];
  /** Earlier steps whose code this step's tests also run (see each test file's opening comment). */
  readonly needs: readonly string[];
}

const entries: readonly Step[] = [
  {
    id: "05.1",
    kind: "core",
    title: "freezeJson: validate, copy and deep-freeze event data",
    titleZh: "freezeJson：校验、复制并深度冻结事件数据",
    bookSection: "5.3 节第 1 点",
    file: "json.ts",
    test: "05.1-freeze-json.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "json-shallow-freeze",
        mistake: "only the top level of the copy is frozen; nested objects and arrays stay writable",
      },
      { name: "json-accepts-negative-zero", mistake: "-0 is accepted, though JSON.stringify writes it as 0" },
      {
        name: "json-seen-set-cycles",
        mistake: "cycles are tracked with a set of every object ever seen, so a shared (non-cyclic) object is rejected",
      },
      { name: "json-freezes-input", mistake: "no copy: the caller's own objects are frozen in place and returned" },
      {
        name: "json-no-depth-limit",
        mistake: "no depth limit: data nested 5,000 levels deep is accepted, and a log holding it cannot be written with JSON.stringify",
      },
      {
        name: "json-depth-off-by-one",
        mistake: "the depth check is off by one: a value exactly MAX_JSON_DEPTH levels deep is rejected",
      },
    ],
    needs: [],
  },
  {
    id: "05.2",
    kind: "core",
    title: "Session: append, events, subscribe",
    titleZh: "Session：append、events、subscribe",
    bookSection: "5.2–5.3 节",
    file: "session.ts",
    test: "05.2-session.test.ts",
    answerDir: chapterDir,
    decoys: [
      { name: "session-snapshot-not-frozen", mistake: "events returns a fresh unfrozen copy on every read" },
      {
        name: "session-listener-error-escapes",
        mistake: "listeners are called bare: a throwing one escapes append and stops the others",
      },
      { name: "session-shallow-data", mistake: "event data is copied and frozen at the top level only" },
      {
        name: "session-nested-append-immediate",
        mistake: "an append made inside a listener is delivered at once, not queued",
      },
      {
        name: "session-listeners-by-function",
        mistake: "listeners are a Set of functions: the same function subscribed twice is one subscription",
      },
      {
        name: "session-late-subscriber-hears-queue",
        mistake: "queued events go to the listeners subscribed at delivery, so a listener subscribed mid-delivery hears an earlier append",
      },
    ],
    needs: ["05.1"],
  },
  {
    id: "05.3",
    kind: "core",
    title: "The projection: which events become messages",
    titleZh: "投影：哪些事件变成消息",
    bookSection: "5.4 节",
    file: "projection.ts",
    test: "05.3-projection.test.ts",
    answerDir: chapterDir,
    decoys: [
      { name: "projection-includes-tool-call", mistake: "tool/call is projected as a second assistant message" },
      { name: "projection-drops-reasoning", mistake: "reasoning_content is not carried into the assistant message" },
      {
        name: "projection-drops-empty-content",
        mistake: 'an assistant reply with content "" is dropped like content null',
      },
    ],
    needs: ["05.2"],
  },
  {
    id: "05.4",
    kind: "core",
    title: "Session.fromLog: replay a stored log",
    titleZh: "Session.fromLog：重放已保存的日志",
    bookSection: "5.6 节",
    file: "session.ts",
    test: "05.4-replay.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "replay-accepts-id-gap",
        mistake: "replay only checks that ids increase, so a gap or a log numbered from 1 passes",
      },
      { name: "replay-shares-input", mistake: "replay keeps the caller's data objects instead of frozen copies" },
      {
        name: "replay-index-one-based",
        mistake: "the ReplayError counts entries from 1, so its index points past the broken entry",
      },
    ],
    needs: ["05.1", "05.2", "05.3"],
  },
  {
    id: "05.5",
    kind: "core",
    title: "runAgent: the logged agent loop",
    titleZh: "runAgent：日志化的智能体循环",
    bookSection: "5.5、5.7 节",
    file: "agent-loop.ts",
    test: "05.5-agent-loop.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "loop-skips-step-end-on-error",
        mistake: "no finally: a step whose model call throws is never closed with step/end",
      },
      {
        name: "loop-system-as-message",
        mistake: "the system prompt is logged as a user/message and sent as conversation",
      },
      {
        name: "loop-reasoning-undefined",
        mistake: "reasoning_content logged without ?? null, so a reply that omits it logs undefined",
      },
      { name: "loop-throws-on-tool-error", mistake: "tools run without runToolCall, so a failing tool ends the run" },
    ],
    needs: ["05.1", "05.2", "05.3"],
  },
  // The book's 练习 as code (练习1 is a question: its model answer is solutions/05-session-log/练习1.md).
  {
    id: "p2",
    kind: "practice",
    title: "A coding assistant's inspection and UI events that never reach the model",
    titleZh: "代码助手的检查与界面事件：记录、重放，但不进入模型",
    bookSection: "章末练习2",
    file: "coding-assistant.ts",
    test: "p2-coding-assistant.test.ts",
    answerDir: solutionsDir,
    decoys: [
      {
        name: "coding-assistant-file-read-projects",
        mistake: "recordFileRead also writes a user/message, so the inspection event reaches the model",
      },
      {
        name: "coding-assistant-lax-schemas",
        mistake: "schemas check JSON types only: any string is a sha256, any number a byte count",
      },
      {
        name: "coding-assistant-counts-chars",
        mistake: "bytes is the string's length (UTF-16 units), not its UTF-8 byte count",
      },
    ],
    needs: [],
  },
  {
    id: "p3",
    kind: "practice",
    title: "Redaction over an append-only log",
    titleZh: "只追加日志上的遮蔽（redaction）",
    bookSection: "章末练习3",
    file: "redaction.ts",
    test: "p3-redaction.test.ts",
    answerDir: solutionsDir,
    decoys: [
      {
        name: "redaction-drops-message",
        mistake: "a redacted event's message is dropped instead of masked, breaking call/result pairing",
      },
      {
        name: "redaction-strips-calls",
        mistake: "a redacted assistant message loses its tool_calls, orphaning their results",
      },
      {
        name: "redaction-export-raw",
        mistake: "only the model projection is masked; the export shows the raw content",
      },
      {
        name: "redaction-skips-invalid",
        mistake: "a stored redaction that cannot apply is silently ignored instead of reported",
      },
      { name: "redaction-edits-raw", mistake: "the redaction overwrites the logged event's content in place" },
      {
        name: "redaction-reply-leaves-call",
        mistake: "redacting an assistant message leaves its arguments in the tool/call events",
      },
      {
        name: "redaction-tool-call-model-unmasked",
        mistake: "a redacted tool/call's arguments still reach the model in the assistant message's tool_calls entry",
      },
    ],
    needs: [],
  },
  {
    id: "p4",
    kind: "practice",
    title: "A new process event (model/usage) and a derived view for a cost dashboard",
    titleZh: "新的过程事件（model/usage）与成本面板的派生视图",
    bookSection: "章末练习4",
    file: "usage-view.ts",
    test: "p4-usage-view.test.ts",
    answerDir: solutionsDir,
    decoys: [
      { name: "usage-view-cache", mistake: "the view reads running totals kept by recordUsage, not the log" },
      {
        name: "usage-view-last-call-wins",
        mistake: "each usage event replaces its turn's row instead of adding to it",
      },
      {
        name: "usage-view-counts-steps",
        mistake: "turn and step are counted over the whole log, not read from the open step",
      },
      { name: "usage-view-no-hit-check", mistake: "the schema allows more cache-hit tokens than prompt tokens" },
    ],
    needs: [],
  },
  // Past the book (挑战 / challenge): where the 对照官方 table says the official harness goes further.
  {
    id: "05.6",
    kind: "challenge",
    title: "Incremental projection: each event projected once, when committed",
    titleZh: "增量投影：每个事件在提交时只投影一次",
    bookSection: "对照官方 derive_messages",
    file: "message-cache.ts",
    test: "05.6-incremental.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "message-cache-shared-array",
        mistake: "messages() hands out the cache's own array, so a caller's push shows up in every later call",
      },
      {
        name: "message-cache-unfrozen",
        mistake: "a new array each call, but of the cache's own unfrozen messages: a caller's edit shows up later",
      },
      {
        name: "message-cache-reprojects",
        mistake: "the cache keeps the events and projects them all again on every messages() call",
      },
      {
        name: "session-full-projection",
        replaces: "session.ts",
        mistake: "the session still projects the whole log on every deriveMessages() call (the 05.5 state)",
      },
      {
        name: "session-cache-by-subscriber",
        replaces: "session.ts",
        mistake: "the messages are kept by a subscriber: a listener's own append reaches it late, and a replayed log never",
      },
    ],
    needs: ["05.1", "05.2", "05.3", "05.4"],
  },
  {
    id: "05.7",
    kind: "challenge",
    title: "The log on disk: a JSONL subscriber, a reader that survives a torn tail, crash repair",
    titleZh: "日志落盘：JSONL 订阅者、容忍撕裂尾行的读取、崩溃修复",
    bookSection: "5.3 subscribe、5.6 重放、对照官方",
    file: "log-file.ts",
    test: "05.7-log-on-disk.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "log-file-skips-bad-lines",
        mistake: "the reader skips a line that is not JSON wherever it is, so a damaged file loads with events missing",
      },
      {
        name: "log-file-torn-drops-all",
        mistake: "a torn last line makes the reader give up on the whole file, losing every good event before it",
      },
      {
        name: "log-file-repair-edits-last",
        mistake: "repair rebuilds the log with its last event overwritten by the closing turn/end, instead of appending",
      },
      {
        name: "log-file-buffered-writer",
        mistake: "the writer appends through an async stream, so an event the session acknowledged may not be in the file yet",
      },
      {
        name: "log-file-counts-lines",
        mistake: "the writer only compares line counts, so it appends to another session's log of the same length",
      },
      {
        name: "log-file-no-change-check",
        mistake: "the writer never checks the file before a write, so two sessions attached to one file interleave",
      },
      {
        name: "log-file-repair-skips-calls",
        mistake: "repair closes the step and the turn but leaves unanswered tool calls without a result",
      },
      {
        name: "log-file-line-is-index",
        mistake: "a ReplayError's event index is reported as the line number, one line too early",
      },
    ],
    needs: [],
  },
];

const kindOrder: readonly StepKind[] = ["core", "practice", "challenge"];

/** Steps in the order a learner takes them: core, practice, challenge; within a kind, as listed. */
export function inLearnerOrder(list: readonly Step[]): Step[] {
  return [...list].sort((a, b) => kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind));
}

export const steps: readonly Step[] = inLearnerOrder(entries);

export function findStep(id: string): Step | undefined {
  return steps.find((step) => step.id === id);
}

/** Where a step's instructions are, as a learner would open it. */
export function guideLink(step: Step): string {
  return `exercises/05-session-log/README.md#${guideAnchor(step.id)}`;
}

export interface Decoy {
  readonly name: string;
  /** What is wrong with it, as the check reports it. */
  readonly mistake: string;
  /** The step whose tests must catch it. */
  readonly step: Step;
  readonly file: string;
  /** The learner's file it stands in for (absolute): the step's own, unless the entry says otherwise. */
  readonly replaces: string;
}

export const decoys: readonly Decoy[] = steps.flatMap((step) =>
  step.decoys.map(({ name, mistake, replaces = step.file }) => ({
    name,
    mistake,
    step,
    file: path.join(decoysDir, `${name}.ts`),
    replaces: path.join(exercisesDir, replaces),
  })),
);

/** The files learners edit, each once (05.2 and 05.4 share session.ts). */
export function learnerFiles(): string[] {
  return [...new Set(steps.map((step) => path.join(exercisesDir, step.file)))];
}

/** Every file a learner edits, mapped to the answer that stands in for it in the answers run. */
export function answerFiles(): Map<string, string> {
  return new Map(steps.map((step) => [path.join(exercisesDir, step.file), path.join(step.answerDir, step.file)]));
}

/** Every file a learner edits, mapped to its shipped stub: the stubs run and reset both read these. */
export function shippedStubs(): Map<string, string> {
  return new Map(steps.map((step) => [path.join(exercisesDir, step.file), path.join(shippedStubsDir, step.file)]));
}
