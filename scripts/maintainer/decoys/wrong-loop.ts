// The 05.5 decoys' runAgent: the chapter's loop rewritten without its helpers, so that each
// plausible mistake is one switch. Every switch off, it logs what the chapter's loop logs; each
// loop-*.ts decoy turns on exactly one.
import { AgentRunError, type RunAgentOptions } from "../../../chapters/05-session-log/loop-types.ts";
import { Session } from "../../../chapters/05-session-log/session.ts";
import { toolCallOf, type AssistantMessage, type ToolCall } from "../../../chapters/common/messages.ts";
import { messageOf, runToolCall, toolSpec, type Tool, type ToolOutcome } from "../../../chapters/common/tools.ts";
import type { SessionLog } from "../../../chapters/05-session-log/session-types.ts";

export interface LoopMistakes {
  /** No `finally`: a step whose model call throws is never closed with step/end. */
  readonly skipStepEndOnError?: boolean;
  /** The chapter-02 habit: the system prompt is also logged as the turn's first user/message. */
  readonly systemAsMessage?: boolean;
  /** Tools run directly instead of through runToolCall, so a failing tool throws out of the step. */
  readonly toolsWithoutRunToolCall?: boolean;
  /** reasoning_content copied as is: a reply that leaves it out logs undefined, which is not JSON. */
  readonly reasoningWithoutNull?: boolean;
  /** The try holds the model call only: an append after it that throws leaves the step open and the turn unended. */
  readonly tryAroundModelCallOnly?: boolean;
}

export function wrongLoop(mistakes: LoopMistakes): (options: RunAgentOptions) => Promise<SessionLog> {
  const runTool = mistakes.toolsWithoutRunToolCall ? runToolBare : runToolCall;
  return async (options) => {
    const { client, systemPrompt, maxSteps = 10, session = new Session() } = options;
    if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`maxSteps must be a positive integer, got ${maxSteps}`);
    const turn = session.events.filter((event) => event.type === "turn/start").length + 1;
    const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
    const request = { system: systemPrompt, tools: options.tools.map(toolSpec) };
    session.append("turn/start", { turn });
    if (mistakes.systemAsMessage) session.append("user/message", { content: systemPrompt });
    session.append("user/message", { content: options.userPrompt });
    session.append("request/header", { header: { model: client.model, ...request }, reason: "initial" });
    for (let step = 1; step <= maxSteps; step++) {
      session.append("step/start", { turn, step });
      /** Logs the reply and runs its tools; true when the model answered without tools. */
      const logReply = async (reply: AssistantMessage): Promise<boolean> => {
        const toolCalls = reply.tool_calls.map(toolCallOf);
        const reasoning = mistakes.reasoningWithoutNull ? reply.reasoning_content : (reply.reasoning_content ?? null);
        session.append("assistant/message", {
          content: reply.content,
          reasoning_content: reasoning,
          tool_calls: toolCalls,
        });
        for (const call of toolCalls) {
          session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
          session.append("tool/result", { call_id: call.id, ...(await runTool(toolsByName, call)) });
        }
        return toolCalls.length === 0;
      };
      let reply: AssistantMessage;
      let finished = false;
      try {
        reply = await client.chat({ ...request, messages: session.deriveMessages() });
        if (!mistakes.tryAroundModelCallOnly) finished = await logReply(reply);
      } catch (error) {
        if (!mistakes.skipStepEndOnError) session.append("step/end", { turn, step });
        session.append("turn/end", { turn, reason: "error", message: messageOf(error) });
        throw new AgentRunError(`turn ${turn} failed in step ${step}: ${messageOf(error)}`, session, { cause: error });
      }
      // DECOY (tryAroundModelCallOnly): logged after the try, so an append that throws here skips step/end and turn/end.
      if (mistakes.tryAroundModelCallOnly) finished = await logReply(reply);
      session.append("step/end", { turn, step });
      if (finished) {
        session.append("turn/end", { turn, reason: "completed" });
        return session;
      }
    }
    session.append("turn/end", { turn, reason: "max_steps" });
    return session;
  };
}

/** No runToolCall: an unknown tool, arguments that do not parse or fit, or a tool that throws all throw. */
async function runToolBare(toolsByName: ReadonlyMap<string, Tool>, call: ToolCall): Promise<ToolOutcome> {
  const tool = toolsByName.get(call.name);
  if (tool === undefined) throw new Error(`unknown tool "${call.name}"`);
  return { content: await tool.execute(tool.schema.parse(JSON.parse(call.arguments))), is_error: false };
}
