// Tools as chapters 02–04 built them: a name, a description, a zod schema for the arguments, and
// `execute`. The model never sees the zod schema itself, only the JSON Schema derived from it.
import { z } from "zod";
import type { ToolCall } from "./messages.ts";

export interface Tool<Args = unknown> {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType<Args>;
  execute(args: Args): string | Promise<string>;
}

/** What a request tells the model about one tool (and what `request/header` records). */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** Declares a tool; the generic ties `execute`'s argument type to the schema. */
export function defineTool<Args>(tool: Tool<Args>): Tool<Args> {
  return tool;
}

export function toolSpec(tool: Tool): ToolSpec {
  // DeepSeek wants a plain `{ type: "object", ... }` at the top; the `$schema` key is noise to it.
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.schema, { io: "input" });
  return { name: tool.name, description: tool.description, parameters };
}

/** The outcome of one tool call, in the shape a `tool/result` event records. */
export interface ToolOutcome {
  readonly content: string;
  readonly is_error: boolean;
}

/**
 * Runs one call the model asked for. Every way it can go wrong — an unknown tool, arguments that
 * are not JSON, arguments that do not fit the schema, a tool that throws — comes back as an error
 * outcome the model can read and react to, never as an exception that would end the run.
 */
export async function runToolCall(toolsByName: ReadonlyMap<string, Tool>, call: ToolCall): Promise<ToolOutcome> {
  const tool = toolsByName.get(call.name);
  if (tool === undefined) {
    const known = [...toolsByName.keys()].join(", ") || "none";
    return failure(`unknown tool "${call.name}" (available: ${known})`);
  }
  let parsedArguments: unknown;
  try {
    parsedArguments = JSON.parse(call.arguments);
  } catch {
    // Our own words, not the JSON parser's: its message differs between Node versions, and this text
    // is sent to the model, so it must not change under recorded fixtures.
    return failure(`arguments for ${call.name} are not valid JSON: ${JSON.stringify(call.arguments)}`);
  }
  const checked = tool.schema.safeParse(parsedArguments);
  if (!checked.success) {
    return failure(`arguments for ${call.name} do not match its schema: ${z.prettifyError(checked.error)}`);
  }
  try {
    return { content: await tool.execute(checked.data), is_error: false };
  } catch (error) {
    return failure(`${call.name} failed: ${messageOf(error)}`);
  }
}

function failure(content: string): ToolOutcome {
  return { content: `Error: ${content}`, is_error: true };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
