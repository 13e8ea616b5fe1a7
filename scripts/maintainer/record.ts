// Refreshes fixtures from the live DeepSeek API: runs a scenario for real, writes down every HTTP
// exchange, checks the run has the scenario's shape, and proves the file replays before writing it.
//
//   npm run record -- calculator            one scenario (several names are fine)
//   npm run record -- --all                 every scenario that can be recorded live
//   npm run record -- --all --out <dir>     write somewhere else (the tests do)
//
// Needs DEEPSEEK_API_KEY; honours DEEPSEEK_BASE_URL, DEEPSEEK_MODEL and DEEPSEEK_TIMEOUT_MS, read and
// checked by chapters/common/settings.ts as the client and the demo read them. The key never reaches a file:
// secret headers are not written, the base URL is saved without user:password@ or a query string,
// and the finished text is searched for the key (or its first 8 characters) before writing.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { VERSION as SDK_VERSION } from "openai/version";
import { DeepSeekClient } from "../../chapters/common/deepseek.ts";
import { readFlags, usage, type Command, type Flags } from "../../chapters/common/flags.ts";
import { DeepSeekConfigError, publicURL, readSettings, type DeepSeekSettings, type Env } from "../../chapters/common/settings.ts";
import { cannotWrite, explainSystemError, isSystemError, SYSTEM_ERROR_EXIT } from "../../chapters/common/system-errors.ts";
import { holdsKey, scrubKey, visible } from "../../chapters/common/text.ts";
import { messageOf } from "../../chapters/common/tools.ts";
import { AgentRunError } from "../../chapters/05-session-log/loop-types.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import {
  dataDir,
  fixturePath,
  formatFixture,
  isStreamed,
  parseFixture,
  type Exchange,
  type Fixture,
  type FixtureMeta,
} from "../../fixtures/fixture.ts";
import { createRecorder } from "../../fixtures/recorder.ts";
import { startReplay } from "../../fixtures/replay.ts";
import { findScenario, scenarios, UnknownScenarioError, type Scenario } from "../../fixtures/scenarios.ts";
import { runScenario, shapeProblem } from "../../chapters/05-session-log/demo/scenarios.ts";

/** For the 401 scenario: a key DeepSeek cannot know. It must not reach the file either. */
const INVALID_KEY = "sk-workbook-deliberately-invalid-0000";

class RecordingError extends Error {
  override readonly name = "RecordingError";
}

/** The DeepSeek settings, with the key known to be set, and where to write. */
interface Settings extends DeepSeekSettings {
  readonly apiKey: string;
  readonly outDir: string;
}

/**
 * Records one scenario. Nothing in the output directory changes until everything has passed: the
 * run has the scenario's end and shape, the text holds no key, and the fixture replays. Only then is
 * the file written, under a temporary name renamed over the old one, so a failure, an exception or
 * Ctrl-C leaves the fixture already there untouched.
 */
async function record(scenario: Scenario, settings: Settings): Promise<string> {
  const apiKey = scenario.record.how === "invalid-key" ? INVALID_KEY : settings.apiKey;
  const recorder = createRecorder(settings.baseURL);
  const client = new DeepSeekClient({ ...settings, apiKey, fetch: recorder.fetch });
  const session = await runScenario(scenario, client).catch((error: unknown): SessionLog => {
    if (error instanceof AgentRunError) return error.session;
    throw error;
  });
  await recorder.settled(); // every streamed body written down to its end
  refuseWrongShape(scenario, session, recorder.exchanges);

  const file = fixturePath(scenario.name, settings.outDir);
  const text = formatFixture({
    meta: recordedMeta(scenario, client.model, settings.baseURL, recorder.exchanges),
    exchanges: [...recorder.exchanges],
  });
  for (const secret of [settings.apiKey, INVALID_KEY]) {
    if (holdsKey(text, secret)) throw new RecordingError(`refusing to write ${file}: the text contains an API key (or part of one)`);
  }
  // Replay exactly what would be written: the text, loaded back as the tests will load it.
  await replayOnce(scenario, parseFixture(text, file), file);
  writeAtomically(file, text);
  return file;
}

/** A live model may not do what the scenario is about; such a recording would only break the tests. */
function refuseWrongShape(scenario: Scenario, session: SessionLog, exchanges: readonly Exchange[]): void {
  const end = turnEnd(session);
  if (end.reason !== scenario.expectedEnd) {
    const detail = end.message ? ` (${end.message})` : "";
    throw new RecordingError(
      `the live run ended with "${end.reason}"${detail}, but the scenario needs "${scenario.expectedEnd}"; nothing written`,
    );
  }
  const misfit = shapeProblem(scenario, session, exchanges);
  if (misfit !== undefined) {
    throw new RecordingError(`the live run does not have the shape of "${scenario.name}": ${misfit}; nothing written`);
  }
}

/** Readers see the old file or the new one, never half of one: rename replaces a file in one step. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * What a recorded file says about itself. The base URL goes in as publicURL shows it. The client
 * already refuses a URL with user:password@ or a query string; this is the second line of defence,
 * because the file is committed.
 */
export function recordedMeta(scenario: Scenario, model: string, baseURL: string, exchanges: readonly Exchange[]): FixtureMeta {
  return {
    scenario: scenario.name,
    description: scenario.description,
    model,
    base_url: publicURL(baseURL),
    provenance: "recorded",
    recorded_at: new Date().toISOString(),
    sdk_version: SDK_VERSION,
    ...answeredAs(exchanges, model),
  };
}

/** Notes the model the API says answered, when it is not the one we asked for. */
function answeredAs(exchanges: readonly Exchange[], asked: string): { note?: string } {
  const models = new Set<string>();
  for (const { response } of exchanges) {
    // A streamed reply names the model in each chunk; the first says it.
    const text = isStreamed(response) ? firstChunk(response.stream.map((piece) => piece.text).join("")) : response.body;
    const model: unknown = response.status === 200 ? (safeJson(text) as { model?: unknown } | undefined)?.model : undefined;
    if (typeof model === "string" && model !== asked) models.add(model);
  }
  return models.size > 0 ? { note: `asked for ${asked}; the API answered as ${[...models].join(", ")}` } : {};
}

/** The proof that the file is usable: the same scenario, replayed from it, matches every request. */
async function replayOnce(scenario: Scenario, fixture: Fixture, file: string): Promise<void> {
  const replay = startReplay(fixture, { baseURL: fixture.meta.base_url, source: file });
  try {
    // Nothing from the environment: the replay is checked exactly as the tests will run it.
    const client = new DeepSeekClient({
      apiKey: "sk-replay",
      baseURL: replay.baseURL,
      model: fixture.meta.model,
      env: {},
    });
    await runScenario(scenario, client).catch((error: unknown) => {
      if (!(error instanceof AgentRunError)) throw error;
    });
    replay.verify();
  } finally {
    replay.close();
  }
}

function turnEnd(session: SessionLog): { reason?: unknown; message?: unknown } {
  return session.events.findLast((event) => event.type === "turn/end")?.data ?? {};
}

function shortPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") ? file : relative;
}

/** The JSON of an SSE transcript's first `data:` line. */
function firstChunk(transcript: string): string {
  return /^data: (\{.*)$/m.exec(transcript)?.[1] ?? "";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The command line: scenario names, or --all. */
const COMMAND = {
  usage: ["npm run record -- <scenario>... [--out <dir>]", "npm run record -- --all [--out <dir>]"],
  flags: {
    all: { type: "boolean", help: "录制所有能在线录制的场景 / every scenario that can be recorded live" },
    out: { type: "string", value: "<dir>", help: "写到别的目录（测试用）/ write somewhere else (the tests do)" },
  },
  positionals: true,
} as const satisfies Command<Flags>;

const NO_KEY = [
  "没有设置 DEEPSEEK_API_KEY。录制要调用真实的 DeepSeek API，所以需要你的 key：",
  "DEEPSEEK_API_KEY is not set. Recording calls the live DeepSeek API, so it needs your key:",
  "  DEEPSEEK_API_KEY=sk-... npm run record -- --all",
  "什么都没有录制；fixtures/data 里已有的 fixture 照样能离线使用，例如：",
  "Nothing was recorded. The fixtures already in fixtures/data keep working offline, as in:",
  "  npm run demo -- --offline",
].join("\n");

/** Every setting checked before any scenario runs: a wrong one is explained once, not per scenario. */
function readRecordSettings(env: Env, outDir: string): Settings | number {
  let settings: DeepSeekSettings;
  try {
    settings = readSettings(env);
  } catch (error) {
    if (!(error instanceof DeepSeekConfigError)) throw error;
    console.error(`${error.zh}\n${error.message}\n什么都没有录制 / Nothing was recorded.`);
    return 1;
  }
  if (settings.apiKey === undefined) {
    console.error(NO_KEY);
    return 1;
  }
  return { ...settings, apiKey: settings.apiKey, outDir };
}

/** The command, callable in process (the tests do): returns the exit code. */
export async function main(argv: readonly string[], env: Env): Promise<number> {
  const args = readFlags(argv, COMMAND, { out: console.log, err: console.error });
  if (typeof args === "number") return args;
  const { values, positionals } = args;
  if (!values.all && positionals.length === 0) {
    for (const line of [...usage(COMMAND), `scenarios: ${scenarios.map((s) => s.name).join(", ")}`]) console.error(line);
    return 2;
  }
  const settings = readRecordSettings(env, values.out ?? dataDir);
  if (typeof settings === "number") return settings;
  let chosen: readonly Scenario[];
  try {
    chosen = values.all ? scenarios : positionals.map(findScenario);
  } catch (error) {
    if (!(error instanceof UnknownScenarioError)) throw error;
    console.error(error.message);
    return 2;
  }

  // A folder that cannot take the files is said before any call is made (and paid for).
  const first = chosen[0];
  const refused =
    first === undefined
      ? undefined
      : cannotWrite(fixturePath(first.name, settings.outDir), ["无法写入 fixture", "Cannot write the fixture"]);
  if (refused !== undefined) {
    console.error(`${refused}\n什么都没有录制 / Nothing was recorded.`);
    return SYSTEM_ERROR_EXIT;
  }

  let failures = 0;
  for (const scenario of chosen) {
    if (scenario.record.how === "impossible") {
      console.log(`skip   ${scenario.name}: cannot be recorded live (${scenario.record.why}); its fixture stays synthetic`);
      if (!values.all) failures++; // asked for by name, and not done
      continue;
    }
    try {
      const file = await record(scenario, settings);
      console.log(`ok     ${scenario.name}: wrote ${shortPath(file)} (replayed before writing)`);
    } catch (error) {
      failures++;
      const said = isSystemError(error) ? explainSystemError(error) : messageOf(error);
      console.error(`FAILED ${scenario.name}: ${visible(scrubKey(said, settings.apiKey), { lines: true })}`);
    }
  }
  return failures === 0 ? 0 : 1;
}

// Run as a program (npm run record); imported, it only lends its helpers (the tests use recordedMeta).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
