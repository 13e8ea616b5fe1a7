// streamReply's attempts: a stream that breaks off is made again while the step has attempts left and
// nobody aborted it; each attempt logs its own chunks, and what the last one leaves is what is logged.
import { describe, expect, test } from "vitest";
import { ScriptedStreamClient, type ScriptedStream } from "../../../exercises/05-session-log/stream-arbitraries.ts";
import { rejectedAs } from "../../../exercises/05-session-log/thrown.ts";
import type { StreamingChatClient } from "../../common/deepseek.ts";
import type { SessionEvent } from "../events.ts";
import { Session } from "../session.ts";
import { streamReply } from "./streamed-step.ts";

const request = { system: "You are a calculator.", tools: [] };
const broken = (text: string, why: string): ScriptedStream => ({ chunks: [{ kind: "text", text }], fail: new Error(why) });

function logged(session: Session) {
  const chunks = session.events.filter((event): event is SessionEvent<"assistant/chunk"> => event.type === "assistant/chunk");
  const messages = session.events.filter((event) => event.type === "assistant/message");
  return { attempts: chunks.map((event) => event.data.attempt), chunkIds: chunks.map((event) => event.id), messages };
}

describe("a stream that breaks off", () => {
  test("is made as many times as attempts allows, then the last attempt's error is rethrown and its text kept", async () => {
    const session = new Session();
    const client = new ScriptedStreamClient([broken("one", "drop 1"), broken("two", "drop 2"), broken("three", "drop 3")]);
    const error = await rejectedAs(Error, streamReply({ session, client, turn: 1, step: 1, request, attempts: 2 }));
    expect(error.message).toBe("drop 2");
    expect(client.requests).toHaveLength(2);
    const { attempts, chunkIds, messages } = logged(session);
    expect(attempts).toEqual([1, 2]);
    expect(messages.map((event) => event.data)).toEqual([
      { content: "two", reasoning_content: null, tool_calls: [], chunk_ids: [chunkIds[1]], interrupted: true },
    ]);
  });

  test("is made once when no attempts are given", async () => {
    const session = new Session();
    const client = new ScriptedStreamClient([broken("one", "drop 1"), broken("two", "drop 2")]);
    expect((await rejectedAs(Error, streamReply({ session, client, turn: 1, step: 1, request }))).message).toBe("drop 1");
    expect(client.requests).toHaveLength(1);
  });

  test("a stream stalled before its first chunk is stopped by the signal: the client is given it, and nothing is logged", async () => {
    const session = new Session();
    const controller = new AbortController();
    const stalled: StreamingChatClient = {
      model: "stand-in",
      chat: () => Promise.reject(new Error("only stream() is called")),
      async *stream(_, options) {
        const signal = options?.signal;
        if (signal === undefined) throw new Error("the stream was not given the signal: an abort could not stop it while it waits");
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
        yield { kind: "text", text: "never reached: the wait above only ends by the abort" };
      },
    };
    const reply = streamReply({ session, client: stalled, turn: 1, step: 1, request, signal: controller.signal });
    controller.abort(new Error("Ctrl-C"));
    expect((await rejectedAs(Error, reply)).message).toBe("Ctrl-C");
    expect(session.events).toEqual([]);
  });

  test("is not made again once aborted, whatever attempts allows", async () => {
    const session = new Session();
    const controller = new AbortController();
    const client = new ScriptedStreamClient([broken("one", "drop 1"), broken("two", "drop 2")]);
    session.subscribe((event) => {
      if (event.type === "assistant/chunk") controller.abort(new Error("Ctrl-C"));
    });
    const error = await rejectedAs(
      Error,
      streamReply({ session, client, turn: 1, step: 1, request, signal: controller.signal, attempts: 3 }),
    );
    expect(error.message).toBe("Ctrl-C");
    expect(client.requests).toHaveLength(1);
    expect(logged(session).messages.map((event) => event.data)).toEqual([
      { content: "one", reasoning_content: null, tool_calls: [], chunk_ids: [0], interrupted: true },
    ]);
  });
});

describe("a finished stream", () => {
  test("logs its message without `interrupted`, reasoning_content null when no reasoning arrived", async () => {
    const session = new Session();
    const client = new ScriptedStreamClient([
      {
        chunks: [
          { kind: "text", text: "2" },
          { kind: "finish", reason: "stop" },
        ],
      },
    ]);
    await streamReply({ session, client, turn: 1, step: 1, request });
    expect(logged(session).messages.map((event) => event.data)).toEqual([
      { content: "2", reasoning_content: null, tool_calls: [], chunk_ids: [0, 1] },
    ]);
  });
});
