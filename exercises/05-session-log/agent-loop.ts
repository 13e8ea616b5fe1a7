// Step 05.5 — runAgent, the logged agent loop (book §5.5 "循环日志化").
// The chapter-02 loop, with its message list replaced by your Session: every step is an append.
// Log, in order: turn/start { turn } (turn = turns already in the session + 1), user/message,
// request/header { header: { model: client.model, system, tools: tools.map(toolSpec) }, reason: "initial" };
// then per step: step/start, call client.chat({ system, tools, messages: session.deriveMessages() }),
// assistant/message (keep reasoning_content), and per tool call tool/call + tool/result (runToolCall
// never throws); step/end in a `finally`. No tool calls → turn/end "completed"; budget used up →
// turn/end "max_steps"; the model call throws → turn/end "error" + message, reject with AgentRunError.
// Run: npx vitest exercises/05-session-log/05.5-agent-loop.test.ts
import type { RunAgentOptions as GivenOptions } from "../../chapters/05-session-log/agent-loop.ts";
// What you will need: your Session, and the tool helpers from the earlier chapters (given).
import type { ChatClient, ChatRequest } from "../../chapters/common/deepseek.ts";
import { messageOf, runToolCall, toolSpec, type Tool } from "../../chapters/common/tools.ts";
import { Session } from "./session.ts";
import { todo } from "./todo.ts";

// Given: the options (client, tools, systemPrompt, userPrompt, maxSteps = 10, session?) — typed with
// your Session rather than the chapter's — and the error a failed model call rejects with.
export interface RunAgentOptions extends Omit<GivenOptions, "session"> {
  /** Continue an existing session with a new turn; make a fresh Session when absent. */
  readonly session?: Session;
}

/** The model call failed; `session` holds everything logged up to and including `turn/end`. */
export class AgentRunError extends Error {
  override readonly name = "AgentRunError";
  constructor(
    message: string,
    readonly session: Session,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export async function runAgent(options: RunAgentOptions): Promise<Session> {
  return todo("05.5", `runAgent: log the turn for "${options.userPrompt}" event by event, turn/start … turn/end`);
}

