import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, messageOf, runToolCall, toolSpec, type Tool } from "./tools.ts";

const echo = defineTool({
  name: "echo",
  description: "Repeats a word a number of times.",
  schema: z.object({ word: z.string(), times: z.number().int().positive() }),
  execute: ({ word, times }) => word.repeat(times),
});
const failing = defineTool({
  name: "failing",
  description: "Always throws.",
  schema: z.object({}),
  execute: () => {
    throw "a thrown string, not an Error"; // tools written by others may throw anything
  },
});
const tools = new Map<string, Tool>([
  ["echo", echo as Tool],
  ["failing", failing as Tool],
]);
const call = (name: string, args: string) => ({ id: "call_1", name, arguments: args });

describe("runToolCall: every failure is an outcome the model can read, never an exception", () => {
  it("runs a call whose arguments fit the schema", async () => {
    expect(await runToolCall(tools, call("echo", '{"word":"ab","times":2}'))).toEqual({
      content: "abab",
      is_error: false,
    });
  });

  it("an unknown tool names itself and the tools there are", async () => {
    const outcome = await runToolCall(tools, call("nope", "{}"));
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toMatch(/^Error: unknown tool "nope" \(available: echo, failing\)$/);
    expect((await runToolCall(new Map(), call("nope", "{}"))).content).toMatch(/available: none/);
  });

  it("arguments that are not JSON are quoted back", async () => {
    const outcome = await runToolCall(tools, call("echo", "{word: ab}"));
    expect(outcome).toEqual({ content: 'Error: arguments for echo are not valid JSON: "{word: ab}"', is_error: true });
  });

  it("arguments that do not fit the schema say so, naming the field and what it should be", async () => {
    const outcome = await runToolCall(tools, call("echo", '{"word":"ab","times":0}'));
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toMatch(/^Error: arguments for echo do not match its schema: /);
    expect(outcome.content, "zod's own words, pointing at the field").toContain("times");
  });

  it("a tool that throws anything, even a string, becomes an error outcome with its message", async () => {
    expect(await runToolCall(tools, call("failing", "{}"))).toEqual({
      content: "Error: failing failed: a thrown string, not an Error",
      is_error: true,
    });
  });
});

describe("toolSpec and messageOf", () => {
  it("a tool spec is the JSON Schema of its arguments, without the $schema key DeepSeek does not want", () => {
    const spec = toolSpec(echo as Tool);
    expect(spec.name).toBe("echo");
    expect(spec.description).toBe("Repeats a word a number of times.");
    expect(spec.parameters).toMatchObject({ type: "object", required: ["word", "times"] });
    expect(spec.parameters).not.toHaveProperty("$schema");
  });

  it("the spec describes what the model may send: a field with a default is not required", () => {
    const withDefault = defineTool({
      name: "round",
      description: "Rounds a number.",
      schema: z.object({ x: z.number(), digits: z.number().default(0) }),
      execute: ({ x, digits }) => x.toFixed(digits),
    });
    expect(toolSpec(withDefault as Tool).parameters).toMatchObject({ required: ["x"] });
  });

  it("messageOf reads an Error's message and turns anything else into text", () => {
    expect(messageOf(new Error("boom"))).toBe("boom");
    expect(messageOf(42)).toBe("42");
  });
});
