// `npm run demo -- --mine`: the demo on the learner's own files. Which file runs is decided before the
// demo starts, at module resolution, by scripts/learner/mine.ts (a Node resolve hook registered for that run);
// this chapter file only hears the outcome and speaks about it: the first lines (which files are
// yours, which are still the answers and why), and, when something goes wrong, which of your files
// were in play. The chapter never imports a learner's file itself.
import { isDeepStrictEqual } from "node:util";
import { DeepSeekError } from "../../common/deepseek.ts";
import type { Message } from "../../common/messages.ts";
import type { Env } from "../../common/settings.ts";
import { clip } from "../../common/text.ts";
import type { AgentRunError } from "../loop-types.ts";
import { stepsInEnglish, yourFilesIn, yours, type NotDone, type YourFile } from "./your-files.ts";

// What every --mine file shares (which files are whose) and how a throw from them is told: said here too,
// so that the demo and the view hear --mine from this one file.
export { YOUR_FILES, yourFilesIn, type NotDone, type YourFile } from "./your-files.ts";
export { explainYourThrow, tellYourThrow, THREW } from "./your-throw.ts";

const WHY: Readonly<Record<NotDone, readonly [zh: string, en: string]>> = {
  stub: ["还是桩", "still the stub"],
  "not-started": ["还没开始", "not started"],
  failing: ["还有测试没通过", "tests failing"],
  broken: ["的测试无法运行", "tests cannot run"],
};

/** The learner files a run may leave unused: only a streamed run calls the first (step 05.8), only --save/--load the second (05.7). */
const UNUSED_WHY = {
  "streamed-step.ts": ["这次运行不流式", "this run does not stream"],
  "log-file.ts": ["这次运行不读写日志文件", "this run reads and writes no log file"],
} as const;

/**
 * Whether a run on the learner's files streams: not while the loop is theirs and streaming (step 05.8,
 * streamed-step.ts) is not done yet. The 05.5 loop never asks for `stream`: run it as it is, and say so.
 */
export function yourLoopStreams(env: Env): boolean {
  const own = yours(env).map((file) => file.file);
  return !own.includes("agent-loop.ts") || own.includes("streamed-step.ts");
}

/**
 * The first lines of a `--mine` run; a string (a usage error) when `--mine` was given but the run was
 * not started with the resolve hook (scripts/learner/mine-preload.ts): only the answers would run.
 * `streams`: whether this run streams; `onDisk`: whether it saves or loads a log file. A file of yours the
 * run does not use is not listed as running.
 */
export function yourFilesBanner(env: Env, command: string, streams = true, onDisk = true): string[] | string {
  const yourFiles = yourFilesIn(env);
  if (yourFiles === undefined) {
    return `--mine 要在加载章节代码之前换上你的文件，请这样运行 / --mine swaps your files in before the chapter loads; run it as: ${command}`;
  }
  const own = yourFiles.filter((file) => file.notDone === undefined);
  const unused = own.filter((file) => (file.file === "streamed-step.ts" && !streams) || (file.file === "log-file.ts" && !onDisk));
  const mine = own.filter((file) => !unused.includes(file)).map((file) => file.file);
  const answers = yourFiles.filter((file) => file.notDone !== undefined);
  const zhAnswers = answers.map((file) => `${file.file}（${whyNot(file, "，", (ids) => `练习步骤 ${ids.join("、")} `, 0)}）`);
  const enAnswers = answers.map(
    (file) => `${file.file} (${whyNot(file, "; ", (ids) => `${ids.length > 1 ? "steps" : "step"} ${ids.join(", ")}: `, 1)})`,
  );
  const why = (file: YourFile) => UNUSED_WHY[file.file as keyof typeof UNUSED_WHY];
  const zhUnused = unused.length === 0 ? "" : `；用不到：${unused.map((file) => `${file.file}（${why(file)[0]}）`).join("、")}`;
  const enUnused = unused.length === 0 ? "" : `; not used: ${unused.map((file) => `${file.file} (${why(file)[1]})`).join(", ")}`;
  const loopOnly = yourLoopStreams(env)
    ? []
    : [
        "用的是你的 agent-loop.ts，而流式（练习步骤 05.8）还没做完：这次运行不流式，和加 --no-stream 一样",
        "Your agent-loop.ts runs and streaming (step 05.8) is not done yet: this run does not stream, as with --no-stream",
      ];
  return [
    `你的：${mine.join("、") || "（还没有）"}；答案：${zhAnswers.join("、") || "（没有）"}${zhUnused}`,
    `Yours: ${mine.join(", ") || "none yet"}; the answers: ${enAnswers.join(", ") || "none"}${enUnused}`,
    ...loopOnly,
  ];
}

/** Which log files a run saves to or loads (the demo's disk plan). */
interface RunsOnDisk {
  readonly save?: string | undefined;
  readonly load?: string | undefined;
}

/**
 * What a run says first about the learner's files: with `--mine`, the banner (`disk`: the log file the run
 * saves to or loads, if any; without it, as for the view, log-file.ts counts as used); without it, a usage error
 * when npm took `--mine` for itself (`npm run demo --mine`, the `--` forgotten: npm_config_mine is set,
 * and the answers would run without a word); otherwise nothing.
 */
export function mineOpening(mine: boolean, env: Env, command: string, streams: boolean, disk?: RunsOnDisk): string[] | string {
  if (mine) return yourFilesBanner(env, command, streams, disk === undefined || disk.save !== undefined || disk.load !== undefined);
  if (env.npm_config_mine === undefined) return [];
  return `--mine 被 npm 拿走了（少了 --），这次会跑答案而不是你的文件，请这样运行 / npm took --mine for itself (the -- is missing), so the answers would run, not your files; type: ${command}`;
}

/** Why a file is still the answer: its steps grouped by reason, "练习步骤 05.2、05.4 还是桩". */
function whyNot(file: YourFile, then: string, steps: (ids: string[]) => string, language: 0 | 1): string {
  const reasons = [...new Set((file.notDone ?? []).map((s) => s.why))];
  return reasons
    .map((why) => {
      const ofWhy = (file.notDone ?? []).filter((s) => s.why === why);
      return `${steps(ofWhy.map((s) => s.step))}${WHY[why][language]}`;
    })
    .join(then);
}

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
