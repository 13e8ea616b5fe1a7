// 5.7: the chapter's demo. One calculator round trip, seen four ways: ① as a subscriber hears it,
// ② as the raw log, ③ as the messages the model was shown, ④ rebuilt from the log's JSON text.
//
//   npm run demo               live when DEEPSEEK_API_KEY is set, otherwise an offline replay
//   npm run demo -- --offline  always replay fixtures/data/calculator.json (no key, no network)
//   npm run demo -- --save FILE            also write the log to FILE (JSONL) as it happens
//   npm run demo -- --load FILE            ②–④ from a saved log, no model call (see demo-disk.ts)
//   npm run demo -- --load FILE --continue go on with a new turn (or --ask "…" live), saved to FILE
import { isDeepStrictEqual, parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import pc from "picocolors";
import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DeepSeekClient,
  DeepSeekConfigError,
  DeepSeekError,
  publicURL,
  THINKING_TIMEOUT_MS,
  type ChatClient,
} from "../common/deepseek.ts";
import type { Message } from "../common/messages.ts";
import { messageOf } from "../common/tools.ts";
import { fixturePath, loadFixture, type Fixture } from "../../fixtures/fixture.ts";
import { startReplay, type Replay } from "../../fixtures/replay.ts";
import { findLogProblems } from "./invariants.ts";
import { findScenario, runScenario } from "../../fixtures/scenarios.ts";
import { AgentRunError } from "./loop-types.ts";
import { Session } from "./session.ts";
import { type SessionEvent } from "./events.ts";
import { diskOptions, DiskUsageError, interruptedNote, offlineRecording, openSession, planDisk, type DiskPlan, type Recording } from "./demo-disk.ts";

export interface DemoIO {
  /** Receives each line of output. */
  readonly out: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly color?: boolean;
}

/** Runs the demo; resolves with the process exit code. */
export async function main(argv: readonly string[], io: DemoIO): Promise<number> {
  const c = pc.createColors(io.color ?? false);
  // Trimmed as the client trims it: a key of only spaces or a "\r" is no key, so the run is offline.
  const key = io.env.DEEPSEEK_API_KEY?.trim() ?? "";
  const out = (line = "") => io.out(redact(line, key));
  const heading = (zh: string, en: string) => out(`\n${c.bold(`=== ${zh} / ${en} ===`)}`);
  const args = readArgs(argv, out);
  if (args === undefined) return 2;
  const live = !args.offline && key !== "";

  const opened = openSession(args.disk, { out, format: formatEvent });
  if (opened === undefined) return 1;
  const { session } = opened;
  try {
    // --load alone: the file is the whole story, told without a model.
    if (args.disk.prompt === undefined) return showLog(session, out, heading);
    return await runTurn(args.disk, args.disk.prompt, session, { live, key, env: io.env, out, heading });
  } finally {
    opened.stop();
  }
}

interface TurnContext {
  readonly live: boolean;
  readonly key: string;
  readonly env: DemoIO["env"];
  readonly out: (line?: string) => void;
  readonly heading: (zh: string, en: string) => void;
}

function readArgs(argv: readonly string[], out: (line: string) => void): { offline: boolean; disk: DiskPlan } | undefined {
  try {
    const { values } = parseArgs({ args: [...argv], options: { offline: { type: "boolean" }, ...diskOptions } });
    return { offline: values.offline === true, disk: planDisk(values) };
  } catch (error) {
    if (!(error instanceof DiskUsageError) && !(error instanceof TypeError)) throw error;
    out(`用法有误 / Usage: ${error.message}`);
    return undefined;
  }
}

/** The book's run: one turn, seen as ① it happens, ② the raw log, ③ the messages, ④ a replay. */
async function runTurn(disk: DiskPlan, prompt: string, session: Session, { live, key, env, out, heading }: TurnContext): Promise<number> {
  const recording = live ? undefined : offlineRecording(disk);
  if (typeof recording === "string") {
    out(`无法离线回放 / Cannot replay offline: ${recording}`);
    return 1;
  }
  const connection = connect(live, key, env, out, recording);
  if (connection instanceof DeepSeekConfigError) {
    heading("设置有误", "A setting is wrong");
    for (const line of explainSetting(connection)) out(`  ${line}`);
    return 1;
  }
  const { client, replay } = connection;
  try {
    heading("① 订阅者视角", "Subscriber view");
    session.subscribe((event) => out(`  [订阅者 / subscriber] 看到新事件 #${event.id} ${event.type}`));
    // A failed model call is part of the story: the log up to it is still printed below.
    let failure: AgentRunError | undefined;
    try {
      await runScenario({ ...findScenario(SCENARIO), userPrompt: prompt }, client, session);
    } catch (error) {
      if (!(error instanceof AgentRunError)) throw error;
      failure = error;
    }

    heading("② 事件日志原文（唯一事实来源）", "The raw event log, the single source of truth");
    for (const event of session.events) out(`  ${formatEvent(event)}`);

    const mismatch = replay ? verify(replay) : undefined;
    if (mismatch !== undefined) {
      heading("离线回放失败", "The offline replay failed");
      out(mismatch);
      if (recording?.note !== undefined) out(`  (${recording.note})`);
      return 1;
    }
    if (failure !== undefined) {
      heading("运行失败", "The run failed");
      for (const line of explain(failure)) out(`  ${line}`);
      return 1;
    }

    const code = showMessagesAndReplay(session, out, heading);
    if (disk.save !== undefined) out(`  已保存 / Saved: ${disk.save} holds ${session.events.length} events (read it back: npm run demo -- --load ${disk.save})`);
    return code;
  } finally {
    replay?.close();
  }
}

/** ②–④ for a log read from disk. */
function showLog(session: Session, out: (line?: string) => void, heading: TurnContext["heading"]): number {
  heading("② 事件日志原文（唯一事实来源）", "The raw event log, the single source of truth");
  for (const event of session.events) out(`  ${formatEvent(event)}`);
  return showMessagesAndReplay(session, out, heading);
}

function showMessagesAndReplay(session: Session, out: (line?: string) => void, heading: TurnContext["heading"]): number {
  heading("③ 派生消息：模型看到的历史（deriveMessages 投影）", "Derived messages: what the model saw");
  for (const message of session.deriveMessages()) out(formatMessage(message));

  heading("④ 重放：同一份日志 → 新会话 → 完全相同的消息历史", "Replay: same log → new session → same messages");
  return replayFromText(session, out);
}

/**
 * Belt and braces: nothing we print should hold the key, but make sure of it. A "key" under 8
 * characters is no real key, and redacting it would blank out ordinary words.
 */
function redact(line: string, key: string): string {
  return key.length >= 8 ? line.split(key).join("[redacted]") : line;
}

interface Connection {
  readonly client: ChatClient;
  readonly replay?: Replay;
}

/** The book's 5.7 run, replayed from fixtures/data/calculator.json when offline. */
const SCENARIO = "calculator";

/** A setting the client refuses comes back as the error, for the demo to explain; nothing was sent. */
function connect(live: boolean, key: string, env: DemoIO["env"], out: (line: string) => void, recording?: Recording): Connection | DeepSeekConfigError {
  try {
    return live ? connectLive(key, env, out) : connectOffline(out, key === "" ? "no key" : "--offline", recording ?? defaultRecording());
  } catch (error) {
    if (error instanceof DeepSeekConfigError) return error;
    throw error;
  }
}

function connectLive(key: string, env: DemoIO["env"], out: (line: string) => void): Connection {
  const client = new DeepSeekClient({
    apiKey: key,
    // Passed explicitly (blank meaning the default): the demo reads `env`, not process.env.
    baseURL: env.DEEPSEEK_BASE_URL?.trim() || DEFAULT_BASE_URL,
    model: env.DEEPSEEK_MODEL?.trim() || DEFAULT_MODEL,
    timeout: timeoutFrom(env),
  });
  // publicURL: a proxy's user:password@ or an ?api_key= in DEEPSEEK_BASE_URL is not for the screen.
  out(`在线 / Live: calling ${client.model} at ${publicURL(client.baseURL)} (npm run demo -- --offline replays a recording instead)`);
  return { client };
}

function timeoutFrom(env: DemoIO["env"]): number {
  const text = env.DEEPSEEK_TIMEOUT_MS?.trim();
  if (!text) return THINKING_TIMEOUT_MS;
  // Digits only: Number() would also take "0x10" or "1e3", which nobody means as milliseconds.
  const ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new DeepSeekConfigError(`DEEPSEEK_TIMEOUT_MS must be a whole number of milliseconds above 0, such as ${THINKING_TIMEOUT_MS}`);
  }
  return ms;
}

function defaultRecording(): { file: string; fixture: Fixture } {
  // `file` as shown to the learner; fixturePath is the absolute one.
  return { file: `fixtures/data/${SCENARIO}.json`, fixture: loadFixture(fixturePath(SCENARIO)) };
}

/** `why` is why this run is offline, which decides how to tell the learner to go live. */
function connectOffline(out: (line: string) => void, why: "no key" | "--offline", { file, fixture }: Recording): Connection & { replay: Replay } {
  const origin =
    fixture.meta.provenance === "recorded"
      ? `recorded from ${fixture.meta.model} on ${fixture.meta.recorded_at.slice(0, 10)}`
      : "synthetic: hand-written in DeepSeek's wire format, not recorded";
  const goLive = why === "no key" ? "set DEEPSEEK_API_KEY and run npm run demo" : "run npm run demo without --offline";
  out(`离线回放 / Offline replay of ${file} (${origin}). To call the live model, ${goLive}.`);
  // The real client and SDK still run; MSW answers their HTTP requests from the fixture.
  const replay = startReplay(fixture, { source: file });
  const client = new DeepSeekClient({ apiKey: "offline-replay", baseURL: replay.baseURL, model: fixture.meta.model });
  return { client, replay };
}

function verify(replay: Replay): string | undefined {
  try {
    replay.verify();
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

// ── ② one line per event: #id  type  data ────────────────────────────────────────────────────

export function formatEvent(event: SessionEvent): string {
  return `${`#${event.id}`.padEnd(4)} ${event.type.padEnd(18)} ${compactJson(event.data)}`;
}

/** Compact JSON with long strings shortened, and the whole cut at `width`, so each event fits a line. */
export function compactJson(value: unknown, width = 120): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? shorten(v, 32) : v));
  return shorten(text, width);
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\n/g, "⏎");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// ── ③ messages as the book prints them ───────────────────────────────────────────────────────

export function formatMessage(message: Message): string {
  switch (message.role) {
    case "user":
      return indent(`[user] ${message.content}`);
    case "tool":
      return indent(`[tool → 结果] ${message.content}`);
    case "assistant": {
      const lines = message.tool_calls.map((call) => `[assistant → 请求工具] ${call.name}(${call.arguments})`);
      if (message.content) lines.push(`[assistant] ${message.content}`);
      return lines.map(indent).join("\n");
    }
  }
}

function indent(text: string): string {
  return text.split("\n").map((line) => (line ? `  ${line}` : "")).join("\n");
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
  out(`  结构检查（轮次/步骤闭合、每个工具调用都有结果）: ${problems.length === 0 ? "ok" : `${problems.length} 个问题`}`);
  out(`  (structure check — turns and steps closed, every tool call answered: ${problems.length === 0 ? "ok" : `${problems.length} problem(s)`})`);
  for (const problem of problems) out(`    ${problem.code}  ${problem.message}`);
  out("  ← 日志是唯一事实来源：持久化、界面、重放都从它派生 / the log is the single source of truth");
  return equal ? 0 : 1;
}

// ── a live run that failed ───────────────────────────────────────────────────────────────────

/** One paragraph (Chinese, then English) on what went wrong and what to do about it. */
export function explain(failure: AgentRunError): string[] {
  const cause = failure.cause instanceof DeepSeekError ? failure.cause : undefined;
  const said = `(${cause?.message ?? failure.message})`;
  const offline = "npm run demo -- --offline";
  switch (cause?.kind) {
    case "authentication":
      return [
        `DeepSeek 拒绝了这个 API key（401）。请检查 DEEPSEEK_API_KEY 是否完整、是否已被删除（https://platform.deepseek.com/api_keys），或离线运行：${offline}。`,
        `DeepSeek refused the API key (401). Check that DEEPSEEK_API_KEY is complete and still active, or run offline: ${offline}. ${said}`,
      ];
    case "insufficient_balance":
      return [
        `账户余额不足（402）。请在 https://platform.deepseek.com/top_up 充值，或离线运行：${offline}。`,
        `The DeepSeek account has no balance left (402). Top it up, or run offline: ${offline}. ${said}`,
      ];
    case "rate_limit":
      return [
        `请求过多（429），SDK 重试后仍被限流。请稍等片刻再试，或离线运行：${offline}。`,
        `Too many requests (429), still limited after the SDK's retries. Wait a moment and try again, or run offline: ${offline}. ${said}`,
      ];
    case "server":
      return [
        `DeepSeek 服务端出错或过载（${cause.status}），重试后仍失败。请稍后再试，或离线运行：${offline}。`,
        `DeepSeek failed or is overloaded (${cause.status}), even after retries. Try again later, or run offline: ${offline}. ${said}`,
      ];
    case "network":
      return [
        `无法连接 DeepSeek。请检查网络、代理和 DEEPSEEK_BASE_URL，或离线运行：${offline}。`,
        `Could not reach DeepSeek. Check the network, any proxy, and DEEPSEEK_BASE_URL, or run offline: ${offline}. ${said}`,
      ];
    case "timeout":
      return [
        `DeepSeek 在时限内没有回答（思考模式有时要想很久）。请稍后再试，或用 DEEPSEEK_TIMEOUT_MS（毫秒）放宽时限，或离线运行：${offline}。`,
        `DeepSeek did not answer in time (thinking mode can take long). Try again later, allow more time with DEEPSEEK_TIMEOUT_MS (milliseconds), or run offline: ${offline}. ${said}`,
      ];
    case "bad_reply":
      return [
        `DeepSeek 回答了 200，但回复的结构不对（缺字段或类型不符），无法当作消息使用。如果 DEEPSEEK_BASE_URL 指向代理，请确认它转发的是 DeepSeek 的接口；也可以离线运行：${offline}。`,
        `DeepSeek answered 200, but the reply is not in the documented shape, so it cannot become a message. If DEEPSEEK_BASE_URL points at a proxy, check that it passes DeepSeek's API through; or run offline: ${offline}. ${said}`,
      ];
    default:
      return [
        `模型调用失败。上面的日志完整保留了失败前发生的一切。可以离线运行：${offline}。`,
        `The model call failed; the log above keeps everything up to the failure. You can run offline: ${offline}. ${said}`,
      ];
  }
}

/** One paragraph (Chinese, then English) on a setting the client refused before sending anything. */
export function explainSetting(error: DeepSeekConfigError): string[] {
  const offline = "npm run demo -- --offline";
  return [
    `设置有误，还没有发出任何请求。请按下面英文说明改正对应的环境变量，或离线运行：${offline}。`,
    `A setting is wrong, so nothing was sent. ${error.message}. Fix it, or run offline: ${offline}.`,
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `npm run demo | head` closes the pipe early: the reader has seen enough, which is not a crash.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
  // Ctrl-C: every event logged so far is already in the --save file (written synchronously), so just say so.
  process.once("SIGINT", () => {
    console.log(`\n${interruptedNote(process.argv.slice(2))}`);
    process.exit(130);
  });
  process.exitCode = await main(process.argv.slice(2), {
    out: (line) => console.log(line),
    env: process.env,
    color: pc.isColorSupported,
  });
}
