// `npm run view`: see a session log as a timeline page (chapters/05-session-log/timeline/).
//   npm run view -- --scenario calculator [--out FILE]    replay a fixture scenario offline, write the page
//   npm run view -- --load FILE [--out FILE]              a saved log: JSONL (demo --save) or a JSON array
//   npm run view -- --live [--scenario NAME] [--port N]   run the loop and watch it in a browser
//                                                         (live with DEEPSEEK_API_KEY, offline otherwise)
import path from "node:path";
import { readFlags, type Command, type Flags } from "../../common/flags.ts";
import { isMain, runMain, shown, UsageError } from "../../common/program.ts";
import { root } from "../../common/root.ts";
import { DeepSeekConfigError, type Env } from "../../common/settings.ts";
import { explainSystemError, isSystemError } from "../../common/system-errors.ts";
import { visible } from "../../common/text.ts";
import { explainSetting } from "./explain.ts";
import { explainYourThrow, mineOpening, tellYourThrow } from "./mine.ts";
import { needsTheHook, runAgainWithTheHook } from "./mine-again.ts";
import { connect, type Connection } from "./setup.ts";
import { AgentRunError } from "../loop-types.ts";
import { accountLines, accountOfLog, type LogAccount } from "../disk/log-account.ts";
import { explainLogFileError } from "../disk/explain-log-file.ts";
import { LogFileError } from "../disk/log-file-types.ts";
import { readLogFile } from "../disk/log-file.ts";
import { refuseOutput } from "./output-file.ts";
import { Session } from "../session.ts";
import { startLiveServer } from "../timeline/live-server.ts";
import { largePageNote } from "../timeline/page.ts";
import { cannotWritePage, writePage } from "./page.ts";
import { findScenario, scenarios, UnknownScenarioError, type Scenario } from "../../../fixtures/scenarios.ts";
import { runScenario } from "./scenarios.ts";

export interface ViewIO {
  readonly out: (line: string) => void;
  /** Receives a usage error; `out` when not given. */
  readonly err?: (line: string) => void;
  readonly env: Env;
  /** Where pages go unless --out says otherwise. */
  readonly outDir?: string;
  /** Called with the live page's address once it is being served (the tests open it from here). */
  readonly onServing?: (url: string) => void;
}

/** The command line, read by the same flag table as the demo's (chapters/common/flags.ts), which writes `--help`. */
const COMMAND = {
  usage: ["npm run view -- --scenario NAME | --load FILE [--out FILE]", "npm run view -- --live [--scenario NAME] [--port N]"],
  flags: {
    scenario: {
      type: "string",
      value: "<name>",
      help: "回放这个场景，默认 calculator / the fixture scenario to run (default calculator)",
    },
    load: { type: "string", value: "<file>", help: "已保存的日志：JSONL 或 JSON 数组 / a saved log: JSONL or a JSON array" },
    out: { type: "string", value: "<file>", help: "页面写到哪里 / where to write the page" },
    live: { type: "boolean", help: "运行这一轮并在浏览器里实时观看 / run the turn and watch it live" },
    port: { type: "string", value: "<n>", help: "--live 的端口，0 是任一空闲端口 / the port for --live, 0 for any free one" },
    mine: { type: "boolean", help: "已完成的练习步骤用你的文件代替答案 / run your own files for the steps you have done" },
  },
} as const satisfies Command<Flags>;

const seeHelp = "npm run view -- --help";

/** Resolves with the exit code: 0, or 2 after a usage error that the flag table reports itself. */
export async function viewCommand(argv: readonly string[], io: ViewIO): Promise<number> {
  const args = readFlags(argv, COMMAND, { out: io.out, err: io.err ?? io.out });
  if (typeof args === "number") return args;
  const { values } = args;
  const scenario = values.scenario ?? "calculator";
  // --mine: your files were swapped in before this file loaded (scripts/learner/mine.ts); say which, and which
  // this run does not use (streamed-step.ts, when the scenario does not stream). `npm run view --mine`
  // (no --) leaves --mine to npm: said, not run on the answers instead.
  const streams = values.load === undefined && scenarios.some((known) => known.name === scenario && known.stream === true);
  const mine = mineOpening(values.mine === true, io.env, "npm run view -- --mine", streams);
  if (typeof mine === "string") throw new UsageError(mine);
  for (const line of mine) io.out(line);
  if (values.live) {
    if (values.load !== undefined || values.out !== undefined)
      throw new UsageError(
        `--live 不写文件也不读日志，不和 --load 或 --out 一起用，用法见 ${seeHelp} / --live writes no file and loads none; see ${seeHelp}`,
      );
    await watchLive(scenario, readPort(values.port), io);
    return 0;
  }
  if (values.load !== undefined && values.scenario !== undefined)
    throw new UsageError(`--load 和 --scenario 只能用一个，用法见 ${seeHelp} / --load and --scenario do not go together; see ${seeHelp}`);
  if (values.port !== undefined)
    throw new UsageError(`--port 只和 --live 一起用，用法见 ${seeHelp} / --port goes with --live; see ${seeHelp}`);
  // A page is derived from the log: it may replace an earlier page, never the log (output-file.ts).
  const refused = refuseOutput("--out", values.out, [values.load]);
  if (refused !== undefined) {
    (io.err ?? io.out)(`用法错误 / Usage error: ${refused}`);
    return 2;
  }
  // An --out that cannot be written is said before the turn is run for it.
  const unwritable = values.out === undefined ? undefined : cannotWritePage(values.out);
  if (unwritable !== undefined) throw new UsageError(unwritable);
  const { session, name, source, account } = values.load === undefined ? await replayForPage(scenario, io) : loadLog(values.load, io);
  const file = values.out ?? path.join(io.outDir ?? defaultOutDir, `timeline-${name}.html`);
  const page = writePage(session.events, file, "--out", [values.load], { source, account: account?.lines });
  if ("refused" in page) throw new UsageError(page.refused);
  const { written } = page;
  const counts = `${session.events.length} events, ${session.deriveMessages().length} messages`;
  io.out(`时间线页面 / Timeline page: ${shown(written)} (${counts})`);
  const large = largePageNote(session.events.length);
  if (large !== null) io.out(large);
  return 0;
}

const defaultOutDir = path.join(root, ".workbook");

function readPort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new UsageError(
      `--port 要是 0 到 65535 之间的数（0 表示任一空闲端口），收到的是 "${text}" / --port must be a number from 0 to 65535 (0: any free port), got "${text}"`,
    );
  return port;
}

// ── a saved log ──────────────────────────────────────────────────────────────────────────────────

/**
 * A saved log, JSONL (05.7, `npm run demo -- --save`) or a JSON array, told as `demo --load` tells it
 * (log-account.ts): in the terminal, and on the page above the timeline. The page shows the log as
 * `demo --load` does: the file's events, and the repair the account tells of, appended in memory only.
 */
function loadLog(file: string, io: ViewIO): { session: Session; name: string; source: string; account: LogAccount } {
  try {
    const loaded = readLogFile(file);
    const account = accountOfLog(file, loaded, { repairTo: "memory" });
    for (const line of accountLines(account)) io.out(visible(line, { lines: true }));
    for (const { type, data } of account.closing) loaded.session.append(type, data);
    return {
      session: loaded.session,
      name: path.basename(file, path.extname(file)),
      source: `log file ${shown(path.resolve(file))}`,
      account,
    };
  } catch (error) {
    // A file the system would not open is said as every such refusal is (common/system-errors.ts).
    const refusal = error instanceof LogFileError && error.code === "UNREADABLE" ? error.cause : error;
    if (isSystemError(refusal)) throw new UsageError(explainSystemError(refusal, ["无法读入", "Cannot load"], file));
    // A LogFileError names the file (and the line) itself; its message may quote the file: shown, not obeyed.
    if (error instanceof LogFileError) throw new UsageError(visible(explainLogFileError(error, ["无法读入", "Cannot load"])));
    throw error;
  }
}

// ── a scenario's turn, replayed from its fixture or live (the demo's connection: setup.ts) ──

/** The demo's connection, or a usage error explaining a refused setting in both languages. */
function connectTo(scenario: Scenario, offline: boolean, env: Env): Connection {
  const connection = connect(offline, env, scenario.name);
  if (connection instanceof DeepSeekConfigError) throw new UsageError(explainSetting(connection).lines.join("\n"));
  return connection;
}

function scenarioNamed(name: string): Scenario {
  try {
    return findScenario(name);
  } catch (error) {
    if (error instanceof UnknownScenarioError) throw new UsageError(`没有叫 "${name}" 的场景，可选的场景列在后面 / ${error.message}`);
    throw error;
  }
}

/**
 * Runs the turn into `session`; a failed model call is part of the log, so it only comes back as text.
 * A throw from a learner's file (--mine) is not the model's story: it goes on, to be told as the demo tells it.
 */
async function runTurn(scenario: Scenario, connection: Connection, session: Session): Promise<string | undefined> {
  try {
    await runScenario(scenario, connection.client, session);
  } catch (error) {
    if (!(error instanceof AgentRunError) || explainYourThrow(error, "view") !== undefined) throw error;
    return error.message;
  }
  return undefined;
}

/** Runs and checks the replay: a page of a run that strayed from its recording would mislead. */
async function settle(scenario: Scenario, connection: Connection, session: Session): Promise<string | undefined> {
  try {
    const failure = await runTurn(scenario, connection, session);
    const mismatch = connection.mismatch();
    if (mismatch !== undefined) throw new Error(mismatch);
    return failure;
  } finally {
    connection.close();
  }
}

async function replayForPage(name: string, io: ViewIO): Promise<{ session: Session; name: string; source: string; account?: LogAccount }> {
  const scenario = scenarioNamed(name);
  const connection = connectTo(scenario, true, io.env);
  const session = new Session();
  const failure = await settle(scenario, connection, session);
  if (failure !== undefined) io.out(`这一轮出错结束 / The turn ended with an error (shown on the page): ${visible(failure)}`);
  return { session, name, source: `scenario ${name}: ${connection.banner[0]}` };
}

// ── live: serve the page, run the loop when it connects, stop when the turn has ended ───────────

async function watchLive(name: string, port: number, io: ViewIO): Promise<void> {
  const scenario = scenarioNamed(name);
  const connection = connectTo(scenario, false, io.env); // live when a key is set, as in the demo
  const session = new Session();
  const server = await startLiveServer(session, { port, source: `scenario ${name}: ${connection.banner[0]}` });
  const stop = () => {
    io.out("已停止 / Stopped (Ctrl-C)");
    void server.close().finally(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  try {
    io.out(`实时时间线 / Live timeline: ${server.url}`);
    io.out("在浏览器中打开它：页面连上后开始运行，这一轮结束后服务器停止（Ctrl-C 随时停止）");
    io.out("(open it in a browser: the run starts when the page connects; the server stops when the turn ends, or on Ctrl-C)");
    io.onServing?.(server.url);
    await server.firstPage;
    io.out(`运行中 / Running: ${connection.banner[0]}`);
    const failure = await settle(scenario, connection, session);
    await server.finish();
    const end = failure === undefined ? "" : `, with an error: ${visible(failure)}`;
    io.out(`这一轮结束，服务器已停止 / The turn ended (${session.events.length} events${end}); the server has stopped`);
  } finally {
    process.off("SIGINT", stop);
    await server.close(); // already stopped after finish(); here for a run that threw
  }
}

const argv = process.argv.slice(2);
if (isMain(import.meta.url) && needsTheHook(argv, process.env)) {
  // --mine started without the resolve hook (`tsx chapters/05-session-log/demo/view.ts --mine`): run again with it.
  process.exitCode = await runAgainWithTheHook(process.argv[1] ?? "", argv);
} else if (isMain(import.meta.url)) {
  await runMain(async () => {
    // Whatever a line quotes from a log, a model or a file, the terminal shows it and does not obey it.
    const print = (write: (line: string) => void) => (line: string) => write(visible(line, { lines: true }));
    const io = { out: print(console.log), err: print(console.error), env: process.env };
    // --mine: a file of yours that threw is named with its step and line (exit 1), as demo --mine does.
    process.exitCode = await viewCommand(argv, io).catch((error: unknown) => tellYourThrow(error, console.log, process.env, "view"));
  });
}
