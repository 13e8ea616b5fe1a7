// A log file that cannot be read or written, said in one line, Chinese first: each LogFileError code has
// its Chinese sentence here, and the English beside it is the error's own message (which names the
// file, the line, and what was found). The demo (--load, --save) and `npm run view -- --load` both say it so.
import { ReplayError, type ReplayRule } from "../session-types.ts";
import { ARRAY_COST_PER_BYTE, EVENT_BYTES, mib } from "./log-memory.ts";
import { LogMemoryError, MAX_ARRAY_BYTES, MAX_LOG_BYTES, type LogFileError, type LogFileErrorCode } from "./log-file-types.ts";

/** What the demo or view was doing: [中文, English], e.g. ["无法读入", "Cannot load"]. */
export type Doing = readonly [zh: string, en: string];

/** One line: `无法读入 FILE：第 2 行不是事件的 JSON。… / Cannot load FILE line 2: the line is not JSON …`. */
export function explainLogFileError(error: LogFileError, [zh, en]: Doing): string {
  return `${zh} ${error.source}：${inChinese(error)} / ${en} ${inEnglish(error)}`;
}

/** The Chinese sentence for the error's code. */
export function inChinese(error: LogFileError): string {
  return SAID[error.code](error);
}

const SAID: Readonly<Record<LogFileErrorCode, (error: LogFileError) => string>> = {
  NOT_A_FILE: () => "这不是普通文件（是文件夹、管道或设备）；日志是写入者一条条追加出来的普通文件",
  UNREADABLE: () => "打不开这个文件",
  TOO_LARGE: () =>
    `文件太大：JSONL 日志最多 ${MAX_LOG_BYTES / 2 ** 20} MiB，JSON 数组日志最多 ${MAX_ARRAY_BYTES / 2 ** 20} MiB。读入的日志每条事件都留在内存里，太大的文件宁可拒绝，也不让程序耗尽内存`,
  TOO_LARGE_IN_MEMORY: tooMuchMemory,
  NOT_UTF8: () => "这是 UTF-16 文本（开头是 UTF-16 的字节顺序标记），日志必须是 UTF-8",
  NOTHING_READ: () =>
    "一条事件也读不出来：文件唯一的一行是撕裂的。这不是空日志；日志是 UTF-8 的 JSONL（每行一条事件），或者一个事件的 JSON 数组",
  BAD_LINE: ({ line }) => `第 ${line} 行不是事件的 JSON。只有最后一行可能被崩溃撕裂，前面的行坏了说明文件已损坏，请人工检查`,
  BAD_JSON: () => "以 [ 开头的日志应该是一个事件的 JSON 数组，但它不是合法的 JSON 文本（UTF-8 编码的 JSON）",
  REPLAY: replayRefused,
  NOT_THIS_LOG: () => "文件里已有的内容不是这个会话的事件（另一份日志、事件多了或少了，或有一行撕裂的行），不往里追加",
  FILE_CHANGED: () => "写入时文件被别的程序改动了（另一个写入者在追加），之后的事件都不再写入",
  FILE_REPLACED: () =>
    "这个名字已经不指向写入者打开的那个文件了（别的程序把另一个文件改名到这里、把它移走或删掉了），之后的事件都不再写进这个名字下的文件",
  WRITE_FAILED: () => "写入失败（磁盘已满，或超过了文件大小上限），之后的事件都不再写入；文件里已有的事件每条都完整",
  LOCKED: () => "文件锁在另一个进程手里：一份日志同一时刻只有一个写入者",
};

function tooMuchMemory(error: LogFileError): string {
  if (!(error instanceof LogMemoryError)) return "内存放不下这份日志";
  const { events, estimate, limit, heap } = error.memory;
  const counted =
    events === undefined
      ? `JSON 数组日志要整个解析，它的文本和事件同时在内存里，约为文件大小的 ${ARRAY_COST_PER_BYTE} 倍，约 ${mib(estimate)} MiB`
      : `读到第 ${error.line} 行已有 ${events} 条事件，照这个比例，整份日志在内存里约 ${mib(estimate)} MiB（每条事件约 ${EVENT_BYTES} 字节，不少于它那一行的字节数）`;
  return (
    `内存放不下这份日志：${counted}，超过了这里读入一份日志的上限 ${mib(limit)} MiB（本进程剩余堆内存的四分之一）。` +
    `文件本身没有损坏：用更大的堆再读，例如 NODE_OPTIONS=--max-old-space-size=${heap}`
  );
}

/** Session.fromLog's rules (ReplayError codes), each as what was wrong with the event. */
const RULES: Readonly<Record<ReplayRule, string>> = {
  NOT_A_LOG: "整份日志不是事件的数组",
  NOT_AN_EVENT: "它不是含 id、type、ts、data 的对象",
  UNEXPECTED_KEY: "它有 id、type、ts、data 之外的键",
  ID_MISMATCH: "它的 id 不对（id 从 0 起连续编号，没有空缺）",
  BAD_TYPE: "它的 type 不是非空字符串",
  BAD_TS: "它的 ts 不是非负的整数毫秒",
  BAD_DATA: "它的 data 不是纯 JSON",
  SCHEMA: "它的 data 不符合这种事件类型的形状",
};

function replayRefused({ line, cause }: LogFileError): string {
  if (!(cause instanceof ReplayError)) return "Session.fromLog 拒绝重放这份日志";
  const where = line === undefined ? `事件 #${cause.index} ` : `第 ${line} 行（事件 #${cause.index}）`;
  return `${where}没通过重放的校验，${RULES[cause.code]}`;
}

/** The error's message, without the Chinese a ReplayError opens with: the Chinese half says that already. */
function inEnglish({ message, source, line, cause }: LogFileError): string {
  if (!(cause instanceof ReplayError)) return message;
  return `${source}${line === undefined ? "" : ` line ${line}`}: replay failed at event #${cause.index}: ${cause.detail}`;
}
