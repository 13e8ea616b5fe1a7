// 5.7: the chapter's demo. One calculator round trip, seen four ways: ① as a subscriber hears it,
// ② as the raw log, ③ as the messages the model was shown, ④ rebuilt from the log's JSON text.
// The flags become a plan in demo/plan.ts; live or offline is chosen in demo/setup.ts; ① for a
// streamed reply is demo/stream.ts; ② and ③ are printed by demo/format.ts; a failure is explained by
// demo/explain.ts; the log on disk (--save, --load) is demo/disk.ts, the page (--html) demo/page.ts.
//
//   npm run demo               live when DEEPSEEK_API_KEY is set, otherwise an offline replay; streamed
//   npm run demo -- --offline  always replay fixtures/data/calculator-streamed.json (no key, no network)
//   npm run demo -- --no-stream  one whole call per step: the book's exact 12 events (calculator.json offline)
//   npm run demo -- --help     list the flags (--html FILE, --save FILE, --load FILE [--continue | --ask Q], --mine)
import { isDeepStrictEqual } from "node:util";
import pc from "picocolors";
import { isMain } from "../common/program.ts";
import { DeepSeekConfigError } from "../common/settings.ts";
import { SYSTEM_ERROR_EXIT } from "../common/system-errors.ts";
import { visible } from "../common/text.ts";
import { findScenario } from "../../fixtures/scenarios.ts";
import { freezeParsedJson } from "./fast/json-fast.ts";
import { checkLogStructure } from "./invariants.ts";
import { AgentRunError } from "./loop-types.ts";
import { Session } from "./session.ts";
import { formatLog, formatMessages } from "./demo/format.ts";
import { budgetSpent, explainLostLog, explainSetting, explainTrouble, structureCheck, type Explanation } from "./demo/explain.ts";
import { interruptedNote, openSession, savedNote } from "./demo/disk.ts";
import { explainYourThrow, replayDifference, yourFilesInPlay, yourFilesSentIt } from "./demo/mine.ts";
import { writeDemoPage } from "./demo/page.ts";
import { planDemo, scenarioName, type DemoIO, type DemoPlan } from "./demo/plan.ts";
import { runScenario } from "./demo/scenarios.ts";
import { connect, REPLAY_MS } from "./demo/setup.ts";
import { subscriberView } from "./demo/stream.ts";
import { runFromTerminal } from "./demo/terminal.ts";

/** Runs the demo; resolves with the process exit code (not 0 when the page asked for was not written). */
export async function main(argv: readonly string[], io: DemoIO): Promise<number> {
  const plan = planDemo(argv, io);
  if (typeof plan === "number") return plan;
  const page = { written: true };
  const code = await run(plan, io, page);
  return page.written ? code : Math.max(code, SYSTEM_ERROR_EXIT);
}

async function run(plan: DemoPlan, io: DemoIO, page: { written: boolean }): Promise<number> {
  const { disk, stream } = plan;
  // --load alone tells the file's story with no model, so it needs no connection.
  const connection = disk.prompt === undefined ? undefined : await connect(plan.offline, io.env, plan.recording, io.replayMs ?? REPLAY_MS);
  // Nothing printed should hold the key, nor drive the terminal: every line is scrubbed and made
  // visible; only the demo's own headings are coloured.
  const scrub = (line: string) => (connection === undefined || connection instanceof DeepSeekConfigError ? line : connection.scrub(line));
  const out = (line: string) => io.out(visible(scrub(line), { lines: true }));
  const c = pc.createColors(io.color ?? false);
  const heading = ([zh, en]: readonly [string, string]) => io.out(`\n${c.bold(`=== ${zh} / ${en} ===`)}`);
  const report = ({ title, lines }: Explanation) => {
    heading(title);
    for (const line of lines) out(`  ${line}`);
    return 1;
  };
  if (connection instanceof DeepSeekConfigError) return report(explainSetting(connection));

  for (const line of [...plan.mine, ...(connection?.banner ?? [])]) out(line);
  const opened = openSession(disk, { out });
  if (opened === undefined) {
    connection?.close();
    return 1;
  }
  const { session } = opened;
  try {
    let failure: AgentRunError | undefined;
    if (connection !== undefined && disk.prompt !== undefined) {
      heading(["① 订阅者视角", "Subscriber view"]);
      const write = io.write && ((text: string) => io.write?.(connection.scrub(text)));
      // ① makes the model's text visible itself, so that its own colours still reach the terminal.
      session.subscribe(subscriberView({ out: (line) => io.out(scrub(line)), write, c }));
      // The run stops at Ctrl-C, or when the log can no longer reach its file (demo/disk.ts).
      const stop = io.signal === undefined ? opened.signal : AbortSignal.any([io.signal, opened.signal]);
      const scenario = { ...findScenario(scenarioName(stream)), userPrompt: disk.prompt };
      // A failed model call is part of the story: the log up to it is still printed below.
      failure = await runScenario(scenario, connection.client, session, stop).then(
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
    const code = replayTheLog(session, out);
    for (const line of savedNote(opened)) out(`  ${line}`);
    if (io.signal?.aborted) for (const line of ["", ...interruptedNote(plan.argv, session.events)]) out(line);
    return io.signal?.aborted ? 130 : code;
  } finally {
    opened.stop();
    connection?.close();
    // The page is one more view derived from the log, written whether or not the run succeeded.
    if (plan.page !== undefined) page.written = writeDemoPage(session.events, plan.page, [disk.load, disk.save], out);
  }
}

// ── ④ replay: the same log → a new Session → the same messages ───────────────────────────────

function replayTheLog(session: Session, out: (line: string) => void): number {
  // The log as JSON text, event by event, as the JSONL file holds it (one JSON text of a large log would
  // pass V8's longest string, ~512 MiB): each event must read back from its text exactly as it is.
  let characters = 0;
  const changed = session.events.findIndex((event) => {
    const text = JSON.stringify(event);
    characters += text.length;
    return !isDeepStrictEqual(JSON.parse(text), event);
  });
  // Then, as the book's ④: Session.fromLog of the log itself, every event checked again. Its events are
  // frozen plain JSON already, so freezeParsedJson changes nothing and the new session shares them
  // rather than copying: a large loaded log is not held twice (README, "大日志").
  const rebuilt = Session.fromLog(session.events, { quickFreeze: freezeParsedJson });
  const original = session.deriveMessages();
  const replayed = rebuilt.deriveMessages();
  // Every field of every message, not only the roles.
  const equal = changed < 0 && isDeepStrictEqual(replayed, original);
  const [zh, en] =
    changed < 0
      ? ["每条事件都原样读回", "each event reads back as it was"]
      : [`第 ${changed} 个事件读回来和原来不一样`, `event #${changed} reads back different`];
  out(`  日志逐条序列化为共 ${characters} 个字符的 JSON，${zh}；Session.fromLog 重建 ${rebuilt.events.length} 条事件`);
  out(
    `  (the log as ${characters} characters of JSON, event by event: ${en}; rebuilt by Session.fromLog: ${rebuilt.events.length} events)`,
  );
  out(`  重放派生 ${replayed.length} 条消息，与原始派生逐字段一致：${equal}`);
  out(`  (replayed ${replayed.length} messages, deep-equal to the original: ${equal})`);
  for (const line of replayDifference(original, replayed)) out(`  ${line}`);
  if (!equal) for (const line of yourFilesInPlay("replay")) out(`  ${line}`);
  // What the book leaves for "a fuller implementation": are turns and steps closed, calls answered?
  const problems = checkLogStructure(rebuilt.events);
  for (const line of structureCheck(problems.length, rebuilt.events)) out(`  ${line}`);
  for (const problem of problems) out(`    ${problem.code}  ${problem.zh} / ${problem.message}`);
  if (problems.length > 0) for (const line of yourFilesInPlay("structure")) out(`  ${line}`);
  out("  ← 日志是唯一事实来源：持久化、界面、重放都从它派生 / the log is the single source of truth");
  return equal ? 0 : 1;
}

if (isMain(import.meta.url)) await runFromTerminal(main);
