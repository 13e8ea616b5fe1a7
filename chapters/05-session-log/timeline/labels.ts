// The page's words, Chinese with English beside them, like the demo's headings. Kept apart from the
// drawing code so a reader of dom.ts sees structure, and a translator sees only words.
import type { Bilingual } from "../../common/program.ts";
import type { HiddenReason } from "./view-model.ts";

// A label in both languages: [中文, English] (chapters/common/program.ts).
export type { Bilingual };

export const labels = {
  title: ["会话时间线", "Session timeline"],
  events: ["事件（日志）", "Events (the log)"],
  messages: ["模型看到的消息", "Messages the model saw"],
  messagesHint: [
    "由 deriveMessages 从日志投影而来；选中一条，高亮它来自的事件",
    "projected from the log by deriveMessages; select one to highlight its event",
  ],
  outsideTurn: ["轮次之外", "Outside any turn"],
  data: ["数据", "data"],
  toolError: ["工具出错", "tool error"],
  noResult: ["还没有结果", "no result yet"],
  problems: ["结构检查发现的问题", "Problems found by the structure check"],
  account: ["读入与修复", "What was read, and what repair appends"],
  noProblems: ["结构检查：轮次与步骤都已闭合，每个工具调用都有结果", "structure check: turns and steps closed, every tool call answered"],
  stillOpen: ["运行中，尚未结束", "still running, not closed yet"],
  live: ["实时：事件提交后立即推送", "live: each event is pushed as it is committed"],
  liveEnded: ["实时运行已结束，页面已收到全部事件", "the live run has ended; the page has every event"],
  reconnecting: [
    "连接中断，正在重连（从上次收到的事件之后继续）",
    "connection lost, reconnecting (resuming after the last event received)",
  ],
  closed: ["连接已关闭；刷新页面可重新开始", "connection closed; reload the page to start over"],
  otherRun: [
    "这个端口上的服务器已在服务另一次运行，这个页面不属于它；请打开终端打印的新地址",
    "the server on this port is serving another run, not this page's; open the address the terminal printed",
  ],
  outOfOrder: ["事件顺序错误，页面停止更新", "events arrived out of order; the page stopped updating"],
  window: ["在长日志里移动", "Move through a long log"],
  earlier: ["◀ 更早的事件", "◀ earlier events"],
  later: ["更晚的事件 ▶", "later events ▶"],
  jumpTo: ["跳到事件 #", "go to event #"],
  go: ["跳转", "go"],
  noScript: [
    "这个页面用 JavaScript 从内嵌的日志派生时间线，请启用 JavaScript。",
    "This page derives the timeline from the log it embeds with JavaScript; please enable it.",
  ],
} as const satisfies Record<string, Bilingual>;

/** A run of stream chunks: as it streams (or where no message cites it), and folded under its message. */
export function runLabel(attempt: number, folded: boolean): Bilingual {
  const call = attempt === 1 ? ["", ""] : [`，第 ${attempt} 次调用`, `, attempt ${attempt}`];
  return folded
    ? [`个分片拼成了这条消息${call[0]}`, `chunks built this message${call[1]}`]
    : [`个流式分片${call[0]}，文字随到随显示`, `stream chunks${call[1]}, text shown as it arrives`];
}

export const chunkEventsLabel: Bilingual = ["逐条查看分片事件", "each chunk event"];

/** What a long log's page has drawn: events `first`–`last` (and their messages) of `total`. */
export function windowLabel(first: number, last: number, total: number): Bilingual {
  const [from, to, all] = [first, last, total].map((n) => n.toLocaleString("en"));
  return [`已画出事件 #${from}–#${to} 及其消息，共 ${all} 条事件`, `drawn: events #${from}–#${to} and their messages, of ${all}`];
}

export function turnLabel(turn: number): Bilingual {
  return [`轮次 ${turn}`, `Turn ${turn}`];
}

export function stepLabel(step: number): Bilingual {
  return [`步骤 ${step}`, `Step ${step}`];
}

export function countLabel(events: number, messages: number): Bilingual {
  return [`${events} 条事件，${messages} 条消息`, `${events} events, ${messages} messages`];
}

export function pairLabel(type: "tool/call" | "tool/result", partner: number): Bilingual {
  return type === "tool/call" ? [`结果见 #${partner}`, `result in #${partner}`] : [`调用见 #${partner}`, `call in #${partner}`];
}

export const hiddenLabels: { readonly [R in HiddenReason]: Bilingual } = {
  "turn-boundary": ["轮次边界", "turn boundary"],
  "step-boundary": ["步骤边界", "step boundary"],
  "request-header": ["请求头：作为系统提示词和工具说明发送", "request header: sent as system prompt and tool specs"],
  "carried-by-assistant": [
    "这个调用已经随 assistant 消息的 tool_calls 发出",
    "the call already rides on the assistant message's tool_calls",
  ],
  "empty-reply": ["空回复：没有正文、思考内容，也没有工具调用", "empty reply: no text, no reasoning, no tool call"],
  "stream-chunk": ["流式分片，模型看到的是由分片拼成的消息", "a stream chunk: the model sees the message built from the chunks"],
  "not-in-projection": ["投影不认识这个类型，只留在日志里", "a type the projection does not know: it stays in the log"],
};

export function carriedByLabel(assistantEvent: number): Bilingual {
  return [`已随 #${assistantEvent} 的 tool_calls 发出`, `rides on #${assistantEvent}'s tool_calls`];
}

export function sentAsLabel(message: number): Bilingual {
  return [`作为 messages[${message}] 发给模型`, `sent as messages[${message}]`];
}

/** An event that stays in the log, and why (one of hiddenLabels, or carriedByLabel). */
export function notSentLabel([zh, en]: Bilingual): Bilingual {
  return [`不发给模型：${zh}`, `not sent: ${en}`];
}

/** How a turn ended, as turn/end's `reason` says. */
export function endLabel(reason: string): Bilingual {
  switch (reason) {
    case "completed":
      return ["正常结束", "completed"];
    case "max_steps":
      return ["步数预算用完（max_steps）", "step budget used up (max_steps)"];
    case "error":
      return ["出错结束（error）", "ended by an error (error)"];
    case "interrupted":
      return ["被中断（interrupted）", "interrupted (interrupted)"];
    default:
      return [`结束：${reason}`, `ended: ${reason}`];
  }
}

export const roleLabels: Readonly<Record<string, Bilingual>> = {
  user: ["用户", "user"],
  assistant: ["助手", "assistant"],
  tool: ["工具结果", "tool result"],
};
