// `--mine`: when one of the learner's files throws, during the demo or the view or while it is being
// imported, one sentence says which file (and its steps), where, and what it threw, instead of a stack
// or Node's uncaught-exception banner. Whatever was thrown is the learner's text: shown, never obeyed.
import path from "node:path";
import { inspect } from "node:util";
import { DeepSeekError } from "../../common/deepseek.ts";
import type { Env } from "../../common/settings.ts";
import { clip, scrubKey, visible } from "../../common/text.ts";
import type { Explanation } from "./explain.ts";
import { AgentRunError } from "../loop-types.ts";
import { stepsInEnglish, yours, type YourFile } from "./your-files.ts";

/** When a learner's file threw, as its sentence says it: during a run of the demo or the view, or on import. */
export const THREW = {
  demo: ["在演示里", "during the demo"],
  view: ["在 npm run view 里", "during npm run view"],
  load: ["在加载时", "while being loaded"],
} as const satisfies Record<string, readonly [zh: string, en: string]>;

type When = keyof typeof THREW;

/**
 * A thrown error whose stack passes through one of the learner's files, told with the file and its
 * steps. A failed model call passes through the loop too, but it is the model's story (explain.ts).
 * `importing`: the file being imported when `error` was thrown, which names it even when what was
 * thrown is not an Error and so has no stack (`throw "oops"`).
 */
export function explainYourThrow(
  error: unknown,
  when: When = "demo",
  env: Env = process.env,
  importing?: YourFile,
): Explanation | undefined {
  if (!(error instanceof Error)) return importing === undefined ? undefined : told(importing, undefined, when, thrownValue(error));
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DeepSeekError) return undefined;
    if (e instanceof AgentRunError) continue; // the loop's wrapper: what it wraps is what happened
    const at = whereYoursThrew(e, yours(env));
    if (at !== undefined) return told(at.file, at.frames, when, `${e.name}: ${clip(e.message.split("\n")[0] ?? "", 200)}`);
  }
  return importing === undefined ? undefined : told(importing, [], when, `${error.name}: ${clip(error.message, 200)}`);
}

/**
 * The sentence: the file and its steps, where (the learner's frames from the caller down to the throw:
 * the line that threw may only check a value a caller passed it), and what was thrown.
 */
function told(file: YourFile, frames: readonly string[] | undefined, when: When, what: string): Explanation {
  const [zh, en] = THREW[when];
  // No frames: what was thrown has no stack; none of them: its stack passes through none of the learner's files.
  const [atZh, atEn] =
    frames === undefined
      ? ["位置不明（抛出的不是 Error，没有调用栈）", "at a line not known (what it threw is not an Error: it has no stack)"]
      : frames.length === 0
        ? ["位置不明（调用栈上没有你的文件）", "at a line not known (no line of your files is on its stack)"]
        : [`位置：${frames.at(-1)}`, `at ${frames.at(-1)}`];
  const through =
    frames !== undefined && frames.length > 1
      ? [`经过你的文件，从调用方到抛出处 / through your files, from the caller down: ${frames.join(" → ")}`]
      : [];
  return {
    title: ["你的代码抛出了错误", "Your code threw"],
    lines: [
      `你的 ${file.file}（练习步骤 ${file.steps.join("、")}）${zh}抛出了错误，${atZh}`,
      `Your ${file.file} (${stepsInEnglish(file.steps)}) threw ${en}, ${atEn}`,
      `  ${what}`,
      ...through,
      "它的测试都通过了：这次运行走到了测试没走到的一条路。不用 --mine 运行，看答案怎么走这一步",
      "Its tests pass: this run took a path they do not. Run without --mine to see the answer take it",
    ],
  };
}

/** A thrown value that is not an Error, as text: a string as it is, anything else as Node prints it. */
function thrownValue(value: unknown): string {
  return clip(typeof value === "string" ? value : inspect(value, { breakLength: Number.POSITIVE_INFINITY }), 200);
}

/**
 * Prints what `explainYourThrow` says (exit code 1), made visible and without the key; throws `error`
 * on when it is not the learner's.
 */
export function tellYourThrow(error: unknown, out: (line: string) => void, env: Env, when: When = "demo", importing?: YourFile): number {
  const explained = explainYourThrow(error, when, env, importing);
  if (explained === undefined) throw error;
  // The message is the learner's text (it may quote a log or a model): shown, not obeyed.
  const say = (line: string) => out(visible(scrubKey(line, env.DEEPSEEK_API_KEY?.trim() ?? ""), { lines: true }));
  say(`\n=== ${explained.title[0]} / ${explained.title[1]} ===`);
  for (const line of explained.lines) say(`  ${line}`);
  return 1;
}

const frameFile = (frame: string) => frame.replace(/:\d+:\d+$/, "");

/**
 * The frames of `error` in the learner's files, as `file:line:column` a learner would open, from the
 * outermost caller down to the throw; `file` is the file that threw (agent-loop.ts calls streamed-step.ts:
 * a throw in streamed-step.ts is streamed-step.ts's). Undefined when none of the learner's files is on it.
 */
function whereYoursThrew(error: Error, yours: readonly YourFile[]): { file: YourFile; frames: string[] } | undefined {
  let file: YourFile | undefined;
  const frames: string[] = [];
  for (const frame of (error.stack ?? "").split("\n")) {
    const yoursHere = yours.find((candidate) => frame.replaceAll("file://", "").includes(`${candidate.path}:`));
    const match = /:(\d+):(\d+)\)?\s*$/.exec(frame);
    if (yoursHere === undefined || match === null) continue;
    file ??= yoursHere;
    frames.unshift(`${path.relative(process.cwd(), yoursHere.path)}:${match[1]}:${match[2]}`);
  }
  // Of frames in a row in one file only the innermost is said (frames is outermost first here).
  const said = frames.filter((frame, index) => frameFile(frame) !== frameFile(frames[index + 1] ?? ""));
  return file === undefined ? undefined : { file, frames: said };
}
