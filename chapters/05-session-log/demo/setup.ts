// Setting the demo up: the model it talks to — DeepSeek itself when a key is set, or a recorded run
// replayed offline — with the first lines that say which one it is; and a quiet end when the reader
// stops reading.
import { DeepSeekClient, type ChatClient } from "../../common/deepseek.ts";
import { DeepSeekConfigError, hasApiKey, publicURL, readSettings, type Env } from "../../common/settings.ts";
import { scrubKey } from "../../common/text.ts";
import { messageOf } from "../../common/tools.ts";
import { fixturePath, isStreamed, loadFixture, type Fixture } from "../../../fixtures/fixture.ts";

/** `npm run demo | head` closes the pipe early: the reader has seen enough, which is not a crash. */
export function endQuietlyWhenPipeCloses(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
}

// ── the model: live or offline ─────────────────────────────────────────────────────────────────

export interface Connection {
  readonly client: ChatClient;
  /** The first lines of the output: live or offline, and how to switch. */
  readonly banner: readonly string[];
  /** Takes the key out of a line about to be printed. Nothing printed should hold it; this makes sure. */
  readonly scrub: (line: string) => string;
  /** Offline: why the replay did not match its recording, or undefined when it did. */
  readonly mismatch: () => string | undefined;
  readonly close: () => void;
}

/** What an offline run replays: a fixture (or part of one, see demo/follow-up.ts) and how to name it. */
export interface Recording {
  readonly file: string;
  readonly fixture: Fixture;
  /** Which part of the file, when it is a part: [中文, English], e.g. ["第 2 轮", "turn 2"]. */
  readonly part?: readonly [zh: string, en: string];
}

/** How long the offline replay of a streamed recording lasts at most: it feels live, and ends soon. */
export const REPLAY_MS = 2500;

/** Whether the demo calls DeepSeek itself: a key is set and `--offline` is not. */
export function goesLive(offline: boolean, env: Env): boolean {
  return hasApiKey(env) && !offline;
}

/**
 * Live when a key is set and `--offline` is not; otherwise a replay of the scenario's recording (or of
 * the recording given). A setting the client refuses comes back as the error, for the demo to explain.
 */
export async function connect(
  offline: boolean,
  env: Env,
  scenario: string | Recording,
  replayMs = 0,
): Promise<Connection | DeepSeekConfigError> {
  try {
    if (!hasApiKey(env)) return await connectOffline(scenario, "no key", replayMs);
    return offline ? await connectOffline(scenario, "--offline", replayMs) : connectLive(env);
  } catch (error) {
    if (error instanceof DeepSeekConfigError) return error;
    throw error;
  }
}

function connectLive(env: Env): Connection {
  const settings = readSettings(env);
  const client = new DeepSeekClient({ ...settings, env });
  // publicURL: a proxy's user:password@ or an ?api_key= in DEEPSEEK_BASE_URL is not for the screen.
  const where = publicURL(client.baseURL);
  return {
    client,
    banner: [
      `在线调用 ${client.model}，地址 ${where} / Live: calling ${client.model} at ${where}`,
      "改为离线回放录制的流量 / To replay a recording instead: npm run demo -- --offline",
    ],
    scrub: (line) => scrubKey(line, settings.apiKey ?? ""),
    mismatch: () => undefined,
    close: () => {},
  };
}

/**
 * `why` is why this run is offline, which decides how to tell the learner to go live. A streamed
 * recording is replayed at its recorded pace, sped up to last at most `replayMs` (0: all at once).
 */
async function connectOffline(scenario: string | Recording, why: "no key" | "--offline", replayMs: number): Promise<Connection> {
  // `file` as shown to the learner; fixturePath is the absolute one.
  const { file, fixture, part } =
    typeof scenario === "string"
      ? { file: `fixtures/data/${scenario}.json`, fixture: loadFixture(fixturePath(scenario)), part: undefined }
      : scenario;
  const [zhName, enName] = part === undefined ? [`${file} `, file] : [`${file} ${part[0]}`, `${file}, ${part[1]}`];
  const { meta } = fixture;
  const [zh, en] =
    meta.provenance === "recorded"
      ? [`${meta.model} 在 ${meta.recorded_at.slice(0, 10)} 录制的流量`, `recorded from ${meta.model} on ${meta.recorded_at.slice(0, 10)}`]
      : ["按 DeepSeek 文档手写的流量（synthetic，不是真实录制）", "synthetic: hand-written in DeepSeek's wire format, not recorded"];
  const goLive =
    why === "no key"
      ? "要调用真实模型，请设置 DEEPSEEK_API_KEY 再运行 npm run demo / To call the live model, set DEEPSEEK_API_KEY and run: npm run demo"
      : "要调用真实模型，去掉 --offline 再运行 npm run demo / To call the live model, run without --offline: npm run demo";
  // The real client and SDK still run; MSW answers their HTTP requests from the fixture. MSW is loaded
  // here, by the runs that replay: a live run, a --load or a usage error never pays for it.
  const { startReplay } = await import("../../../fixtures/replay.ts");
  const replay = startReplay(fixture, { source: enName, pace: paceFor(fixture, replayMs) });
  return {
    // No settings are read offline: the replay needs no key, and the environment's are not for it.
    client: new DeepSeekClient({ apiKey: "offline-replay", baseURL: replay.baseURL, model: meta.model, env: {} }),
    banner: [`离线回放 ${zhName}中${zh} / Offline replay of ${enName} (${en})`, goLive],
    scrub: (line) => line,
    mismatch: () => {
      try {
        replay.verify();
        return undefined;
      } catch (error) {
        return messageOf(error);
      }
    },
    close: () => replay.close(),
  };
}

/** The factor on a fixture's recorded pacing that makes its streams last at most `replayMs` in all. */
function paceFor(fixture: Fixture, replayMs: number): number {
  const streams = fixture.exchanges.map(({ response }) => (isStreamed(response) ? (response.stream.at(-1)?.at_ms ?? 0) : 0));
  const recorded = streams.reduce((sum, ms) => sum + ms, 0);
  return recorded === 0 ? 0 : Math.min(1, replayMs / recorded);
}
