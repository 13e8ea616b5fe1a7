// Decoy for step 05.5: runs each tool directly instead of through runToolCall, so an unknown tool,
// arguments that do not parse or fit the schema, or a tool that throws (1/0) end the whole run
// instead of becoming a tool/result with is_error: true that the model can react to.
import { messageOf, toolSpec } from "../../chapters/common/tools.ts";
import { AgentRunError, type RunAgentOptions } from "../../chapters/05-session-log/agent-loop.ts";
import { Session } from "../../chapters/05-session-log/session.ts";

export { AgentRunError, type RunAgentOptions };

export async function runAgent({
  client,
  tools,
  systemPrompt,
  userPrompt,
  maxSteps = 10,
  session = new Session(),
}: RunAgentOptions): Promise<Session> {
  const turn = session.events.filter((event) => event.type === "turn/start").length + 1;
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const header = { model: client.model, system: systemPrompt, tools: tools.map(toolSpec) };
  session.append("turn/start", { turn });
  session.append("user/message", { content: userPrompt });
  session.append("request/header", { header, reason: "initial" });
  for (let step = 1; step <= maxSteps; step++) {
    session.append("step/start", { turn, step });
    let finished: boolean;
    try {
      const reply = await client.chat({ system: systemPrompt, tools: header.tools, messages: session.deriveMessages() });
      const toolCalls = reply.tool_calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
      session.append("assistant/message", { content: reply.content, reasoning_content: reply.reasoning_content ?? null, tool_calls: toolCalls });
      for (const call of toolCalls) {
        session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
        // DECOY: no runToolCall — every failure below throws out of the step and ends the run.
        const tool = toolsByName.get(call.name);
        if (tool === undefined) throw new Error(`unknown tool "${call.name}"`);
        const content = await tool.execute(tool.schema.parse(JSON.parse(call.arguments)));
        session.append("tool/result", { call_id: call.id, content, is_error: false });
      }
      finished = toolCalls.length === 0;
    } catch (error) {
      session.append("step/end", { turn, step });
      session.append("turn/end", { turn, reason: "error", message: messageOf(error) });
      throw new AgentRunError(`turn ${turn} failed in step ${step}: ${messageOf(error)}`, session, { cause: error });
    }
    session.append("step/end", { turn, step });
    if (finished) {
      session.append("turn/end", { turn, reason: "completed" });
      return session;
    }
  }
  session.append("turn/end", { turn, reason: "max_steps" });
  return session;
}
