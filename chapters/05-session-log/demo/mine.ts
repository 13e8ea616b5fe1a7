// `npm run demo -- --mine`: the demo on the learner's own files. Which file runs is decided before the
// demo starts, at module resolution, by scripts/learner/mine.ts (a Node resolve hook registered for that run);
// this chapter file only hears the outcome and speaks about it: the first lines (which files are
// yours, which are still the answers and why), and, when something goes wrong, which of your files
// were in play. The chapter never imports a learner's file itself.
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { DeepSeekError } from "../../common/deepseek.ts";
import type { Message } from "../../common/messages.ts";
import type { Env } from "../../common/settings.ts";
import { clip, scrubKey, visible } from "../../common/text.ts";
import type { Explanation } from "./explain.ts";
import { AgentRunError } from "../loop-types.ts";

const notDone = z.enum(["stub", "not-started", "failing", "waiting", "broken"]);
/** Why a step's answer still runs instead of the learner's file. */
export type NotDone = z.output<typeof notDone>;

/** One learner file the demo can run: the learner's own (every step it belongs to done), or the answer. */
const yourFile = z.object({
  /** The file's name in exercises/05-session-log/, e.g. "session.ts". */
  file: z.string(),
  /** The steps whose code lives in it (05.2 and 05.4 share session.ts). */
  steps: z.array(z.string()),
  /** Where the code that runs as yours is (absolute): found in a stack trace, it names the file. */
  path: z.string(),
  /** Undefined when your file runs; otherwise the steps not done yet, and why. */
  notDone: z.array(z.object({ step: z.string(), why: notDone, waitsOn: z.array(z.string()).optional() })).optional(),
});
export type YourFile = z.output<typeof yourFile>;

/**
 * How the chapter hears which files are the learner's, the one way it does: scripts/learner/mine-preload.ts
 * decides it before any chapter file loads and puts it in this environment variable of the run (JSON,
 * a YourFile list); the chapter reads it and tells the tools nothing back. Unset: no resolve hook.
 */
export const YOUR_FILES = "WORKBOOK_YOUR_FILES";

/** The learner's files as the preload said them; undefined when the run was started without it. */
export function yourFilesIn(env: Env): readonly YourFile[] | undefined {
  const said = env[YOUR_FILES];
  return said === undefined ? undefined : z.array(yourFile).parse(JSON.parse(said));
}

const yours = (env: Env) => (yourFilesIn(env) ?? []).filter((file) => file.notDone === undefined);

const WHY: Readonly<Record<NotDone, readonly [zh: string, en: string]>> = {
  stub: ["还是桩", "still the stub"],
  "not-started": ["还没开始", "not started"],
  failing: ["还有测试没通过", "tests failing"],
  waiting: ["的测试在等前面的练习步骤", "waiting for an earlier step"],
  broken: ["的测试无法运行", "tests cannot run"],
};

/** The learner file only a streamed run calls (step 05.8): in a run that does not stream it is not used. */
const STREAMED_ONLY = "streamed-step.ts";

/**
 * The first lines of a `--mine` run; a string (a usage error) when `--mine` was given but the run was
 * not started with the resolve hook (scripts/learner/mine-preload.ts): only the answers would run.
 * `streams`: whether this run streams; a file of yours it does not use is not listed as running.
 */
export function yourFilesBanner(env: Env, command: string, streams = true): string[] | string {
  const yourFiles = yourFilesIn(env);
  if (yourFiles === undefined) {
    return `--mine 要在加载章节代码之前换上你的文件，请这样运行 / --mine swaps your files in before the chapter loads; run it as: ${command}`;
  }
  const own = yourFiles.filter((file) => file.notDone === undefined);
  const unused = streams ? [] : own.filter((file) => file.file === STREAMED_ONLY);
  const mine = own.filter((file) => !unused.includes(file)).map((file) => file.file);
  const answers = yourFiles.filter((file) => file.notDone !== undefined);
  const zhAnswers = answers.map((file) => `${file.file}（${whyNot(file, "，", (ids) => `练习步骤 ${ids.join("、")} `, 0)}）`);
  const enAnswers = answers.map(
    (file) => `${file.file} (${whyNot(file, "; ", (ids) => `${ids.length > 1 ? "steps" : "step"} ${ids.join(", ")}: `, 1)})`,
  );
  const zhUnused = unused.map((file) => `；用不到：${file.file}（这次运行不流式）`).join("");
  const enUnused = unused.map((file) => `; not used: ${file.file} (this run does not stream)`).join("");
  return [
    `你的：${mine.join("、") || "（还没有）"}；答案：${zhAnswers.join("、") || "（没有）"}${zhUnused}`,
    `Yours: ${mine.join(", ") || "none yet"}; the answers: ${enAnswers.join(", ") || "none"}${enUnused}`,
  ];
}

/**
 * What a run says first about the learner's files: with `--mine`, the banner; without it, a usage error
 * when npm took `--mine` for itself (`npm run demo --mine`, the `--` forgotten: npm_config_mine is set,
 * and the answers would run without a word); otherwise nothing.
 */
export function mineOpening(mine: boolean, env: Env, command: string, streams: boolean): string[] | string {
  if (mine) return yourFilesBanner(env, command, streams);
  if (env.npm_config_mine === undefined) return [];
  return `--mine 被 npm 拿走了（少了 --），这次会跑答案而不是你的文件，请这样运行 / npm took --mine for itself (the -- is missing), so the answers would run, not your files; type: ${command}`;
}

/** Why a file is still the answer: its steps grouped by reason, "练习步骤 05.2、05.4 还是桩". */
function whyNot(file: YourFile, then: string, steps: (ids: string[]) => string, language: 0 | 1): string {
  const reasons = [...new Set((file.notDone ?? []).map((s) => s.why))];
  return reasons
    .map((why) => {
      const ofWhy = (file.notDone ?? []).filter((s) => s.why === why);
      const on = [...new Set(ofWhy.flatMap((s) => s.waitsOn ?? []))].join(language === 0 ? "、" : ", ");
      const reason =
        why === "waiting" && on !== "" ? (language === 0 ? `的测试在等练习步骤 ${on}` : `waiting for step ${on}`) : WHY[why][language];
      return `${steps(ofWhy.map((s) => s.step))}${reason}`;
    })
    .join(then);
}

const stepsInEnglish = (ids: readonly string[]) => `${ids.length > 1 ? "steps" : "step"} ${ids.join(", ")}`;

/** Which of the learner's files a symptom can come from, in the order to suspect them. */
const IN_PLAY = {
  replay: ["session.ts", "projection.ts", "message-cache.ts", "json.ts"],
  structure: ["agent-loop.ts", "log-file.ts", "session.ts"],
  request: ["projection.ts", "message-cache.ts", "session.ts", "agent-loop.ts"],
} as const;

/** A line naming the learner's files that were in play for `symptom`; none when only answers ran. */
export function yourFilesInPlay(symptom: keyof typeof IN_PLAY, env: Env = process.env): string[] {
  const suspects: readonly string[] = IN_PLAY[symptom];
  const inPlay = yours(env)
    .filter((file) => suspects.includes(file.file))
    .sort((a, b) => suspects.indexOf(a.file) - suspects.indexOf(b.file));
  if (inPlay.length === 0) return [];
  const zh = inPlay.map((file) => `${file.file}（练习步骤 ${file.steps.join("、")}）`).join("、");
  const en = inPlay.map((file) => `${file.file} (${stepsInEnglish(file.steps)})`).join(", ");
  return [
    `这里跑的是你的代码：${zh}。测试都通过了，这次运行却和答案不同（见上），问题就在这些文件里。不加 --mine 运行可以看答案的结果`,
    `Your code ran here: ${en}. Its tests pass, yet this run differs from the answers' (above): the cause is in these files. Run without --mine to see the answers' run`,
  ];
}

/**
 * Under a request the model was not meant to get (offline: it differs from the recording; live: DeepSeek
 * refused it, e.g. because reasoning_content went missing): the learner's files that built it.
 */
export function yourFilesSentIt(mismatch: string | undefined, failure: AgentRunError | undefined, env: Env = process.env): string[] {
  const refused = failure?.cause instanceof DeepSeekError && failure.cause.kind === "bad_request";
  if (mismatch === undefined && !refused) return [];
  const lines = yourFilesInPlay("request", env);
  const said = `${mismatch ?? ""} ${failure?.cause instanceof Error ? failure.cause.message : ""}`;
  if (lines.length > 0 && said.includes("reasoning_content")) {
    lines.unshift(
      "发出的 assistant 消息和答案的不一样，差在 reasoning_content：DeepSeek 的思考模式要求每条带工具调用的回复把它原样发回（所以 5.4 节的投影保留它）",
      "The assistant message sent differs from the answer's in reasoning_content: DeepSeek's thinking mode needs it sent back on every reply that called tools (which is why the projection of 5.4 keeps it)",
    );
  }
  return lines;
}

/** What differs between the original messages and the replayed ones: the count, or the first message that differs. */
export function replayDifference(original: readonly Message[], replayed: readonly Message[]): string[] {
  if (original.length !== replayed.length) {
    return [
      `消息条数不同：原始派生 ${original.length} 条，重放派生 ${replayed.length} 条`,
      `(message counts differ: ${original.length} derived, ${replayed.length} replayed)`,
    ];
  }
  const index = original.findIndex((message, i) => !isDeepStrictEqual(message, replayed[i]));
  if (index < 0) return [];
  const show = (message: Message | undefined) => clip(JSON.stringify(message) ?? "undefined", 160);
  return [
    `第一个不同的是消息 #${index} / the first message that differs is #${index}:`,
    `  原始 / derived:  ${show(original[index])}`,
    `  重放 / replayed: ${show(replayed[index])}`,
  ];
}

/** When a learner's file threw, as its sentence says it: during a run of the demo or the view, or on import. */
export const THREW = {
  demo: ["在演示里", "during the demo"],
  view: ["在 npm run view 里", "during npm run view"],
  load: ["在加载时", "while being loaded"],
} as const satisfies Record<string, readonly [zh: string, en: string]>;

/**
 * A thrown error whose stack passes through one of the learner's files, told with the file and its
 * steps. A failed model call passes through the loop too, but it is the model's story (explain.ts).
 */
export function explainYourThrow(error: unknown, when: keyof typeof THREW = "demo", env: Env = process.env): Explanation | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DeepSeekError) return undefined;
    if (e instanceof AgentRunError) continue; // the loop's wrapper: what it wraps is what happened
    const at = whereYoursThrew(e, yours(env));
    if (at === undefined) continue;
    const { file, line } = at;
    const [zh, en] = THREW[when];
    return {
      title: ["你的代码抛出了错误", "Your code threw"],
      lines: [
        `你的 ${file.file}（练习步骤 ${file.steps.join("、")}）${zh}抛出了错误，位置 ${line}：`,
        `Your ${file.file} (${stepsInEnglish(file.steps)}) threw ${en}, at ${line}:`,
        `  ${e.name}: ${clip(e.message.split("\n")[0] ?? "", 200)}`,
        "它的测试都通过了：这次运行走到了测试没走到的一条路。不用 --mine 运行，看答案怎么走这一步",
        "Its tests pass: this run took a path they do not. Run without --mine to see the answer take it",
      ],
    };
  }
  return undefined;
}

/**
 * Prints what `explainYourThrow` says (exit code 1), made visible and without the key; throws `error`
 * on when it is not the learner's.
 */
export function tellYourThrow(error: unknown, out: (line: string) => void, env: Env, when: keyof typeof THREW = "demo"): number {
  const told = explainYourThrow(error, when, env);
  if (told === undefined) throw error;
  // The message is the learner's text (it may quote a log or a model): shown, not obeyed.
  const say = (line: string) => out(visible(scrubKey(line, env.DEEPSEEK_API_KEY?.trim() ?? ""), { lines: true }));
  say(`\n=== ${told.title[0]} / ${told.title[1]} ===`);
  for (const line of told.lines) say(`  ${line}`);
  return 1;
}

/**
 * The innermost frame of `error` in one of the learner's files, as `file:line:column` a learner would
 * open: where their code threw, not a caller of theirs (agent-loop.ts calls streamed-step.ts).
 */
function whereYoursThrew(error: Error, yours: readonly YourFile[]): { file: YourFile; line: string } | undefined {
  for (const frame of (error.stack ?? "").split("\n")) {
    const file = yours.find((candidate) => frame.replaceAll("file://", "").includes(`${candidate.path}:`));
    const match = /:(\d+):(\d+)\)?\s*$/.exec(frame);
    if (file !== undefined && match !== null) return { file, line: `${path.relative(process.cwd(), file.path)}:${match[1]}:${match[2]}` };
  }
  return undefined;
}
