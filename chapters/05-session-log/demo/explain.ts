// What the demo says when a run does not go as the book's does: a refused setting, a failed model
// call, a replay that no longer matches its recording, a step budget spent. Chinese first, the
// English beside it, and every command a learner may copy on a line of its own.
import { DeepSeekError, type DeepSeekErrorKind } from "../../common/deepseek.ts";
import type { DeepSeekConfigError } from "../../common/settings.ts";
import { visible } from "../../common/text.ts";
import type { AgentRunError } from "../loop-types.ts";
import type { LogWriteError } from "../disk/log-file-types.ts";
import { isEventOfType } from "../events.ts";
import type { SessionEvent } from "../events.ts";

/** A failure told under its own heading (Chinese, English) as lines of text. */
export interface Explanation {
  readonly title: readonly [zh: string, en: string];
  readonly lines: readonly string[];
}

/** The way out of every failure: the recorded run, which needs no key and no network. */
const OFFLINE = ["也可以离线回放录制的流量 / Or replay a recording offline:", "  npm run demo -- --offline"];

/** A setting the client refused, before anything was sent. */
export function explainSetting(error: DeepSeekConfigError): Explanation {
  return {
    title: ["设置有误", "A setting is wrong"],
    lines: [
      `设置有误，还没有发出任何请求。${error.zh}`,
      `A setting is wrong, so nothing was sent. ${error.message}`,
      "改正这个环境变量后重新运行 / Fix the variable and run again.",
      ...OFFLINE,
    ],
  };
}

type Why = (status: number | undefined) => readonly [zh: string, en: string];

/** One explanation per kind of failure (see DeepSeekErrorKind): what happened, and what to do. */
const WHY: Readonly<Record<DeepSeekErrorKind, Why>> = {
  authentication: () => [
    "DeepSeek 拒绝了这个 API key（401）。请检查 DEEPSEEK_API_KEY 是否完整、是否已被删除，key 在这里管理：https://platform.deepseek.com/api_keys",
    "DeepSeek refused the API key (401). Check that DEEPSEEK_API_KEY is complete and still active; keys are managed at https://platform.deepseek.com/api_keys",
  ],
  insufficient_balance: () => [
    "账户余额不足（402）。充值地址：https://platform.deepseek.com/top_up",
    "The DeepSeek account has no balance left (402). Top it up at https://platform.deepseek.com/top_up",
  ],
  rate_limit: () => [
    "请求过多（429），SDK 重试后仍被限流。请稍等片刻再试。",
    "Too many requests (429), still limited after the SDK's retries. Wait a moment and try again.",
  ],
  server: (status) => [
    `DeepSeek 服务端出错或过载（${status}），重试后仍失败。请稍后再试。`,
    `DeepSeek failed or is overloaded (${status}), even after retries. Try again later.`,
  ],
  bad_request: (status) => [
    `DeepSeek 拒绝了这个请求（${status}）。常见原因是 DEEPSEEK_MODEL 写的模型不存在（默认是 deepseek-flash）。`,
    `DeepSeek refused the request (${status}). A common cause is a DEEPSEEK_MODEL that does not exist (the default is deepseek-flash).`,
  ],
  network: () => [
    "无法连接 DeepSeek。请检查网络、代理和 DEEPSEEK_BASE_URL。",
    "Could not reach DeepSeek. Check the network, any proxy, and DEEPSEEK_BASE_URL.",
  ],
  timeout: () => [
    "DeepSeek 在时限内没有回答（思考模式有时要想很久）。请稍后再试，或用 DEEPSEEK_TIMEOUT_MS（毫秒）放宽时限。",
    "DeepSeek did not answer in time (thinking mode can take long). Try again later, or allow more time with DEEPSEEK_TIMEOUT_MS (milliseconds).",
  ],
  empty_reply: () => [
    "DeepSeek 返回了 HTTP 200，但回复里没有消息。请稍后再试。",
    "DeepSeek returned HTTP 200, but the reply holds no message. Try again later.",
  ],
  bad_reply: () => [
    "DeepSeek 返回了 HTTP 200，但回复的结构不对（缺字段或类型不符），无法当作消息使用。如果 DEEPSEEK_BASE_URL 指向代理，请确认它转发的是 DeepSeek 的接口。",
    "DeepSeek returned HTTP 200, but the reply is not in the documented shape, so it cannot become a message. If DEEPSEEK_BASE_URL points at a proxy, check that it passes DeepSeek's API through.",
  ],
  other: () => ["模型调用失败。", "The model call failed."],
};

/**
 * Why the run cannot go on to ③ and ④, if it cannot: an offline replay that no longer matches its
 * recording comes first (a failed call is then only its consequence), then a failed model call.
 */
export function explainTrouble(mismatch: string | undefined, failure: AgentRunError | undefined): Explanation | undefined {
  if (mismatch !== undefined) return explainMismatch(mismatch);
  return failure === undefined ? undefined : explain(failure);
}

/** What went wrong with a run, what to do about it, and what the client said. */
export function explain(failure: AgentRunError): Explanation {
  const cause = failure.cause instanceof DeepSeekError ? failure.cause : undefined;
  const broken = cause?.kind === "network" || cause?.kind === "server" ? brokenStream(failure.session.events) : undefined;
  const why = broken === undefined ? WHY[cause?.kind ?? "other"](cause?.status) : brokeOff(broken, cause?.kind === "server");
  return {
    title: ["运行失败", "The run failed"],
    lines: [
      ...why,
      ...(broken === undefined ? [] : whatWasKept(broken)),
      "上面的日志完整保留了失败前发生的一切 / The log above keeps everything up to the failure.",
      `详情 / Details: ${visible(cause?.message ?? failure.message)}`,
      ...OFFLINE,
    ],
  };
}

// ── a stream that broke off mid-reply ────────────────────────────────────────────────────────────

/** The failed step's stream, once it had begun: its last attempt's chunks, and the message kept from them. */
interface BrokenStream {
  readonly chunks: readonly SessionEvent<"assistant/chunk">[];
  readonly kept: SessionEvent<"assistant/message"> | undefined;
}

function brokenStream(events: readonly SessionEvent[]): BrokenStream | undefined {
  const step = events.slice(events.findLastIndex((event) => isEventOfType(event, "step/start")) + 1);
  const chunks = step.filter((event) => isEventOfType(event, "assistant/chunk"));
  const attempt = chunks.at(-1)?.data.attempt;
  if (attempt === undefined) return undefined;
  return {
    chunks: chunks.filter((chunk) => chunk.data.attempt === attempt),
    kept: step.filter((event) => isEventOfType(event, "assistant/message")).find((message) => message.data.interrupted === true),
  };
}

/** Not "could not reach": the reply had begun, and how it ended. */
function brokeOff({ chunks }: BrokenStream, errorChunk: boolean): [zh: string, en: string] {
  const ids = chunks.length === 1 ? `#${chunks[0]?.id}` : `#${chunks[0]?.id}–#${chunks.at(-1)?.id}`;
  const n = chunks.length;
  if (errorChunk)
    return [
      `DeepSeek 在回复中途发来错误分片，回复没有完成：日志里有这次调用的 ${n} 个分片（${ids}），最后一个就是错误分片。通常是服务端的临时问题，请稍后重新运行。`,
      `DeepSeek sent an error chunk mid-reply, so the reply never finished: the log holds this call's ${n} chunks (${ids}), the error chunk last. Usually a passing server problem: run again later.`,
    ];
  return [
    `连接在回复中途断开了：DeepSeek 已经发来 ${n} 个分片（${ids}），之后连接中断。通常是网络或服务端的临时问题，请重新运行。`,
    `The connection broke off mid-reply: DeepSeek had sent ${n} chunks (${ids}) when it dropped. Usually a passing network or server problem: run again.`,
  ];
}

/** What the log kept of the reply: its chunks, and the interrupted message with the text already shown. */
function whatWasKept({ kept }: BrokenStream): [zh: string, en: string] {
  if (kept === undefined)
    return [
      "留下了什么：分片都在日志里；没有留下消息，因为分片里没有可显示的文字（只有空白或工具调用的片段，半截的调用不能运行）。",
      "What was kept: every chunk is in the log; no message, as the chunks carried no text to show (only whitespace or tool-call fragments; a half-written call cannot run).",
    ];
  const answer = Array.from(kept.data.content ?? "").length;
  const reasoning = Array.from(kept.data.reasoning_content ?? "").length;
  const [zh, en] =
    answer === 0
      ? [`${reasoning} 个字符的思考内容，没有回答文字`, `the ${reasoning} characters of reasoning already shown, and no answer text`]
      : reasoning === 0
        ? [`${answer} 个字符的回答`, `the ${answer} characters of answer already shown`]
        : [
            `${answer} 个字符的回答和 ${reasoning} 个字符的思考内容`,
            `the ${answer} characters of answer and ${reasoning} of reasoning already shown`,
          ];
  return [
    `留下了什么：分片都在日志里；消息 #${kept.id} 标为 interrupted，保留了已经显示的 ${zh}。`,
    `What was kept: every chunk is in the log; message #${kept.id}, marked interrupted, keeps ${en}.`,
  ];
}

/** The offline replay sent a request the recording does not have: something changed what the model is sent. */
function explainMismatch(mismatch: string): Explanation {
  return {
    title: ["离线回放失败", "The offline replay failed"],
    lines: [
      "回放时发出的请求和录制的不一致：投影或客户端改变了发给模型的内容。差异如下：",
      "A request differed from the recording: the projection or the client changed what the model is sent. The difference:",
      visible(mismatch, { lines: true }),
    ],
  };
}

/** How the last turn ended, if the log says. */
export function lastTurnEnd(events: readonly SessionEvent[]): SessionEvent<"turn/end"> | undefined {
  return events.findLast((event) => isEventOfType(event, "turn/end"));
}

/** Said plainly under the log when the step budget ran out: a turn can end without an answer. */
export function budgetSpent(events: readonly SessionEvent[]): string[] {
  const end = lastTurnEnd(events);
  if (end?.data.reason !== "max_steps") return [];
  const steps = events.filter((event) => isEventOfType(event, "step/start") && event.data.turn === end.data.turn).length;
  return [
    `⚠ 步数预算用完了：模型用掉了全部 ${steps} 步，始终没有给出最终回答（turn/end 的 reason 是 max_steps）。`,
    `⚠ The step budget is spent: the model used all ${steps} steps and never gave a final answer (turn/end reason: max_steps).`,
  ];
}

/** ④'s structure check, with how the turn ended. */
export function structureCheck(problems: number, events: readonly SessionEvent[]): string[] {
  const reason = lastTurnEnd(events)?.data.reason;
  const zhReason = reason === "max_steps" ? "max_steps（步数用完，没有最终回答）" : (reason ?? "没有 turn/end");
  const enReason = reason === "max_steps" ? "max_steps (step budget spent, no final answer)" : (reason ?? "no turn/end");
  const [zhProblems, enProblems] = problems === 0 ? ["ok", "ok"] : [`${problems} 个问题`, `${problems} problem(s)`];
  return [
    `结构检查（轮次/步骤闭合、每个工具调用都有结果）：${zhProblems}；轮次结束原因：${zhReason}`,
    `(structure check — turns and steps closed, every tool call answered: ${enProblems}; the turn ended: ${enReason})`,
  ];
}

/** Said instead of "Saved" when the writer stopped: how far the file got, why, and what to do with it. */
export function explainLostLog(error: LogWriteError): Explanation {
  const title = ["日志没有完整写进文件，运行已停止", "The log stopped reaching the file, so the run stopped"] as const;
  if (error.code === "FILE_REPLACED") {
    // Only when no new file beside it could be made either (demo/saving.ts says why, above).
    return {
      title,
      lines: [
        `${error.source} 在运行中被换掉了，另存到旁边的新文件也没有成功（原因见上）。这次运行的事件都在上面的 ② 里。之后没有再调用模型。`,
        `(${error.source} was replaced during the run, and no new file beside it could be saved to either (why: above). Every event of this run is in ② above. No model call was made after that.)`,
        `原因 / Why: ${error.message}`,
      ],
    };
  }
  const why = {
    WRITE_FAILED: "写入失败（磁盘已满，或超过了文件大小上限）",
    FILE_CHANGED: "文件被别的程序改动了",
    LOCKED: "文件锁被另一个进程拿走了",
  }[error.code];
  return {
    title,
    lines: [
      `${error.source} 里只有前 ${error.written} 条事件（每条完整），从事件 #${error.firstLost} 起都没有写进去：${why}。之后没有再调用模型。`,
      `(${error.source} holds only the first ${error.written} events, each one whole; event #${error.firstLost} and later never reached it. No model call was made after that.)`,
      `原因 / Why: ${error.message}`,
      "文件里已有的事件都能读回，没闭合的一轮会被修复 / What the file holds reads back, and its open turn gets repaired:",
      `  npm run demo -- --load ${error.source}`,
    ],
  };
}
