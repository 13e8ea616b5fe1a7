// 5.5: the agent loop from chapter 02, with its mutable message list replaced by the session log.
// Every step of the loop is now an append; the messages sent to the model are derived from the log
// just before each call. The order of events for one calculator round trip (12 events):
//   turn/start, user/message, request/header,
//   step/start, assistant/message, tool/call, tool/result, step/end,
//   step/start, assistant/message, step/end, turn/end
// With `stream: true` each model call is streamed instead (streamed-step.ts, step 05.8).
import type { ChatClient, ChatRequest, StreamingChatClient } from "../common/deepseek.ts";
import { toolCallOf, type AssistantMessage } from "../common/messages.ts";
import { messageOf, runToolCall, toolSpec, type Tool } from "../common/tools.ts";
import { AgentRunError, type RunAgentOptions } from "./loop-types.ts";
import { Session } from "./session.ts";
import type { SessionLog } from "./session-types.ts";
import { streamReply } from "./stream/streamed-step.ts";

export async function runAgent({
  client,
  tools,
  systemPrompt,
  userPrompt,
  maxSteps = 10,
  session = new Session(),
  stream = false,
  streamAttempts = 1,
  signal,
}: RunAgentOptions): Promise<SessionLog> {
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new RangeError(`maxSteps must be a positive integer, got ${maxSteps}`);
  }
  if (!Number.isInteger(streamAttempts) || streamAttempts < 1) {
    throw new RangeError(`streamAttempts must be a positive integer, got ${streamAttempts}`);
  }
  const streaming = stream ? streamingClient(client) : undefined;
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
      signal?.throwIfAborted();
      finished = await runStep({ session, client, streaming, streamAttempts, signal, toolsByName, turn, step, request });
    } catch (error) {
      // Stopped from outside, whatever the call threw on its way out: say so, not "error".
      const interrupted = signal?.aborted === true;
      const message = messageOf(interrupted ? signal?.reason : error);
      session.append("turn/end", { turn, reason: interrupted ? "interrupted" : "error", message });
      const what = interrupted ? "was interrupted" : "failed";
      throw new AgentRunError(`turn ${turn} ${what} in step ${step}: ${message}`, session, { cause: error });
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
  readonly session: SessionLog;
  readonly client: ChatClient;
  /** The same client when the run streams (`stream: true`), else undefined. */
  readonly streaming: StreamingChatClient | undefined;
  readonly streamAttempts: number;
  readonly signal: AbortSignal | undefined;
  readonly toolsByName: ReadonlyMap<string, Tool>;
  readonly turn: number;
  readonly step: number;
  /** Everything a request carries besides the messages, which are derived afresh for each call. */
  readonly request: Omit<ChatRequest, "messages">;
}

/** One model call and the tools it asks for. Returns true when the model answered without tools. */
async function runStep(context: StepContext): Promise<boolean> {
  const { session, toolsByName, turn, step } = context;
  session.append("step/start", { turn, step });
  try {
    const reply = await callModel(context);
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

/** The step's model call, logged: streamed chunk by chunk (05.8), or one plain call as in 5.5. */
async function callModel({ session, client, streaming, streamAttempts, signal, turn, step, request }: StepContext) {
  if (streaming) return streamReply({ session, client: streaming, turn, step, request, signal, attempts: streamAttempts });
  const reply = await client.chat({ ...request, messages: session.deriveMessages() }, { signal });
  logAssistantMessage(session, reply);
  return reply;
}

function streamingClient(client: ChatClient): StreamingChatClient {
  if (!("stream" in client) || typeof client.stream !== "function") {
    throw new TypeError("stream: true needs a client that can stream (a StreamingChatClient with a stream() method)");
  }
  return client as StreamingChatClient;
}

function logAssistantMessage(session: SessionLog, reply: AssistantMessage): void {
  session.append("assistant/message", {
    content: reply.content,
    reasoning_content: reply.reasoning_content ?? null,
    tool_calls: reply.tool_calls.map(toolCallOf),
  });
}

function countTurns(session: SessionLog): number {
  return session.events.filter((event) => event.type === "turn/start").length;
}
