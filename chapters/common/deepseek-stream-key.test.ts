// The key cut across fields of a stream (issue 28, item 8): a server that echoes the request may put the
// key's start at the end of one string and its rest at the start of the next — the reasoning and the
// answer, a tool call's id and its name, a name in usage — and each alone looks like nothing. The stream's
// strings are read in the order they arrived as one text, so the key is found wherever the cut falls.
import { describe, expect, test } from "vitest";
import type { StreamChunk } from "../05-session-log/events.ts";
import { DeepSeekClient, type ChatRequest } from "./deepseek.ts";
import { captureStream, KEY, mockDeepSeek, sseResponse, sseText, wireChunkOf } from "./deepseek-mock.ts";
import { readStream } from "./deepseek-stream.ts";

const server = mockDeepSeek();
const request: ChatRequest = { system: "s", tools: [], messages: [{ role: "user", content: "1+2*3 等于几？" }] };

/** Everything the stream yielded, and what it threw at the end (undefined when it finished). */
async function drain(events: readonly (Record<string, unknown> | string)[], done = true) {
  captureStream(server, () => sseResponse(sseText(events, done)));
  const chunks: StreamChunk[] = [];
  try {
    for await (const chunk of new DeepSeekClient({ apiKey: KEY, maxRetries: 0 }).stream(request)) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (t: string): StreamChunk => ({ kind: "text", text: t });
const reasoning = (t: string): StreamChunk => ({ kind: "reasoning", text: t });
const call = (fields: { id?: string; name?: string; arguments: string }): StreamChunk => ({ kind: "tool_call", index: 0, ...fields });
const usage = (fields: Record<string, unknown>): StreamChunk => ({ kind: "usage", usage: fields });
const finish = (reason = "stop"): StreamChunk => ({ kind: "finish", reason });

/** Where the key is cut: after its first character, inside its first 8 (a secret of their own), right after them, and late. */
const cuts = [1, 5, 8, 30];

/** Every 6-character piece of the key that `chunks` hold. */
const piecesOfKey = (chunks: readonly StreamChunk[]) =>
  Array.from({ length: KEY.length - 5 }, (_, at) => KEY.slice(at, at + 6)).filter((piece) => JSON.stringify(chunks).includes(piece));

describe("a key cut between two neighbouring strings of a stream, whatever their fields", () => {
  const cases: { between: string; sent: (head: string, tail: string) => StreamChunk[]; got: StreamChunk[] }[] = [
    {
      between: "the reasoning and the answer",
      sent: (head, tail) => [reasoning(`想想 ${head}`), text(`${tail} 好`), finish()],
      got: [reasoning("想想 [redacted]"), text(" 好"), finish()],
    },
    {
      between: "the answer and a tool call's id",
      sent: (head, tail) => [text(`key ${head}`), call({ id: `${tail}_0`, name: "calculator", arguments: "{}" }), finish("tool_calls")],
      got: [text("key [redacted]"), call({ id: "_0", name: "calculator", arguments: "{}" }), finish("tool_calls")],
    },
    {
      between: "a tool call's id and its name",
      sent: (head, tail) => [call({ id: `call_${head}`, name: tail, arguments: "{}" }), finish("tool_calls")],
      got: [call({ id: "call_[redacted]", name: "", arguments: "{}" }), finish("tool_calls")],
    },
    {
      between: "a tool call's name and its arguments",
      sent: (head, tail) => [call({ id: "call_0", name: `calc ${head}`, arguments: `${tail}{}` }), finish("tool_calls")],
      got: [call({ id: "call_0", name: "calc [redacted]", arguments: "{}" }), finish("tool_calls")],
    },
    {
      between: "a later fragment's id and the name of usage's first field",
      sent: (head, tail) => [
        call({ id: "call_0", name: "calculator", arguments: "{}" }),
        call({ id: `call_0 ${head}`, arguments: "" }),
        usage({ [tail]: 1, total_tokens: 9 }),
        finish("tool_calls"),
      ],
      got: [
        call({ id: "call_0", name: "calculator", arguments: "{}" }),
        call({ id: "call_0 [redacted]", arguments: "" }),
        usage({ "": 1, total_tokens: 9 }),
        finish("tool_calls"),
      ],
    },
    {
      between: "a name in usage and its value",
      sent: (head, tail) => [text("7"), finish(), usage({ [`by ${head}`]: `${tail}!`, total_tokens: 9 })],
      got: [text("7"), finish(), usage({ "by [redacted]": "!", total_tokens: 9 })],
    },
    {
      between: "the finish reason and usage",
      sent: (head, tail) => [text("7"), finish(`stop ${head}`), usage({ [tail]: 1 })],
      got: [text("7"), finish("stop [redacted]"), usage({ "": 1 })],
    },
  ];

  for (const { between, sent, got } of cases) {
    test(`between ${between}: [redacted] where the key began, nothing of it in the string after, everything else kept`, async () => {
      for (const cut of cuts) {
        const { chunks, error } = await drain(sent(KEY.slice(0, cut), KEY.slice(cut)).map(wireChunkOf));
        expect(error, `cut after ${cut}`).toBeUndefined();
        expect(piecesOfKey(chunks), `cut after ${cut}: read the stream's strings as one text, in the order they came`).toEqual([]);
        expect(chunks, `cut after ${cut}`).toEqual(got);
      }
    });
  }

  test("a key cut into three strings (an id, a name, the arguments) is found as well", async () => {
    const sent = [call({ id: `call_${KEY.slice(0, 5)}`, name: KEY.slice(5, 12), arguments: `${KEY.slice(12)}{}` }), finish("tool_calls")];
    const { chunks } = await drain(sent.map(wireChunkOf));
    expect(chunks).toEqual([call({ id: "call_[redacted]", name: "", arguments: "{}" }), finish("tool_calls")]);
  });

  test("between the answer and the server's error message: the error chunk and the failure hold none of it", async () => {
    const overloaded = { error: { message: `${KEY.slice(6)}, server overloaded`, type: "server_error" } };
    const { chunks, error } = await drain([wireChunkOf(text(`半句 ${KEY.slice(0, 6)}`)), overloaded], false);
    expect(chunks).toEqual([text("半句 [redacted]"), { kind: "error", message: ", server overloaded" }]);
    expect(error).toMatchObject({ kind: "server", message: "DeepSeek sent an error mid-stream: , server overloaded" });
  });
});

describe("a key cut across one text's pieces, with other chunks between them", () => {
  test("is found: the assembled message joins the pieces, so each text is also read on its own", async () => {
    const sent = [
      text(`key ${KEY.slice(0, 5)}`),
      call({ id: "call_0", name: "calculator", arguments: "{}" }),
      text(`${KEY.slice(5)} ok`),
      finish(),
    ];
    const { chunks } = await drain(sent.map(wireChunkOf));
    expect(chunks).toEqual([text("key "), call({ id: "call_0", name: "calculator", arguments: "{}" }), text("[redacted] ok"), finish()]);
  });

  test("what a text's scrubber still holds comes out before the finish chunk, in the reasoning, the answer and a tool call's arguments", async () => {
    const sent = [
      reasoning("yes"),
      text("no s"),
      call({ id: "call_0", name: "calculator", arguments: '{"a":"s' }),
      finish("tool_calls"),
      usage({ total_tokens: 9 }),
    ];
    const { chunks } = await drain(sent.map(wireChunkOf));
    expect(chunks).toEqual([
      reasoning("ye"),
      text("no "),
      call({ id: "call_0", name: "calculator", arguments: '{"a":"' }),
      reasoning("s"),
      text("s"),
      { kind: "tool_call", index: 0, arguments: "s" },
      finish("tool_calls"),
      usage({ total_tokens: 9 }),
    ]);
  });
});

describe("holding back", () => {
  test("a chunk is handed on when it arrives, unless the strings so far end in what may begin the key", async () => {
    const chunks: StreamChunk[] = [];
    const seen: number[] = [];
    // The SDK's chunks, as readStream pulls them: before each one after the first, how many chunks the reader has been handed.
    async function* wire() {
      const sent = [text("答案是 "), text(KEY.slice(0, 5)), text(`${KEY.slice(5)} 与 7`), finish()];
      for (const [at, chunk] of sent.entries()) {
        if (at > 0) seen.push(chunks.length);
        yield wireChunkOf(chunk);
      }
    }
    const call = { apiKey: KEY, baseURL: "https://api.deepseek.com", timeoutMs: 1000, tries: 1 };
    for await (const chunk of readStream(wire(), call)) chunks.push(chunk);
    expect(seen, "the first chunk at once; the key's start held (not even an empty text handed on) until its rest came").toEqual([1, 1, 3]);
    expect(chunks).toEqual([text("答案是 "), text("[redacted]"), text(" 与 7"), finish()]);
  });
});
