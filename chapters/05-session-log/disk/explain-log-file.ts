// A log file that cannot be read or written, said in one line, Chinese first: each LogFileError code has
// its Chinese sentence here, carrying what the English beside it says (the line, the event, the value
// found, the counts), and the English is the error's own message (which names the file, the line, and
// what was found). The demo (--load, --save) and `npm run view -- --load` both say it so.
import { NotAFileError, isSystemError, systemReason } from "../../common/system-errors.ts";
import { clip } from "../../common/text.ts";
import { JsonValueError } from "../json-value.ts";
import { EventDataError } from "../event-schemas.ts";
import { ReplayError, type ReplayRule } from "../session-types.ts";
import { ARRAY_COST_PER_BYTE, EVENT_BYTES, mib, SHARED_CHUNK_BYTES } from "./log-memory.ts";
import { CHUNK_GROUP } from "./log-rows.ts";
import {
  LogMemoryError,
  LogWriteError,
  MAX_ARRAY_BYTES,
  MAX_LOG_BYTES,
  NotThisLogError,
  type LogFileError,
  type LogFileErrorCode,
  type LogMismatch,
} from "./log-file-types.ts";

/** What the demo or view was doing: [中文, English], e.g. ["无法读入", "Cannot load"]. */
export type Doing = readonly [zh: string, en: string];

/** One line: `无法读入 FILE：第 2 行读不出事件… / Cannot load FILE line 2: the line is not JSON …`. */
export function explainLogFileError(error: LogFileError, [zh, en]: Doing): string {
  return `${zh} ${error.source}：${inChinese(error)} / ${en} ${inEnglish(error)}`;
}

/** The Chinese sentence for the error's code. */
export function inChinese(error: LogFileError): string {
  const said = SAID[error.code](error);
  // A writer that stopped says how far the file got, as its English does.
  if (!(error instanceof LogWriteError)) return said;
  return `${said}。事件 #${error.firstLost} 及之后的事件都没有写入，文件里是完整的前 ${error.written} 条事件`;
}

const SAID: Readonly<Record<LogFileErrorCode, (error: LogFileError) => string>> = {
  NOT_A_FILE: ({ cause }) => {
    const kind = cause instanceof NotAFileError ? cause.kind[0] : "文件夹、管道或设备";
    return `这不是普通文件，是${kind}；日志是写入者一条条追加出来的普通文件`;
  },
  UNREADABLE: ({ cause }) => (isSystemError(cause) ? `打不开这个文件：${systemReason(cause)[0]}（${cause.code}）` : "打不开这个文件"),
  TOO_LARGE: () =>
    `文件太大：JSONL 日志最多 ${MAX_LOG_BYTES / 2 ** 20} MiB，JSON 数组日志最多 ${MAX_ARRAY_BYTES / 2 ** 20} MiB。读入的日志每条事件都留在内存里，太大的文件宁可拒绝，也不让程序耗尽内存`,
  TOO_LARGE_IN_MEMORY: tooMuchMemory,
  NOT_UTF8: ({ message }) => `这是 ${/UTF-16[LB]E/.exec(message)?.[0] ?? "UTF-16"} 文本（开头是 UTF-16 的字节顺序标记），日志必须是 UTF-8`,
  NOTHING_READ: ({ message }) =>
    `一条事件也读不出来：文件唯一的一行被撕裂${onlyLine(message)}。这不是空日志；日志是 UTF-8 的 JSONL（每行一条事件），或者一个由事件组成的 JSON 数组`,
  BAD_LINE: ({ line, message }) => `第 ${line} 行${badLine(message)}。只有最后一行可能被崩溃撕裂，前面的行坏了说明文件已损坏，请人工检查`,
  BAD_JSON: ({ message }) => {
    if (message.endsWith("the log is not valid UTF-8")) return "以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 UTF-8 文本";
    // `s`: the parser quotes the text around the fault, line breaks and all (a "\r" at a CRLF line's end).
    const parser = /is not JSON \((.+)\)/su.exec(message)?.[1];
    return `以 [ 开头的日志应该是一个由事件组成的 JSON 数组，但它不是合法的 JSON 文本${parser === undefined ? "" : `（${parser}）`}`;
  },
  REPLAY: replayRefused,
  NOT_THIS_LOG: (error) =>
    `${error instanceof NotThisLogError ? mismatchInChinese(error.mismatch) : "文件里已有的内容不是这个会话的事件（另一份日志、事件多了或少了，或有一行撕裂的行）"}，不往里追加`,
  FILE_CHANGED: () => "写入时文件被别的程序改动了（另一个写入者在追加），之后的事件都不再写入",
  FILE_REPLACED: () =>
    "这个名字已经不指向写入者打开的那个文件了（别的程序把另一个文件改名到这里、把它移走或删掉了），之后的事件都不再写进这个名字下的文件",
  WRITE_FAILED: ({ cause }) =>
    `写入失败${isSystemError(cause) ? `：${systemReason(cause)[0]}（${cause.code}）` : "（磁盘已满，或超过了文件大小上限）"}，之后的事件都不再写入；文件里已有的事件每条都完整`,
  LOCKED: ({ message }) => {
    const lock = /; lock: (.+)/u.exec(message)?.[1];
    return `文件锁在另一个进程手里：一份日志同一时刻只有一个写入者${lock === undefined ? "" : `（锁：${lock}）`}`;
  },
};

/** What is wrong with a line before the last, as the reader's message says it (log-reader.ts, jsonl.ts, log-rows.ts). */
function badLine(message: string): string {
  const parser = /: the line is not JSON \((.+)\); only the last line/su.exec(message)?.[1]; // `s`: as in BAD_JSON
  if (parser !== undefined) return `不是合法的 JSON（${parser}）`;
  if (message.includes(": the line is not valid UTF-8;")) return "不是合法的 UTF-8";
  if (!message.includes(": the line is a damaged packed row (")) return "读不出事件（不是合法的 JSON，或是损坏的打包行）";
  const count = /this one has (\d+) chunks\)/u.exec(message)?.[1];
  if (count !== undefined || message.includes("this one has no chunks array"))
    return `是损坏的打包行（打包行装 1 到 ${CHUNK_GROUP} 个分片，写入者一组最多攒这么多；这一行${count === undefined ? "没有 chunks 数组" : `有 ${count} 个`}）`;
  if (message.includes("a packed row needs a number id"))
    return "是损坏的打包行（打包行要有数字 id 和 ts、数字数组 dt，以及和 dt 一样长的 chunks 数组）";
  return `是损坏的打包行（打包行只有 packed、id、ts、dt、turn、step、attempt、chunks 这些键，packed 是 "assistant/chunk"）`;
}

/** How the only line of a file that gave no event was torn, as the reader's message says it (log-reader.ts). */
function onlyLine(message: string): string {
  const found = /only line (has no newline at its end|is not an event's JSON) \((\d+) bytes\)/u.exec(message);
  if (found === null) return "";
  // Worded as the account of a loaded log words a torn line (log-account.ts).
  return `（${found[1] === "has no newline at its end" ? "没有换行结尾" : "不是合法的 JSON"}，${found[2]} 字节）`;
}

function tooMuchMemory(error: LogFileError): string {
  if (!(error instanceof LogMemoryError)) return "内存放不下这份日志";
  const { events, estimate, limit, heap } = error.memory;
  const counted =
    events === undefined
      ? `JSON 数组日志要整个解析，它的文本和事件同时在内存里，约为文件大小的 ${ARRAY_COST_PER_BYTE} 倍，约 ${mib(estimate)} MiB`
      : `读到第 ${error.line} 行已有 ${events} 条事件，照这个比例，整份日志在内存里约 ${mib(estimate)} MiB（每条事件约 ${EVENT_BYTES} 字节，分片和已读过的相同时约 ${EVENT_BYTES - SHARED_CHUNK_BYTES} 字节，不少于它那一行的字节数）`;
  return (
    `内存放不下这份日志：${counted}，超过了这里读入一份日志的上限 ${mib(limit)} MiB（本进程剩余堆内存的七分之一）。` +
    `文件本身没有损坏：用更大的堆再读，例如 NODE_OPTIONS=--max-old-space-size=${heap}`
  );
}

function mismatchInChinese(mismatch: LogMismatch): string {
  if (mismatch.kind === "more")
    return mismatch.events === 0 ? "这个会话还没有事件，文件里却已经有了" : `文件里的事件比这个会话的 ${mismatch.events} 条还多`;
  if (mismatch.kind === "fewer") return `文件里只有这个会话 ${mismatch.events} 条事件中的前 ${mismatch.held} 条`;
  return `文件第 ${mismatch.line} 行不是这个会话的事件 #${mismatch.event}（另一份日志，或一行撕裂的行）`;
}

// ── a replay refusal, in the book's words: 重放失败，第 3 个事件 id 为 5（应为 3） ──

function replayRefused({ line, cause }: LogFileError): string {
  if (!(cause instanceof ReplayError)) return "Session.fromLog 拒绝重放这份日志";
  return `${line === undefined ? "" : `第 ${line} 行`}重放失败，${whatWasWrong(cause)}`;
}

/** The rule the stored log broke, with what was found where the English names it. */
function whatWasWrong({ code, index, detail, cause }: ReplayError): string {
  const event = `第 ${index} 个事件`;
  const found = foundIn(detail);
  if (code === "NOT_A_LOG") return `整份日志不是事件的数组${found === undefined ? "" : `（是 ${found}）`}`;
  if (code === "ID_MISMATCH")
    return `${event}${found === undefined ? "的 id 不对" : ` id 为 ${found}`}（应为 ${index}，id 从 0 起连续编号，没有空缺）`;
  if (code === "SCHEMA" && cause instanceof EventDataError)
    return `${event}的 data 在 ${cause.path} 处不符合 ${cause.type} 事件的形状（${cause.reason}）`;
  if (code === "BAD_DATA" && cause instanceof JsonValueError)
    return `${event}的 data 在 ${clip(cause.path, 200)} 处不是纯 JSON（${notJsonInChinese(cause.reason)}）`; // the path clipped as its English is
  return `${event}${RULES[code](found === undefined ? "" : found)}`;
}

/**
 * Why data read from a file is not plain JSON, in Chinese: the reasons JSON.parse can lead to (json.ts's
 * checks, session.ts's data must be an object). Any other reason is quoted as it is.
 */
function notJsonInChinese(reason: string): string {
  const number = /^(.+) is not a finite number$/u.exec(reason)?.[1];
  if (number !== undefined) return `${number} 不是有限的数`;
  const integer = /^integer (.+) is outside the safe range$/u.exec(reason)?.[1];
  if (integer !== undefined) return `整数 ${integer} 超出了安全整数的范围`;
  const depth = /^nested deeper than (\d+) levels \(MAX_JSON_DEPTH\)$/u.exec(reason)?.[1];
  if (depth !== undefined) return `嵌套超过 MAX_JSON_DEPTH 规定的 ${depth} 层`;
  if (reason === "negative zero (-0)") return "负零 -0";
  if (reason === "event data must be an object, not an array or a primitive") return "事件的 data 必须是对象，不能是数组或基本值";
  return reason;
}

/** Session.fromLog's other rules (ReplayError codes), each as what was wrong with the event, given what was found ("" when unknown). */
const RULES: Readonly<Record<Exclude<ReplayRule, "NOT_A_LOG" | "ID_MISMATCH">, (found: string) => string>> = {
  NOT_AN_EVENT: (found) => `${found && `是 ${found}，`}不是含 id、type、ts、data 的对象`,
  UNEXPECTED_KEY: (found) => `有 id、type、ts、data 之外的键${found && ` ${found}`}`,
  BAD_TYPE: (found) => `的 type ${found && `是 ${found}，`}不是非空字符串`,
  BAD_TS: (found) => `的 ts ${found && `是 ${found}，`}不是非负的安全整数毫秒（也不能是 -0）`,
  BAD_DATA: () => "的 data 不是纯 JSON",
  SCHEMA: () => "的 data 不符合这种事件类型的形状",
};

/**
 * The value the chapter's fromLog found, as its detail says it ("id is 5, expected 3", "…, got -1",
 * "unexpected key "x" (…)"). ReplayError keeps no field for it; a learner's own fromLog (--mine) may word
 * its detail otherwise, and then the Chinese says the rule alone, the English the learner's words.
 */
function foundIn(detail: string): string | undefined {
  // `s`: a string found is shown as JSON shows it, and JSON leaves U+2028 and U+2029 as they are.
  const match = /^id is (.+), expected \d+ \(|, got (.+)|^unexpected key (.+) \(an event/su.exec(detail);
  return match?.slice(1).find((group) => group !== undefined);
}

/** The error's message, without the Chinese a ReplayError opens with: the Chinese half says that already. */
function inEnglish({ message, source, line, cause }: LogFileError): string {
  if (!(cause instanceof ReplayError)) return message;
  return `${source}${line === undefined ? "" : ` line ${line}`}: replay failed at event #${cause.index}: ${cause.detail}`;
}
