// A model's stream cannot take over the terminal either: a server (the loopback stand-in) streams
// escape sequences in every field of a chunk — reasoning, answer, a tool call's id, name and arguments,
// usage, the finish reason, an error chunk's message — and not one byte the demo prints, through ①'s
// text as it arrives (`write`) or through any line (`out`), is a character the terminal would obey.
import { afterEach, describe, expect, test } from "vitest";
import type { StreamChunk } from "../events.ts";
import { sseText, wireChunkOf } from "../../common/deepseek-mock.ts";
import { startStandIn, type ScriptedReply, type StandIn } from "../../../fixtures/standin.ts";
import { runInProcess } from "../testing/demo-testing.ts";

const KEY = "sk-hostile-stream-4f3e2d1c";
/**
 * A title change, a line erased, an OSC 52 clipboard write, a one-character CSI (C1), a bidi override,
 * and a line of its own that would pass for the demo's.
 */
const HOSTILE = "\x1b]0;pwned\x07\r\x1b[2K\x1b]52;c;cm0gLXJmIH4vKgo=\x07\x9b2J\u202eevil\n  FAKE: ok";
/** What a terminal obeys instead of showing: every control, format and separator character but "\n". */
const OBEYED = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** A streamed reply as the stand-in sends it, chunk by chunk. */
function streamed(chunks: readonly (StreamChunk | Record<string, unknown>)[], done = true): ScriptedReply {
  const events = chunks.map((chunk) => ("kind" in chunk ? wireChunkOf(chunk as StreamChunk) : chunk));
  return {
    status: 200,
    content_type: "text/event-stream; charset=utf-8",
    stream: [{ at_ms: 0, text: sseText(events, done) }],
    end: "closed",
  };
}

/** The first character the terminal would obey, with the text around it, or undefined when there is none. */
function firstObeyed(output: string): string | undefined {
  const at = output.search(OBEYED);
  return at < 0 ? undefined : JSON.stringify(output.slice(Math.max(0, at - 60), at + 20));
}

describe("a stream with escape sequences in every field of its chunks", () => {
  let standIn: StandIn | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });

  test("every byte the demo prints, streamed text and lines alike, shows the escapes instead of obeying them", async () => {
    const call: StreamChunk = {
      kind: "tool_call",
      index: 0,
      id: `call_${HOSTILE}`,
      name: `calc${HOSTILE}`,
      arguments: `{"x":"${HOSTILE}"}`,
    };
    const first = streamed([
      { kind: "reasoning", text: `想一想${HOSTILE}` },
      { kind: "text", text: `先算${HOSTILE}` },
      call,
      { kind: "usage", usage: { [`tokens${HOSTILE}`]: HOSTILE, total_tokens: 9 } },
      { kind: "finish", reason: `tool_calls${HOSTILE}` },
    ]);
    // The second step's stream breaks off with an error chunk, whose message the failure quotes.
    const second = streamed(
      [{ kind: "text", text: `答案${HOSTILE}` }, { error: { message: `overloaded${HOSTILE}`, type: "server_error" } }],
      false,
    );
    standIn = await startStandIn({ apiKey: KEY, replies: [first, second] });
    const written: string[] = [];
    const { code, text } = await runInProcess(
      [],
      { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL },
      { write: (piece) => void written.push(piece) },
    );
    expect(code, text).toBe(1);
    expect(standIn.remaining(), "both streams were sent").toBe(0);
    expect(firstObeyed(written.join("")), "①'s streamed text: print model text through visible()").toBeUndefined();
    expect(firstObeyed(text), "a printed line: print every string from a chunk through visible()").toBeUndefined();
    const forged = `${written.join("")}\n${text}`.split("\n").filter((line) => /^ {0,3}FAKE/.test(line));
    expect(forged, "a line break the model sent never starts a line of the demo's own").toEqual([]);
    // The hostile text did reach the screen, written out: the name in ①'s chunk-run line and the finish reason.
    expect(text).toContain("tool_call calc\\x1b]0;pwned\\x07\\r\\x1b[2K");
    expect(text).toContain("finish tool_calls\\x1b]0;pwned\\x07");
    expect(written.join("")).toContain("\\x9b2J\\u202eevil");
  });
});
