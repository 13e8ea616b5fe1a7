// What `runAgent` takes and how it fails, apart from the loop itself (agent-loop.ts). The workbook
// gives these to the learner in step 05.5.
import type { ChatClient } from "../common/deepseek.ts";
import type { Tool } from "../common/tools.ts";
import type { SessionLog } from "./session-types.ts";

export interface RunAgentOptions {
  readonly client: ChatClient;
  readonly tools: readonly Tool[];
  readonly systemPrompt: string;
  readonly userPrompt: string;
  /** The step budget: how many model calls this turn may make. */
  readonly maxSteps?: number;
  /** Continue an existing session with a new turn; a fresh session is made when absent. */
  readonly session?: SessionLog;
  /** Checked before every model call: once aborted, no call is made and the turn ends with its reason. */
  readonly signal?: AbortSignal;
}

/**
 * A step failed — usually the model call (network, 4xx, 5xx), or a reply that does not fit the
 * vocabulary. `session` holds everything logged, up to and including `turn/end { reason: "error" }`.
 */
export class AgentRunError extends Error {
  override readonly name = "AgentRunError";
  constructor(
    message: string,
    readonly session: SessionLog,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
