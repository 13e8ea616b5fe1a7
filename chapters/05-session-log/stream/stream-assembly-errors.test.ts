// A finished stream whose tool call cannot be put together says which part never came: the id or the
// name, at which index. A later fragment that repeats a call's id or name changes nothing.
import { describe, expect, test } from "vitest";
import type { StreamChunk } from "../events.ts";
import { assembleReply, StreamAssemblyError } from "./stream-assembler.ts";

const fragment = (index: number, parts: Partial<Extract<StreamChunk, { kind: "tool_call" }>>): StreamChunk => ({
  kind: "tool_call",
  index,
  arguments: "",
  ...parts,
});

function assemblyError(chunks: readonly StreamChunk[]): StreamAssemblyError {
  try {
    assembleReply(chunks);
  } catch (error) {
    if (error instanceof StreamAssemblyError) return error;
    throw error;
  }
  throw new Error("expected a StreamAssemblyError, but the chunks assembled");
}

describe("a tool call that cannot be put together", () => {
  test("without an id says the id is missing, at its index", () => {
    expect(assemblyError([fragment(3, { name: "calculator", arguments: "{}" })]).message).toBe(
      "the streamed tool call at index 3 never said its id",
    );
  });

  test("with an id but no name says the name is missing, at its index", () => {
    expect(assemblyError([fragment(0, { id: "call_0", arguments: "{}" })]).message).toBe(
      "the streamed tool call at index 0 never said its name",
    );
  });
});

describe("fragments after the first", () => {
  test("repeating another id or name change nothing: the first fragment names the call", () => {
    const reply = assembleReply([
      fragment(0, { id: "call_0", name: "calculator", arguments: '{"a":' }),
      fragment(0, { id: "call_9", name: "shell", arguments: "1}" }),
    ]);
    expect(reply.tool_calls).toEqual([{ id: "call_0", name: "calculator", arguments: '{"a":1}' }]);
  });
});
