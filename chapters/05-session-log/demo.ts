// 5.7: the chapter's demo. One calculator round trip, seen four ways: ① as a subscriber hears it,
// ② as the raw log, ③ as the messages the model was shown, ④ rebuilt from the log's JSON text.
// Choosing live or offline is in demo-setup.ts; what to say when a run fails, in demo-explain.ts;
// how an event (②) and a message (③) are printed, in demo-format.ts.
//
//   npm run demo               live when DEEPSEEK_API_KEY is set, otherwise an offline replay
//   npm run demo -- --offline  always replay fixtures/data/calculator.json (no key, no network)
//   npm run demo -- --html F   also write the run's timeline page (timeline/page.ts) to F
//   npm run demo -- --help     list the flags
//   npm run demo -- --save FILE / --load FILE [--continue | --ask Q]   the log on disk (demo-disk.ts)
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import pc from "picocolors";
import { readFlags, type Command, type Flags } from "../common/flags.ts";
import { DeepSeekConfigError, type Env } from "../common/settings.ts";
import { findScenario, runScenario } from "../../fixtures/scenarios.ts";
import { formatEvent, formatMessage } from "./demo-format.ts";
import { budgetSpent, explainSetting, explainTrouble, structureCheck, type Explanation } from "./demo-explain.ts";
import { DISK_FLAGS, interruptedNote, openSession, planDisk, savedNote } from "./demo-disk.ts";
import { connect, endQuietlyWhenPipeCloses, goesLive } from "./demo-setup.ts";
import { findLogProblems } from "./invariants.ts";
import { AgentRunError } from "./loop-types.ts";
import { Session } from "./session.ts";
import { writeTimelinePage } from "./timeline/page.ts";

/** The demo's command line: one line per flag, which parseArgs reads and `--help` lists. */
const COMMAND = {
  usage: ["npm run demo -- [flags]"],
  flags: {
    offline: { type: "boolean", help: "设置了 DEEPSEEK_API_KEY 也离线回放 / replay even with DEEPSEEK_API_KEY set" },
    html: { type: "string", value: "<file>", help: "把时间线页面写到 <file> / write the run's timeline page to <file>" },
    ...DISK_FLAGS,
  },
} as const satisfies Command<Flags>;

/** The book's 5.7 run; offline, fixtures/data/calculator.json replays it. */
const SCENARIO = "calculator";

export interface DemoIO {
  readonly out: (line: string) => void;
  /** Receives a usage error; `out` when not given. */
  readonly err?: (line: string) => void;
  readonly env: Env;
  readonly color?: boolean;
}

/** Runs the demo; resolves with the process exit code. */
export async function main(argv: readonly string[], io: DemoIO): Promise<number> {
  const args = readFlags(argv, COMMAND, { out: io.out, err: io.err ?? io.out });
  if (typeof args === "number") return args;
  const c = pc.createColors(io.color ?? false);
  const offline = args.values.offline === true;
  const plan = planDisk(args.values, !goesLive(offline, io.env));
  if (typeof plan === "string") {
    (io.err ?? io.out)(`用法错误 / Usage error: ${plan}`);
    return 2;
  }
  // --load alone tells the file's story with no model, so it needs no connection.
  const connection = plan.prompt === undefined ? undefined : connect(offline, io.env, plan.recording ?? SCENARIO);
  // Nothing printed should hold the key; scrubbing every line makes sure (a refused setting shows none).
  const out = (line: string) =>
    io.out(connection === undefined || connection instanceof DeepSeekConfigError ? line : connection.scrub(line));
  const heading = ([zh, en]: readonly [string, string]) => out(`\n${c.bold(`=== ${zh} / ${en} ===`)}`);
  const report = ({ title, lines }: Explanation) => {
    heading(title);
    for (const line of lines) out(`  ${line}`);
    return 1;
  };
  if (connection instanceof DeepSeekConfigError) return report(explainSetting(connection));

  for (const line of connection?.banner ?? []) out(line);
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
      session.subscribe((event) => out(`  [订阅者 / subscriber] 看到新事件 #${event.id} ${event.type}`));
      // A failed model call is part of the story: the log up to it is still printed below.
      failure = await runScenario({ ...findScenario(SCENARIO), userPrompt: plan.prompt }, connection.client, session).then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof AgentRunError) return error;
          throw error;
        },
      );
    }

    heading(["② 事件日志原文（唯一事实来源）", "The raw event log, the single source of truth"]);
    for (const event of session.events) out(`  ${formatEvent(event)}`);
    for (const line of budgetSpent(session.events)) out(`  ${line}`);
    const trouble = explainTrouble(connection?.mismatch(), failure);
    if (trouble !== undefined) return report(trouble);

    heading(["③ 派生消息：模型看到的历史（deriveMessages 投影）", "Derived messages: what the model saw"]);
    for (const message of session.deriveMessages()) out(`  ${formatMessage(message)}`);

    heading(["④ 重放：同一份日志 → 新会话 → 完全相同的消息历史", "Replay: same log → new session → same messages"]);
    const code = replayFromText(session, out);
    for (const line of savedNote(plan, session)) out(`  ${line}`);
    return code;
  } finally {
    opened.stop();
    connection?.close();
    // The page is one more view derived from the log, written whether or not the run succeeded.
    if (args.values.html !== undefined) {
      const page = writeTimelinePage(session.events, args.values.html, { source: "npm run demo" });
      out(`\n  时间线页面 / timeline page: ${page}`);
    }
  }
}

// ── ④ replay from the log's JSON text ────────────────────────────────────────────────────────

function replayFromText(session: Session, out: (line: string) => void): number {
  const text = JSON.stringify(session.events);
  const rebuilt = Session.fromLog(JSON.parse(text));
  const original = session.deriveMessages();
  const replayed = rebuilt.deriveMessages();
  // Every field of every message, not only the roles.
  const equal = isDeepStrictEqual(replayed, original);
  out(`  日志序列化为 ${text.length} 个字符的 JSON，解析后 Session.fromLog 重建 ${rebuilt.events.length} 条事件`);
  out(`  (the log as ${text.length} characters of JSON, parsed, rebuilt by Session.fromLog: ${rebuilt.events.length} events)`);
  out(`  重放派生 ${replayed.length} 条消息，与原始派生逐字段一致: ${equal}`);
  out(`  (replayed ${replayed.length} messages, deep-equal to the original: ${equal})`);
  // What the book leaves for "a fuller implementation": are turns and steps closed, calls answered?
  const problems = findLogProblems(rebuilt.events);
  for (const line of structureCheck(problems.length, rebuilt.events)) out(`  ${line}`);
  for (const problem of problems) out(`    ${problem.code}  ${problem.message}`);
  out("  ← 日志是唯一事实来源：持久化、界面、重放都从它派生 / the log is the single source of truth");
  return equal ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  endQuietlyWhenPipeCloses();
  // Ctrl-C: every event logged so far is already in the --save file (each is written before append returns).
  process.once("SIGINT", () => {
    for (const line of ["", ...interruptedNote(process.argv.slice(2))]) console.log(line);
    process.exit(130);
  });
  const io = { out: console.log, err: console.error, env: process.env, color: pc.isColorSupported };
  process.exitCode = await main(process.argv.slice(2), io);
}
