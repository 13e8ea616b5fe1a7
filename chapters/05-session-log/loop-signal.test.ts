// The run's AbortSignal, and a streamed run end to end: the real DeepSeekClient reading SSE through MSW.
import { describe, expect, test } from "vitest";
import { http, HttpResponse } from "msw";
import { z } from "zod";
import { calculator } from "../common/calculator.ts";
import { DeepSeekClient, type ChatClient } from "../common/deepseek.ts";
import { completion, KEY, mockDeepSeek, sseResponse, sseText, URL_DEFAULT, wireChunkOf } from "../common/deepseek-mock.ts";
import type { AssistantMessage } from "../common/messages.ts";
import { defineTool } from "../common/tools.ts";
import { ScriptedStreamClient, simpleStream } from "../../exercises/05-session-log/stream-arbitraries.ts";
import { runAgent } from "./agent-loop.ts";
import { findLogProblems } from "./invariants.ts";
import { AgentRunError } from "./loop-types.ts";
import type { SessionLog } from "./session-types.ts";

const server = mockDeepSeek();

const callReply: AssistantMessage = {
  role: "assistant",
  content: "",
  reasoning_content: "先调用计算器。",
  tool_calls: [{ id: "call_00_a", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
};
const answerReply: AssistantMessage = { role: "assistant", content: "1 + 2 × 3 = 7。", reasoning_content: "得 7。", tool_calls: [] };
const options = { tools: [calculator], systemPrompt: "You are a calculator.", userPrompt: "1+2*3 等于几？" };

const types = (session: SessionLog) => session.events.map((event) => event.type);
const last = (session: SessionLog) => session.events.at(-1);

async function failedRun(promise: Promise<SessionLog>): Promise<AgentRunError> {
  const error = await promise.then(
    () => expect.unreachable("the run should fail"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentRunError);
  return error as AgentRunError;
}

describe("the signal", () => {
  test("checked before every model call: aborted during a tool, the next step never starts", async () => {
    const controller = new AbortController();
    const slow = defineTool({
      name: "calculator",
      description: "stops the run while it works",
      schema: z.object({ expression: z.string() }),
      execute: () => {
        controller.abort(new Error("Ctrl-C"));
        return "7";
      },
    });
    const client = new ScriptedStreamClient([simpleStream(callReply), simpleStream(answerReply)]);
    const error = await failedRun(runAgent({ ...options, tools: [slow], client, stream: true, signal: controller.signal }));
    expect(types(error.session).slice(-3)).toEqual(["tool/result", "step/end", "turn/end"]);
    expect(last(error.session)?.data).toEqual({ turn: 1, reason: "interrupted", message: "Ctrl-C" });
    expect(client.requests).toHaveLength(1);
  });

  test("passed to a non-streamed call too: the turn ends interrupted, not error", async () => {
    const controller = new AbortController();
    const client: ChatClient = {
      model: "m",
      chat: (_request, callOptions) => {
        controller.abort(new Error("Ctrl-C"));
        return Promise.reject(callOptions?.signal?.reason);
      },
    };
    const error = await failedRun(runAgent({ ...options, client, signal: controller.signal }));
    expect(last(error.session)?.data).toEqual({ turn: 1, reason: "interrupted", message: "Ctrl-C" });
    expect(findLogProblems(error.session.events)).toEqual([]);
  });
});

describe("a streamed run against DeepSeek's wire format (MSW)", () => {
  const wireMessage = (reply: AssistantMessage) => ({
    content: reply.content,
    reasoning_content: reply.reasoning_content,
    ...(reply.tool_calls.length > 0
      ? { tool_calls: reply.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  });

  /** Answers the i-th request with `answer(i)` and keeps every request body. */
  function serve(answer: (i: number) => Response) {
    const bodies: unknown[] = [];
    server.use(
      http.post(URL_DEFAULT, async ({ request }) => {
        bodies.push(await request.json());
        return answer(bodies.length - 1);
      }),
    );
    return bodies;
  }

  test("each request is the non-streamed request plus stream and stream_options, and the log is the streamed shape", async () => {
    const replies = [callReply, answerReply];
    const plainBodies = serve((i) => HttpResponse.json(completion(wireMessage(replies[i] ?? answerReply))));
    const plain = await runAgent({ ...options, client: new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }) });
    server.resetHandlers();
    const streamedBodies = serve((i) => sseResponse(sseText(simpleStream(replies[i] ?? answerReply).chunks.map(wireChunkOf))));
    const streamed = await runAgent({ ...options, client: new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }), stream: true });
    expect(streamedBodies).toEqual(
      plainBodies.map((body) => ({ ...(body as object), stream: true, stream_options: { include_usage: true } })),
    );
    expect(streamed.deriveMessages()).toEqual(plain.deriveMessages());
    expect(types(streamed).filter((type) => type === "assistant/chunk")).toHaveLength(7);
    expect(findLogProblems(streamed.events)).toEqual([]);
  });
});
