// 5.5: the agent loop from chapter 02, with its mutable message list replaced by the session log.
// Every step of the loop is now an append; the messages sent to the model are derived from the log
// just before each call. The order of events for one calculator round trip (12 events):
//   turn/start, user/message, request/header,
//   step/start, assistant/message, tool/call, tool/result, step/end,
//   step/start, assistant/message, step/end, turn/end
import type { ChatClient, ChatRequest } from "../common/deepseek.ts";
import { toolCallOf, type AssistantMessage } from "../common/messages.ts";
import { messageOf, runToolCall, toolSpec, type Tool } from "../common/tools.ts";
import { Session } from "./session.ts";

// Generic in the session so the workbook's stub can use the learner's Session (#private fields make classes nominal).
export interface RunAgentOptions<S = Session> {
  readonly client: ChatClient;
  readonly tools: readonly Tool[];
  readonly systemPrompt: string;
  readonly userPrompt: string;
  /** The step budget: how many model calls this turn may make. */
  readonly maxSteps?: number;
  /** Continue an existing session with a new turn; a fresh session is made when absent. */
  readonly session?: S;
}

/**
 * A step failed — usually the model call (network, 4xx, 5xx), or a reply that does not fit the
 * vocabulary. `session` holds everything logged, up to and including `turn/end { reason: "error" }`.
 */
export class AgentRunError<S = Session> extends Error {
  override readonly name = "AgentRunError";
  constructor(
    message: string,
    readonly session: S, // generic for the same reason as RunAgentOptions
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export async function runAgent({
  client,
  tools,
  systemPrompt,
  userPrompt,
  maxSteps = 10,
  session = new Session(),
}: RunAgentOptions): Promise<Session> {
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new RangeError(`maxSteps must be a positive integer, got ${maxSteps}`);
  }
  const turn = countTurns(session) + 1;
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  // Built before anything is logged: a tool whose schema has no JSON Schema fails here, not
  // halfway through a turn that would then never be closed.
  const request = { system: systemPrompt, tools: tools.map(toolSpec) };

  session.append("turn/start", { turn });
  session.append("user/message", { content: userPrompt });
  // The system prompt and tool specs are not conversation, so they are never messages; they are
  // logged once per turn so that a replay knows exactly what the model was given.
  session.append("request/header", {
    header: { model: client.model, system: request.system, tools: request.tools },
    reason: "initial",
  });

  for (let step = 1; step <= maxSteps; step++) {
    let finished: boolean;
    try {
      finished = await runStep({ session, client, toolsByName, turn, step, request });
    } catch (error) {
      const message = messageOf(error);
      session.append("turn/end", { turn, reason: "error", message });
      throw new AgentRunError(`turn ${turn} failed in step ${step}: ${message}`, session, { cause: error });
    }
    if (finished) {
      session.append("turn/end", { turn, reason: "completed" });
      return session;
    }
  }
  session.append("turn/end", { turn, reason: "max_steps" });
  return session;
}

interface StepContext {
  readonly session: Session;
  readonly client: ChatClient;
  readonly toolsByName: ReadonlyMap<string, Tool>;
  readonly turn: number;
  readonly step: number;
  /** Everything a request carries besides the messages, which are derived afresh for each call. */
  readonly request: Omit<ChatRequest, "messages">;
}

/** One model call and the tools it asks for. Returns true when the model answered without tools. */
async function runStep({ session, client, toolsByName, turn, step, request }: StepContext): Promise<boolean> {
  session.append("step/start", { turn, step });
  try {
    const reply = await client.chat({ ...request, messages: session.deriveMessages() });
    logAssistantMessage(session, reply);
    for (const call of reply.tool_calls) {
      session.append("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments });
      const outcome = await runToolCall(toolsByName, call);
      session.append("tool/result", { call_id: call.id, ...outcome });
    }
    return reply.tool_calls.length === 0;
  } finally {
    // Like the book's `finally`: a step that throws is still closed in the log.
    session.append("step/end", { turn, step });
  }
}

function logAssistantMessage(session: Session, reply: AssistantMessage): void {
  session.append("assistant/message", {
    content: reply.content,
    reasoning_content: reply.reasoning_content ?? null,
    tool_calls: reply.tool_calls.map(toolCallOf),
  });
}

function countTurns(session: Session): number {
  return session.events.filter((event) => event.type === "turn/start").length;
}
