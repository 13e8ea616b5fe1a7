// How the demo prints the log: ② one line per event, ③ one entry per message, as the book shows them.
import type { Message } from "../common/messages.ts";
import { clip } from "../common/text.ts";
import type { SessionEvent } from "./events.ts";

// ── ② one line per event: #id  type  data ────────────────────────────────────────────────────

export function formatEvent(event: SessionEvent): string {
  return `${`#${event.id}`.padEnd(4)} ${event.type.padEnd(18)} ${compactJson(event.data)}`;
}

/** Compact JSON with long strings shortened, and the whole cut at `width`, so each event fits a line. */
export function compactJson(value: unknown, width = 120): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? oneLine(v, 32) : v));
  return oneLine(text, width);
}

function oneLine(text: string, max: number): string {
  return clip(text.replace(/\n/g, "⏎"), max);
}

// ── ③ one entry per message, as the book prints them ──────────────────────────────────────────

/** The first line is the message's; a multi-line text goes on below it, indented further. */
export function formatMessage(message: Message): string {
  const text = (tag: string, body: string) => `[${tag}] ${body}`.trimEnd().replace(/\n(?=.)/g, "\n    ");
  switch (message.role) {
    case "user":
      return text("user", message.content);
    case "tool":
      return text("tool → 结果", message.content);
    case "assistant": {
      // All of one reply's calls on one line: ③ shows as many entries as ④ counts messages.
      const calls = message.tool_calls.map((call) => `${call.name}(${call.arguments})`).join(", ");
      if (calls === "") return text("assistant", message.content ?? "");
      return text("assistant → 请求工具", message.content ? `${calls} — ${message.content}` : calls);
    }
  }
}
