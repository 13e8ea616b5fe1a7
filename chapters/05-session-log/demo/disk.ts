// The demo's disk side (05.7): `--save FILE` keeps the log in a JSONL file as it happens (the writer,
// and a file swapped under it, in saving.ts); `--load FILE` reads one back with no model call, saying
// what was torn and what repair appended; `--continue` (the recorded follow-up question) or `--ask
// QUESTION` (live) goes on with a new turn, saved as it happens.
import { parseArgs } from "node:util";
import type { FlagValues, Flags } from "../../common/flags.ts";
import { explainSystemError, isSystemError } from "../../common/system-errors.ts";
import { visible } from "../../common/text.ts";
import { CALCULATOR_PROMPT, FOLLOW_UP_PROMPT } from "../../../fixtures/scenarios.ts";
import type { Recording } from "./setup.ts";
import { cannotGoOn, followUpTurn, goesOnFrom } from "./follow-up.ts";
import { accountLines, findRepair, readAccount, repairAccount, type Repair, type RepairTo } from "../disk/log-account.ts";
import { explainLogFileError } from "../disk/explain-log-file.ts";
import { LogFileError, LogWriteError } from "../disk/log-file-types.ts";
import { readLogFile } from "../disk/log-file.ts";
import { isEventOfType, type SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { reportListenerError, type SessionOptions } from "../session-types.ts";
import { startSaving, type Saving } from "./saving.ts";

/** The demo's disk flags, for its flag table (chapters/common/flags.ts). */
export const DISK_FLAGS = {
  save: {
    type: "string",
    value: "<file>",
    help: "边运行边把日志写进这个 JSONL 文件 / also write the log to this JSONL file as it happens",
  },
  load: {
    type: "string",
    value: "<file>",
    help: "从保存的日志打印 ②–④，不调用模型 / show ②–④ from a saved log, with no model call",
  },
  continue: {
    type: "boolean",
    help: "和 --load 一起：接着问录好的第二个问题 / with --load: go on with the recorded follow-up question",
  },
  ask: {
    type: "string",
    value: "<question>",
    help: "和 --load 一起：在线接着问你自己的问题 / with --load: go on live with your own question",
  },
} as const satisfies Flags;

export type DiskArgs = FlagValues<typeof DISK_FLAGS>;

/** What the run does with the disk: where the log comes from and goes, what it asks, what it replays. */
export interface DiskPlan {
  readonly load: string | undefined;
  /** Where events are written as they happen; a conversation loaded to go on is saved back into its file. */
  readonly save: string | undefined;
  /** The question of the turn to run; undefined when --load only shows a file. */
  readonly prompt: string | undefined;
  /** Offline: what to replay instead of the demo's usual recording. */
  readonly recording: Recording | undefined;
}

const goesOn = (args: DiskArgs) => args.continue === true || args.ask !== undefined;

/** The file the run writes to, if any. */
function saveTarget(args: DiskArgs): string | undefined {
  return args.save ?? (goesOn(args) ? args.load : undefined);
}

/**
 * The plan, or the usage error to print. `offline`: no live model will be called; `stream`: the replies
 * are streamed (no --no-stream), offline as live, whether or not the run is saved.
 */
export function planDisk(args: DiskArgs, offline: boolean, stream = true): DiskPlan | string {
  if (goesOn(args) && args.load === undefined)
    return "--continue 和 --ask 要接着一段读入的对话：加上 --load <file> / --continue and --ask go on with a loaded conversation: add --load <file>";
  if (args.continue === true && args.ask !== undefined)
    return "--continue 问录好的后续问题，--ask 问你自己的问题，只能用一个 / --continue asks the recorded follow-up question and --ask your own: use one of them";
  const prompt = args.load === undefined ? CALCULATOR_PROMPT : goesOn(args) ? (args.ask ?? FOLLOW_UP_PROMPT) : undefined;
  if (offline && args.load !== undefined && prompt !== undefined && prompt !== FOLLOW_UP_PROMPT) {
    return (
      `离线时只录了一个后续问题（“${FOLLOW_UP_PROMPT}”）：请用 --continue 问它，或者设置 DEEPSEEK_API_KEY 在线问你自己的问题 / ` +
      `Offline, the only follow-up question recorded is "${FOLLOW_UP_PROMPT}": use --continue, or set DEEPSEEK_API_KEY to ask your own`
    );
  }
  const save = saveTarget(args);
  const replaysTurn = args.load === undefined ? 1 : 2;
  const recording =
    offline && prompt !== undefined && (save !== undefined || args.load !== undefined) ? followUpTurn(replaysTurn, stream) : undefined;
  return { load: args.load, save, prompt, recording };
}

export interface DiskIO {
  readonly out: (line: string) => void;
}

export interface OpenedSession {
  readonly session: Session;
  /** Stops writing (closes the file) and returns the file the log is saved in; harmless twice, or when nothing is saved. */
  readonly stop: () => string | undefined;
  /** Aborted, with the writer's LogWriteError as its reason, when the log stops reaching the file. */
  readonly signal: AbortSignal;
}

/**
 * The session the demo works on: a new one, or the one --load reads (telling what was torn, and
 * repairing a turn a crash left open), with --save's writer attached before the repair so that the
 * file gets it too. The repair is told once the writer is attached, so that it says where it really
 * went. Undefined, after saying why, when the file cannot be read or written.
 */
export function openSession(plan: DiskPlan, io: DiskIO): OpenedSession | undefined {
  // The Session contains a listener's failure so that the others still hear every event; the writer's
  // failure is not for containing, so it comes here and stops the run before its next model call,
  // unless the file was only replaced under it: then the log goes on in a new file (saving.ts).
  const lost = new AbortController();
  let saving: Saving | undefined;
  const lostLog = (error: LogWriteError) => {
    if (saving?.moveOn(error) !== true) lost.abort(error);
  };
  const options: SessionOptions = {
    onListenerError: (error, event) => (error instanceof LogWriteError ? lostLog(error) : reportListenerError(error, event)),
  };
  const loaded = plan.load === undefined ? undefined : load(plan.load, plan, io, options);
  if (loaded === null) return undefined;
  const tellRepair = (repair: Repair, repairTo: RepairTo) => {
    for (const line of accountLines(repairAccount(repair, repairTo))) io.out(line);
  };
  // Refused before the writer attaches, so that nothing (no repair, no failed turn) is appended to the file.
  if (plan.load !== undefined && plan.recording !== undefined && loaded?.fits === false) {
    tellRepair(loaded.repair, "nowhere");
    for (const line of cannotGoOn(plan.load, plan.recording)) io.out(line);
    return undefined;
  }
  const session = loaded?.session ?? new Session(options);
  if (plan.save !== undefined) {
    saving = startSaving(session, plan.save, plan.save === plan.load, io.out);
    if (saving === undefined) return undefined; // the run stops: nothing is appended, so no repair is told
  }
  if (loaded !== undefined) {
    // Told once the writer is attached, so that it says where the repair goes; appended after, so that the file gets it too.
    tellRepair(loaded.repair, plan.save === undefined ? "memory" : { file: plan.save });
    for (const { type, data } of loaded.repair.closing) session.append(type, data);
  }
  return { session, stop: () => saving?.stop(), signal: lost.signal };
}

/**
 * The log in `file`, with what was read said as log-account.ts says it (view --load says the same) and
 * its repair found, to be told once the run knows where it goes; null after saying why it cannot be
 * read. `fits`: the plan's offline recording goes on from it (always, live).
 */
function load(
  file: string,
  plan: DiskPlan,
  { out }: DiskIO,
  options: SessionOptions,
): { session: Session; repair: Repair; fits: boolean } | null {
  try {
    const loaded = readLogFile(file, options);
    for (const line of accountLines(readAccount(file, loaded))) out(line);
    const fits = plan.recording === undefined || goesOnFrom(plan.recording, loaded.session);
    return { session: loaded.session, repair: findRepair(file, loaded), fits };
  } catch (error) {
    // A file the system would not open is said as every such refusal is (common/system-errors.ts).
    const refusal = error instanceof LogFileError && error.code === "UNREADABLE" ? error.cause : error;
    if (isSystemError(refusal)) {
      out(explainSystemError(refusal, ["无法读入", "Cannot load"], file));
      return null;
    }
    if (!(error instanceof LogFileError)) throw error;
    // The message may quote the file (a JSON.parse error does): one line of it, shown, not obeyed.
    out(visible(explainLogFileError(error, ["无法读入", "Cannot load"])));
    return null;
  }
}

/**
 * Said after ④ when the run was saved, once the writer has stopped and found the file still where the
 * name leads (or the log saved beside it: saving.ts).
 */
export function savedNote(opened: OpenedSession): string[] {
  const file = opened.stop();
  if (file === undefined) return [];
  const count = opened.session.events.length;
  return [
    `已保存：${file} 里有 ${count} 条事件，读回来用： / Saved: ${file} holds ${count} events; read it back with:`,
    `  npm run demo -- --load ${file}`,
  ];
}

/**
 * What the demo says when Ctrl-C stops it: the file is already complete up to the last event logged.
 * `events`: the log as the run left it, when the run got to its end (runAgent closes the turn as
 * interrupted); without them (a second Ctrl-C does not wait for that) the last turn may be open still.
 */
export function interruptedNote(argv: readonly string[], events?: readonly SessionEvent[]): string[] {
  const options = Object.fromEntries(Object.entries(DISK_FLAGS).map(([name, flag]) => [name, { type: flag.type }]));
  const save = saveTarget(parseArgs({ args: [...argv], options, strict: false }).values as DiskArgs);
  if (save === undefined)
    return [
      "已中断（没有保存：--save <file> 会边运行边保存日志） / Interrupted (nothing was being saved: --save <file> keeps the log as it happens)",
    ];
  const last = events?.at(-1);
  const closed = last !== undefined && isEventOfType(last, "turn/end") ? last.data.reason : undefined;
  const [zh, en] =
    closed === undefined
      ? ["读回来时，没闭合的一轮会被修复", "read it back (a turn left open gets repaired) with:"]
      : [
          `最后一轮已经闭合，记为 ${closed}，读回来无需修复`,
          `its last turn is closed as ${closed}, so it reads back with nothing to repair:`,
        ];
  return [
    `已中断。${save} 里已有中断前记下的每一条事件，${zh}： / Interrupted. ${save} holds every event logged before Ctrl-C; ${en}`,
    `  npm run demo -- --load ${save}`,
  ];
}
