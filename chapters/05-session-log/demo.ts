// 5.7: the chapter's demo. One calculator round trip, seen four ways: ① as a subscriber hears it,
// ② as the raw log, ③ as the messages the model was shown, ④ rebuilt from the log's JSON text.
// Choosing live or offline is in demo-setup.ts; what to say when a run fails, in demo-explain.ts;
// how an event (②) and a message (③) are printed, in demo-format.ts; ① for a streamed reply, in demo-stream.ts.
//
//   npm run demo               live when DEEPSEEK_API_KEY is set, otherwise an offline replay; streamed
//   npm run demo -- --offline  always replay fixtures/data/calculator-streamed.json (no key, no network)
//   npm run demo -- --no-stream  one whole call per step: the book's exact 12 events (calculator.json offline)
//   npm run demo -- --html F   also write the run's timeline page (timeline/page.ts) to F
//   npm run demo -- --help     list the flags
//   npm run demo -- --save FILE / --load FILE [--continue | --ask Q]   the log on disk (demo-disk.ts)
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import pc from "picocolors";
import { readFlags, type Command, type Flags } from "../common/flags.ts";
import { DeepSeekConfigError, type Env } from "../common/settings.ts";
import { cannotWrite, explainSystemError, isSystemError, SYSTEM_ERROR_EXIT } from "../common/system-errors.ts";
import { visible } from "../common/text.ts";
import { findScenario, runScenario } from "../../fixtures/scenarios.ts";
import { findLogProblems } from "./invariants.ts";
import type { SessionEvent } from "./events.ts";
import { AgentRunError } from "./loop-types.ts";
import { Session } from "./session.ts";
import { largePageNote, writeTimelinePage } from "./timeline/page.ts";
import { formatLog, formatMessages } from "./demo/format.ts";
import { budgetSpent, explainLostLog, explainSetting, explainTrouble, structureCheck, type Explanation } from "./demo/explain.ts";
import { DISK_FLAGS, interruptedNote, openSession, planDisk, savedNote } from "./demo/disk.ts";
import {
  explainYourThrow,
  mineOpening,
  replayDifference,
  tellYourThrow,
  yourFilesInPlay,
  yourFilesSentIt,
  yourLoopStreams,
} from "./demo/mine.ts";
import { needsTheHook, runAgainWithTheHook } from "./demo/mine-again.ts";
import { connect, endQuietlyWhenPipeCloses, goesLive, REPLAY_MS } from "./demo/setup.ts";
import { subscriberView } from "./demo/stream.ts";
import { refuseOutput } from "./demo/output-file.ts";

/** The demo's command line: one line per flag, which parseArgs reads and `--help` lists. */
const COMMAND = {
  usage: ["npm run demo -- [flags]"],
  flags: {
    offline: { type: "boolean", help: "设置了 DEEPSEEK_API_KEY 也离线回放 / replay even with DEEPSEEK_API_KEY set" },
    "no-stream": {
      type: "boolean",
      help: "不用流式：每步一次完整调用，日志正是书里的 12 条事件 / no streaming: the book's exact 12 events",
    },
    html: { type: "string", value: "<file>", help: "把时间线页面写到 <file> / write the run's timeline page to <file>" },
    ...DISK_FLAGS,
    mine: { type: "boolean", help: "已完成的练习步骤用你的文件代替答案 / run your own files for the steps you have done" },
  },
} as const satisfies Command<Flags>;

/** The book's 5.7 run, streamed (offline: fixtures/data/calculator-streamed.json) or not (calculator.json). */
const scenarioName = (stream: boolean) => (stream ? "calculator-streamed" : "calculator");

export interface DemoIO {
  readonly out: (line: string) => void;
  /** Receives a usage error; `out` when not given. */
  readonly err?: (line: string) => void;
  readonly env: Env;
  readonly color?: boolean;
  /** Prints streamed text where the cursor is (a terminal); without it, ① gathers it into lines for `out`. */
  readonly write?: (text: string) => void;
  /** Ctrl-C: stops the run (runAgent's signal); the log it leaves is still printed, and the exit code is 130. */
  readonly signal?: AbortSignal;
  /** How long an offline replay of a stream may take (REPLAY_MS; tests pass 0: all at once). */
  readonly replayMs?: number;
}

/** Runs the demo; resolves with the process exit code (not 0 when the page asked for was not written). */
export async function main(argv: readonly string[], io: DemoIO): Promise<number> {
  const page = { written: true };
  const code = await demo(argv, io, page);
  return page.written ? code : Math.max(code, SYSTEM_ERROR_EXIT);
}

async function demo(argv: readonly string[], io: DemoIO, page: { written: boolean }): Promise<number> {
  // What reaches the terminal from a log, a model or a file is shown, never obeyed (text.ts, visible).
  const err = (line: string) => (io.err ?? io.out)(visible(line, { lines: true }));
  const args = readFlags(argv, COMMAND, { out: io.out, err });
  if (typeof args === "number") return args;
  const c = pc.createColors(io.color ?? false);
  const offline = args.values.offline === true;
  const stream = args.values["no-stream"] !== true && (args.values.mine !== true || yourLoopStreams(io.env));
  const plan = planDisk(args.values, !goesLive(offline, io.env), stream);
  // A page is derived from the log: it may replace an earlier page, never the log (output-file.ts).
  const refused = typeof plan === "string" ? plan : refuseOutput("--html", args.values.html, [plan.load, plan.save]);
  if (typeof plan === "string" || refused !== undefined) {
    err(`用法错误 / Usage error: ${refused}`);
    return 2;
  }
  // `npm run demo --mine` (no --) leaves --mine to npm: said, not run on the answers instead.
  const mine = mineOpening(args.values.mine === true, io.env, "npm run demo -- --mine", stream && plan.prompt !== undefined, plan);
  if (typeof mine === "string") {
    (io.err ?? io.out)(`用法错误 / Usage error: ${mine}`);
    return 2;
  }
  // A page that cannot be written is said now, not after a run it would waste.
  const unwritable = args.values.html === undefined ? undefined : cannotWrite(args.values.html, WRITE_PAGE);
  if (unwritable !== undefined) {
    err(unwritable);
    return SYSTEM_ERROR_EXIT;
  }
  // --load alone tells the file's story with no model, so it needs no connection.
  const recording = plan.recording ?? scenarioName(stream);
  const connection = plan.prompt === undefined ? undefined : connect(offline, io.env, recording, io.replayMs ?? REPLAY_MS);
  // Nothing printed should hold the key; scrubbing every line makes sure (a refused setting shows none).
  // Nor may it drive the terminal: every line is made visible, only the demo's own headings are coloured.
  const scrub = (line: string) => (connection === undefined || connection instanceof DeepSeekConfigError ? line : connection.scrub(line));
  const out = (line: string) => io.out(visible(scrub(line), { lines: true }));
  const heading = ([zh, en]: readonly [string, string]) => io.out(`\n${c.bold(`=== ${zh} / ${en} ===`)}`);
  const report = ({ title, lines }: Explanation) => {
    heading(title);
    for (const line of lines) out(`  ${line}`);
    return 1;
  };
  if (connection instanceof DeepSeekConfigError) return report(explainSetting(connection));

  for (const line of [...mine, ...(connection?.banner ?? [])]) out(line);
  const opened = openSession(plan, { out });
  if (opened === undefined) {
    connection?.close();
    return 1;
  }
  const { session } = opened;
  try {
    let failure: AgentRunError | undefined;
    if (connection !== undefined && plan.prompt !== undefined) {
      heading(["① 订阅者视角", "Subscriber view"]);
      const write = io.write && ((text: string) => io.write?.(connection.scrub(text)));
      // ① makes the model's text visible itself, so that its own colours still reach the terminal.
      session.subscribe(subscriberView({ out: (line) => io.out(scrub(line)), write, c }));
      // A failed model call is part of the story: the log up to it is still printed below.
      const scenario = { ...findScenario(scenarioName(stream)), userPrompt: plan.prompt };
      failure = await runScenario(scenario, connection.client, session, stopOn(io.signal, opened.signal)).then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof AgentRunError) return error;
          throw error;
        },
      );
    }

    heading(["② 事件日志原文（唯一事实来源）", "The raw event log, the single source of truth"]);
    for (const line of formatLog(session.events)) out(`  ${line}`);
    for (const line of budgetSpent(session.events)) out(`  ${line}`);
    if (opened.signal.aborted) return report(explainLostLog(opened.signal.reason));
    // Stopped by Ctrl-C: not a failure to explain (nor the replay's unused exchanges); the log is whole and goes on to ③ and ④.
    const mismatch = connection?.mismatch();
    const trouble = io.signal?.aborted ? undefined : (explainYourThrow(failure) ?? explainTrouble(mismatch, failure));
    if (trouble !== undefined) return report({ ...trouble, lines: [...trouble.lines, ...yourFilesSentIt(mismatch, failure)] });

    heading(["③ 派生消息：模型看到的历史（deriveMessages 投影）", "Derived messages: what the model saw"]);
    for (const entry of formatMessages(session.deriveMessages(), session.events)) out(`  ${entry}`);

    heading(["④ 重放：同一份日志 → 新会话 → 完全相同的消息历史", "Replay: same log → new session → same messages"]);
    const code = replayFromText(session, out);
    for (const line of savedNote(plan, session)) out(`  ${line}`);
    if (io.signal?.aborted) for (const line of ["", ...interruptedNote(argv, session.events)]) out(line);
    return io.signal?.aborted ? 130 : code;
  } finally {
    opened.stop();
    connection?.close();
    // The page is one more view derived from the log, written whether or not the run succeeded.
    if (args.values.html !== undefined) page.written = writePage(session.events, args.values.html, [plan.load, plan.save], out);
  }
}

/** The run stops at Ctrl-C, and when the log can no longer reach its file (demo-disk.ts), whichever comes first. */
function stopOn(ctrlC: AbortSignal | undefined, lostLog: AbortSignal): AbortSignal {
  return ctrlC === undefined ? lostLog : AbortSignal.any([ctrlC, lostLog]);
}

const WRITE_PAGE = ["无法写入时间线页面", "Cannot write the timeline page"] as const;

/** Writes the page and says where; a page refused now, or a file system that refuses, is said in one sentence (false). */
function writePage(
  events: readonly SessionEvent[],
  file: string,
  logs: readonly (string | undefined)[],
  out: (line: string) => void,
): boolean {
  // Asked again: a link made during the run may lead the name to the log now (output-file.ts).
  const refused = refuseOutput("--html", file, logs);
  if (refused !== undefined) {
    out(`\n  ${refused}`);
    return false;
  }
  try {
    out(`\n  时间线页面 / timeline page: ${writeTimelinePage(events, file, { source: "npm run demo" })}`);
    const large = largePageNote(events.length);
    if (large !== null) out(`  ${large}`);
    return true;
  } catch (error) {
    if (!isSystemError(error)) throw error;
    out(`\n  ${explainSystemError(error, WRITE_PAGE, file)}`);
    return false;
  }
}

// ── ④ replay from the log's JSON text ────────────────────────────────────────────────────────

function replayFromText(session: Session, out: (line: string) => void): number {
  // Event by event, as the JSONL file holds them (one JSON text of a large log would pass V8's longest
  // string, ~512 MiB); each parse is ours alone, so fromLog freezes it in place (trusted, session.ts).
  let characters = 0;
  const rebuilt = Session.fromLog(
    session.events.map((event) => {
      const text = JSON.stringify(event);
      characters += text.length;
      return JSON.parse(text) as unknown;
    }),
    { trusted: true },
  );
  const original = session.deriveMessages();
  const replayed = rebuilt.deriveMessages();
  // Every field of every message, not only the roles.
  const equal = isDeepStrictEqual(replayed, original);
  out(`  日志逐条序列化为共 ${characters} 个字符的 JSON，解析后 Session.fromLog 重建 ${rebuilt.events.length} 条事件`);
  out(`  (the log as ${characters} characters of JSON, event by event, rebuilt by Session.fromLog: ${rebuilt.events.length} events)`);
  out(`  重放派生 ${replayed.length} 条消息，与原始派生逐字段一致: ${equal}`);
  out(`  (replayed ${replayed.length} messages, deep-equal to the original: ${equal})`);
  for (const line of replayDifference(original, replayed)) out(`  ${line}`);
  if (!equal) for (const line of yourFilesInPlay("replay")) out(`  ${line}`);
  // What the book leaves for "a fuller implementation": are turns and steps closed, calls answered?
  const problems = findLogProblems(rebuilt.events);
  for (const line of structureCheck(problems.length, rebuilt.events)) out(`  ${line}`);
  for (const problem of problems) out(`    ${problem.code}  ${problem.message}`);
  if (problems.length > 0) for (const line of yourFilesInPlay("structure")) out(`  ${line}`);
  out("  ← 日志是唯一事实来源：持久化、界面、重放都从它派生 / the log is the single source of truth");
  return equal ? 0 : 1;
}

const started = process.argv[1];
const isMain = started !== undefined && import.meta.url === pathToFileURL(started).href;
if (isMain && needsTheHook(process.argv.slice(2), process.env)) {
  process.exitCode = await runAgainWithTheHook(started, process.argv.slice(2)); // `tsx demo.ts --mine`: demo/mine-again.ts
} else if (isMain) {
  endQuietlyWhenPipeCloses();
  // Ctrl-C stops the run through runAgent's signal, which closes the turn as "interrupted". A second
  // Ctrl-C does not wait: every event logged so far is already in the --save file.
  const ctrlC = new AbortController();
  process.once("SIGINT", () => {
    ctrlC.abort(new Error("Ctrl-C"));
    process.once("SIGINT", () => {
      for (const line of ["", ...interruptedNote(process.argv.slice(2))]) console.log(visible(line));
      process.exit(130);
    });
  });
  const write = (text: string) => void process.stdout.write(text);
  const io = { out: console.log, err: console.error, write, env: process.env, color: pc.isColorSupported, signal: ctrlC.signal };
  // --mine: your code throwing is told like any other failure, with the file and its step, not a stack trace.
  process.exitCode = await main(process.argv.slice(2), io).catch((error: unknown) => tellYourThrow(error, io.out, io.env));
}
