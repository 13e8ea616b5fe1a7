// DeepSeek's reply, checked against a schema before it becomes our `AssistantMessage`. The SDK parses
// the JSON but checks none of it, so a proxy or a changed API can hand us any shape; each field the
// loop relies on is checked here, and a bad one is named by its path.
import { z } from "zod";
import type { AssistantMessage } from "./messages.ts";
import { DeepSeekError } from "./deepseek-errors.ts";
import { clip, scrubEveryString } from "./text.ts";

// Each schema's error is what the field should be; `badReply` adds where, and what it is instead.
const should = (be: string) => ({ error: be });
const text = z.string(should("a string"));
const textOrNull = z
  .string(should("a string or null"))
  .nullish()
  .transform((value) => value ?? null);

/** A tool call is never dropped: the model would then wait for a result that no one sends. */
const toolCallSchema = z
  .object(
    {
      id: text,
      type: z.literal("function", should('"function"')),
      function: z.object({ name: text, arguments: z.string(should("a string (JSON text)")) }, should("an object with name and arguments")),
    },
    should("an object"),
  )
  .transform((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));

const messageSchema = z.object(
  {
    content: textOrNull,
    tool_calls: z
      .array(toolCallSchema, should("an array"))
      .nullish()
      .transform((calls) => calls ?? []),
    reasoning_content: textOrNull,
  },
  should("an object"),
);

// The order of the keys is the order of the checks: the first problem found is the one reported.
const completionSchema = z.object(
  { choices: z.array(z.object({ message: messageSchema }, should("an object")), should("an array")) },
  should("a JSON object"),
);

/** The reply as a message, or a DeepSeekError: bad_reply naming the field, or empty_reply. */
export function parseReply(completion: unknown): AssistantMessage {
  const parsed = completionSchema.safeParse(completion, { reportInput: true });
  if (!parsed.success) throw badReply(parsed.error.issues[0]);
  const choice = parsed.data.choices[0];
  if (choice === undefined) {
    throw new DeepSeekError("DeepSeek replied without a message (the response has no choices)", "empty_reply");
  }
  const { content, reasoning_content, tool_calls } = choice.message;
  // The same rule as the projection's: with no text, no reasoning ("" is none) and no call, there
  // is nothing to log or send back.
  if (content === null && !reasoning_content && tool_calls.length === 0) {
    throw new DeepSeekError("DeepSeek replied with an empty message (no content, reasoning or tool calls)", "empty_reply");
  }
  return { role: "assistant", content, reasoning_content, tool_calls };
}

/**
 * The reply with no part of the key left in any of its strings, whatever their field. DeepSeek never
 * echoes the key, but a proxy or a server that echoes the request can, and whatever the client returns
 * is logged, saved and drawn on pages. This is the one place the key is taken out of a plain reply; a
 * streamed one is scrubbed chunk by chunk in deepseek-stream.ts.
 */
export function scrubReply(reply: AssistantMessage, key: string): AssistantMessage {
  return scrubEveryString(reply, key);
}

function badReply(issue: z.core.$ZodIssue | undefined): DeepSeekError {
  const where = issue && issue.path.length > 0 ? z.core.toDotPath(issue.path) : "the response";
  const said = `${where} should be ${issue?.message ?? "a chat completion"}, but is ${shapeOf(issue?.input)}`;
  return new DeepSeekError(`DeepSeek's reply is malformed: ${said}`, "bad_reply");
}

/** What was found instead, without printing a value that may be long. */
function shapeOf(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(clip(value, 40));
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
