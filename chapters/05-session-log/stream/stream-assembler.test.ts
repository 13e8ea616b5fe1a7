// The assembler: a finished stream gives exactly the non-streamed message, however it was cut; an
// interrupted one keeps only what the user saw.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { contentChunksArb, streamedReplyArb } from "../../../exercises/05-session-log/stream-arbitraries.ts";
import type { StreamChunk } from "../events.ts";
import { assembleInterrupted, assembleReply, StreamAssemblyError } from "./stream-assembler.ts";

const text = (t: string): StreamChunk => ({ kind: "text", text: t });
const reasoning = (t: string): StreamChunk => ({ kind: "reasoning", text: t });

describe("assembleReply", () => {
  test("any split of a reply into chunks (empty deltas, halves of an emoji, interleaved calls) assembles to that reply", () => {
    fc.assert(
      fc.property(streamedReplyArb, ({ reply, chunks }) => {
        expect(assembleReply(chunks)).toEqual(reply);
      }),
      { numRuns: 300 },
    );
  });

  test("every reasoning delta is kept, not only the last (the SDK's .stream() helper keeps the last)", () => {
    const reply = assembleReply([reasoning("先算"), reasoning("乘法"), reasoning(""), text("7")]);
    expect(reply.reasoning_content).toBe("先算乘法");
  });

  test("tool-call fragments are joined by index: later fragments carry no id", () => {
    const reply = assembleReply([
      { kind: "tool_call", index: 1, id: "call_01_b", name: "calculator", arguments: '{"expression":' },
      { kind: "tool_call", index: 0, id: "call_00_a", name: "calculator", arguments: '{"expr' },
      { kind: "tool_call", index: 1, arguments: '"2*3"}' },
      { kind: "tool_call", index: 0, arguments: 'ession":"1+2"}' },
    ]);
    expect(reply.tool_calls).toEqual([
      { id: "call_00_a", name: "calculator", arguments: '{"expression":"1+2"}' },
      { id: "call_01_b", name: "calculator", arguments: '{"expression":"2*3"}' },
    ]);
  });

  test('no text chunk gives content null; an empty one gives ""', () => {
    expect(assembleReply([reasoning("r")]).content).toBeNull();
    expect(assembleReply([text("")]).content).toBe("");
    expect(assembleReply([text("a")]).reasoning_content).toBeNull();
  });

  test("usage, finish and error chunks add nothing to the message", () => {
    const reply = assembleReply([text("a"), { kind: "usage", usage: { total_tokens: 3 } }, { kind: "finish", reason: "stop" }]);
    expect(reply).toEqual({ role: "assistant", content: "a", reasoning_content: null, tool_calls: [] });
  });

  test("a tool call whose fragments never name it is a StreamAssemblyError naming its index", () => {
    expect(() => assembleReply([{ kind: "tool_call", index: 2, arguments: "{}" }])).toThrow(
      new StreamAssemblyError("the streamed tool call at index 2 never said its id"),
    );
    expect(() => assembleReply([{ kind: "tool_call", index: 0, id: "call_00_x", arguments: "{}" }])).toThrow(/index 0 never said its name/);
  });
});

describe("assembleInterrupted", () => {
  test("keeps the text and reasoning seen so far, exactly, and drops tool-call fragments", () => {
    const left = assembleInterrupted([
      reasoning("先算乘法，"),
      reasoning("再算加法"),
      text(" 答案是"),
      { kind: "tool_call", index: 0, id: "call_00_a", name: "calculator", arguments: '{"expr' },
    ]);
    expect(left).toEqual({ role: "assistant", content: " 答案是", reasoning_content: "先算乘法，再算加法", tool_calls: [] });
  });

  test("nothing to keep gives null: no chunks, only whitespace, or only tool-call fragments", () => {
    expect(assembleInterrupted([])).toBeNull();
    expect(assembleInterrupted([text(" \n"), reasoning("\t")])).toBeNull();
    expect(assembleInterrupted([{ kind: "tool_call", index: 0, id: "call_00_a", name: "calculator", arguments: "{" }])).toBeNull();
  });

  test('whitespace-only text beside real reasoning is not kept: content is "", so the next request stays valid', () => {
    expect(assembleInterrupted([reasoning("想一想"), text("  ")])).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: "想一想",
      tool_calls: [],
    });
  });

  test("cut after any chunk, it holds exactly the non-whitespace text and reasoning that had arrived", () => {
    fc.assert(
      fc.property(
        streamedReplyArb
          .chain(({ reply }) => contentChunksArb(reply))
          .chain((chunks) => fc.tuple(fc.constant(chunks), fc.nat(chunks.length))),
        ([chunks, cut]) => {
          const seen = chunks.slice(0, cut);
          const join = (kind: string) => seen.flatMap((c) => (c.kind === kind && "text" in c ? [c.text] : [])).join("");
          const [seenText, seenReasoning] = [join("text"), join("reasoning")];
          const left = assembleInterrupted(seen);
          if (!/\S/.test(seenText) && !/\S/.test(seenReasoning)) expect(left).toBeNull();
          else
            expect(left).toEqual({
              role: "assistant",
              content: /\S/.test(seenText) ? seenText : "",
              reasoning_content: /\S/.test(seenReasoning) ? seenReasoning : null,
              tool_calls: [],
            });
        },
      ),
      { numRuns: 200 },
    );
  });
});
