// What `runAgent` takes and how it fails, apart from the loop itself (agent-loop.ts), and the same for
// its streamed model call (streamed-step.ts). The workbook gives these to the learner in steps 05.5 and 05.8.
import type { ChatClient, ChatRequest, StreamingChatClient } from "../common/deepseek.ts";
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
  /**
   * Stream each model call, logging every chunk as it arrives (step 05.8, streamed-step.ts); the client
   * must then be a StreamingChatClient. Default false: one plain call per step, as in the book's 5.5.
   */
  readonly stream?: boolean;
  /** How many calls a stream that breaks off may take in one step (default 1: no retry). */
  readonly streamAttempts?: number;
  /**
   * Stops the run from outside (Ctrl-C, a log file that can no longer be written): checked before every
   * model call and passed to it. The turn then ends with reason "interrupted".
   */
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

/** What one streamed model call needs (streamed-step.ts, step 05.8). */
export interface StreamedCall {
  readonly session: SessionLog;
  readonly client: StreamingChatClient;
  readonly turn: number;
  readonly step: number;
  /** Everything the request carries besides the messages, which are derived from the log just before the call. */
  readonly request: Omit<ChatRequest, "messages">;
  /** Stops the stream (Ctrl-C); what arrived before stays in the log. */
  readonly signal?: AbortSignal;
  /** How many calls a stream that breaks off may take in this step (default 1: it is not made again). */
  readonly attempts?: number;
}

/** A finished stream that cannot be a message: a tool call whose fragments never said its id or name. */
export class StreamAssemblyError extends Error {
  override readonly name = "StreamAssemblyError";
}
