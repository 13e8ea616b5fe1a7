// Step 05.5 — runAgent, the logged agent loop (book §5.5 "循环日志化").
// The chapter-02 loop, with its message list replaced by your Session: every step is an append.
// First, before any append: maxSteps must be a positive integer (else RangeError), and build the
// request's tools (tools.map(toolSpec) throws for a schema with no JSON Schema) — a turn that
// starts must end. Then log, in order: turn/start { turn } (turn = turns already in the session
// + 1), user/message, request/header { header: { model: client.model, system, tools: tools.map(toolSpec) }, reason: "initial" };
// then per step: step/start, call client.chat({ system, tools, messages: session.deriveMessages() }),
// assistant/message (keep reasoning_content; `?? null` when absent — undefined is not JSON), and per tool call tool/call + tool/result (runToolCall
// never throws); step/end in a `finally`. No tool calls → turn/end "completed"; budget used up →
// turn/end "max_steps"; the model call throws → turn/end "error" + messageOf(error) (the client's
// message, already scrubbed of the API key), reject with AgentRunError whose cause is that error.
// Run: npx vitest exercises/05-session-log/05.5-agent-loop.test.ts
import {
  AgentRunError as GivenAgentRunError,
  type RunAgentOptions as GivenOptions,
} from "../../chapters/05-session-log/agent-loop.ts";
// What you will need: your Session, and the tool helpers from the earlier chapters (given).
import type { ChatClient, ChatRequest } from "../../chapters/common/deepseek.ts";
import { messageOf, runToolCall, toolSpec, type Tool } from "../../chapters/common/tools.ts";
import { Session } from "./session.ts";
import { todo } from "./todo.ts";

// Given: the chapter's options (client, tools, systemPrompt, userPrompt, maxSteps = 10, session?)
// and the error a failed model call rejects with, both typed with your Session instead of the
// chapter's: `throw new AgentRunError(message, session, { cause: error })`.
export type RunAgentOptions = GivenOptions<Session>;
export type AgentRunError = GivenAgentRunError<Session>;
export const AgentRunError = GivenAgentRunError<Session>;

export async function runAgent(options: RunAgentOptions): Promise<Session> {
  return todo("05.5", `runAgent: log the turn for "${options.userPrompt}" event by event, turn/start … turn/end`);
}

