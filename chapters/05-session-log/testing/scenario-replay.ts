// For the tests: replay one scenario's fixture through runAgent, our DeepSeekClient and the real openai
// SDK (fixtures/replay.ts answers its HTTP requests), and hand back what happened.
import { DeepSeekClient, type ChatClient } from "../../common/deepseek.ts";
import { fixturePath, loadFixture, type Fixture } from "../../../fixtures/fixture.ts";
import { startReplay } from "../../../fixtures/replay.ts";
import { findScenario } from "../../../fixtures/scenarios.ts";
import { TEST_KEY } from "../../../fixtures/test-helpers.ts";
import { runScenario } from "../demo/scenarios.ts";
import { AgentRunError } from "../loop-types.ts";
import type { SessionLog } from "../session-types.ts";

export interface ReplayOutcome {
  readonly session: SessionLog;
  /** The AgentRunError, when the run failed. */
  readonly error?: AgentRunError;
  /** What `replay.verify()` threw, if anything. */
  readonly mismatch?: unknown;
}

export async function replayScenario(
  name: string,
  options: { fixture?: Fixture; wrap?: (client: ChatClient) => ChatClient; session?: SessionLog } = {},
): Promise<ReplayOutcome> {
  const fixture = options.fixture ?? loadFixture(fixturePath(name));
  const replay = startReplay(fixture, { source: `fixtures/data/${name}.json` });
  try {
    const client = new DeepSeekClient({ apiKey: TEST_KEY, baseURL: replay.baseURL, model: fixture.meta.model });
    const outcome = await runScenario(findScenario(name), options.wrap ? options.wrap(client) : client, options.session).then(
      (session) => ({ session }),
      (error: unknown): ReplayOutcome => {
        if (error instanceof AgentRunError) return { session: error.session, error };
        throw error;
      },
    );
    try {
      replay.verify();
      return outcome;
    } catch (mismatch) {
      return { ...outcome, mismatch };
    }
  } finally {
    replay.close();
  }
}

export function eventTypes(session: SessionLog): string[] {
  return session.events.map((event) => event.type);
}
