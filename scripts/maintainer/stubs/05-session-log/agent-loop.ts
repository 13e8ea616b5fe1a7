// Step 05.5 — runAgent, the logged agent loop (book §5.5 "循环日志化").
// The chapter-02 loop, with its message list replaced by your Session: every step is an append.
//
// Before anything is logged (a turn that starts must also end):
//   - maxSteps must be a positive integer, else throw a RangeError;
//   - build the request's tools with tools.map(toolSpec): it throws for a schema with no JSON Schema.
// Then log, in this order:
//   turn/start         { turn }  — turn = the turns already in the session + 1
//   user/message       { content: userPrompt }
//   request/header     { header: { model: client.model, system, tools }, reason: "initial" }
//   for each step, 1 … maxSteps:
//     step/start       { turn, step }
//                      then call client.chat({ system, tools, messages: session.deriveMessages() })
//     assistant/message  the reply, with reasoning_content kept (`?? null`: undefined is not JSON)
//     tool/call, tool/result  for each tool call in the reply (runToolCall never throws)
//     step/end         { turn, step } — in a `finally`, so a step that throws is closed too
//   turn/end           { turn, reason }, where reason is
//     "completed"      the reply asked for no tool: resolve with the session
//     "max_steps"      the budget is used up: resolve with the session too
//     "error"          the model call threw: add `message: messageOf(error)` (the client's message,
//                      already scrubbed of the API key), then reject with an AgentRunError whose
//                      cause is that error.
// Run: npx vitest exercises/05-session-log/05.5-agent-loop.test.ts
// Given: the options RunAgentOptions (client, tools, systemPrompt, userPrompt, maxSteps = 10, session?)
// and the error a failed model call rejects with: `throw new AgentRunError(message, session, { cause: error })`;
// from chapter 02 (chapters/common/tools.ts): toolSpec, runToolCall and messageOf.
import { messageOf, runToolCall, toolSpec } from "../../chapters/common/tools.ts";
import { AgentRunError, type RunAgentOptions } from "../../chapters/05-session-log/loop-types.ts";
import type { SessionLog } from "../../chapters/05-session-log/session-types.ts";
import { todo } from "./todo.ts";

export async function runAgent(options: RunAgentOptions): Promise<SessionLog> {
  return todo(
    "05.5",
    `runAgent：把“${options.userPrompt}”这一轮逐条记成事件，从 turn/start 到 turn/end`,
    `runAgent: log the turn for "${options.userPrompt}" event by event, turn/start … turn/end`,
  );
}
