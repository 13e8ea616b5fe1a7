// What a loaded log file held and what repair makes of it, told once: `npm run demo -- --load` prints it,
// `npm run view -- --load` prints it and puts it on the page, so one file gets one story everywhere.
// Chinese first, English beside it. The events repair appends are shown whole (the demo's ② cuts data).
import { closingEvents } from "./log-file.ts";
import { RepairError, type ClosingEvent, type LoadedLog, type TornLine } from "./log-file-types.ts";
import type { Bilingual } from "../../common/program.ts";

export interface LogAccount {
  /** The story, line by line: [中文, English]. */
  readonly lines: readonly Bilingual[];
  /** What repair appends to close the last turn: empty when every turn is closed or repair refused. */
  readonly closing: readonly ClosingEvent[];
}

export interface AccountOptions {
  /** The repair goes into the file (the conversation goes on); otherwise the file is left as it is. */
  readonly saved: boolean;
}

/** The account of `loaded`, read from `file`: what was read, what was skipped or torn, what repair appends. */
export function accountOfLog(file: string, loaded: LoadedLog, { saved }: AccountOptions): LogAccount {
  const count = loaded.session.events.length;
  const lines: Bilingual[] = [
    [`从 ${file} 读入 ${count} 条事件（${loaded.format}）`, `Loaded ${file}: ${count} events (${loaded.format})`],
  ];
  if (loaded.bom)
    lines.push(["文件开头有 UTF-8 BOM（编辑器加的），已跳过", "The file starts with a UTF-8 byte order mark (an editor's), skipped"]);
  if (loaded.crlf) {
    lines.push([
      "行尾是 CRLF（Windows 换行），不是写入者写的 \\n：事件照常读入；要接着写，请用 --save 另存到新文件",
      'Lines end in CRLF (Windows), not the writer\'s "\\n": the events read as usual; to go on, save to a new file (--save)',
    ]);
  }
  if (loaded.torn !== undefined) lines.push(tornLine(loaded.torn));
  const { closing, said } = repairOf(file, loaded, saved);
  return { lines: [...lines, ...said], closing };
}

function tornLine({ line, reason, bytes }: TornLine): Bilingual {
  const [zh, en] = reason === "unterminated" ? ["没有换行结尾", "no newline at its end"] : ["不是事件的 JSON", "not an event's JSON"];
  return [
    `第 ${line} 行被撕裂（${zh}，${bytes} 字节）：崩溃打断的写入，已丢弃，之前的事件全部保留`,
    `Line ${line} is torn (${en}, ${bytes} bytes): a write cut short by a crash; dropped, every event before it kept`,
  ];
}

function repairOf(file: string, loaded: LoadedLog, saved: boolean): { closing: ClosingEvent[]; said: Bilingual[] } {
  const events = loaded.session.events;
  let closing: ClosingEvent[];
  try {
    closing = closingEvents(events, { file });
  } catch (error) {
    if (!(error instanceof RepairError)) throw error;
    const zh =
      error.index === undefined
        ? "另一个进程正在写这个文件，最后一轮可能还在运行"
        : `第 #${error.index} 条事件不是智能体循环会写在那里的，这不是崩溃留下的日志，请人工检查`;
    return { closing: [], said: [[`无法靠追加修复：${zh}`, `Not repaired: ${error.message}`]] };
  }
  const last = closing.at(-1);
  if (last === undefined) return { closing, said: [["每一轮都已闭合，无需修复", "Every turn is closed: nothing to repair"]] };
  const [zh, en] = saved
    ? ["，写入文件", ", into the file"]
    : ["（只在内存里，文件不变，继续对话时才写入）", " (in memory only: the file is unchanged until the conversation goes on)"];
  const why: Bilingual =
    last.data.reason === "completed"
      ? [
          "最后一轮的最终回答已经记下，只丢了结尾，记为 completed",
          "the last turn's final answer was logged and only its end was lost, so it closes as completed",
        ]
      : [
          "最后一轮停在中途（进程被杀或崩溃），记为 interrupted",
          "the last turn stopped midway (the process was killed or crashed), so it closes as interrupted",
        ];
  const said: Bilingual[] = [
    [`${why[0]}；修复追加 ${closing.length} 条事件${zh}：`, `Repair: ${why[1]}; ${closing.length} events appended${en}:`],
  ];
  // Shown whole, data and all: the demo's ② cuts long data at 40 characters.
  const id = events.length;
  for (const [index, { type, data }] of closing.entries()) {
    const line = `#${id + index} ${type} ${JSON.stringify(data)}`;
    said.push([line, line]);
  }
  return { closing, said };
}

/** The account as terminal lines: each Chinese line with its English below it; an event (the same in both) once, indented. */
export function accountLines({ lines }: LogAccount): string[] {
  return lines.flatMap(([zh, en]) => (zh === en ? [`    ${zh}`] : [`  ${zh}`, `  (${en})`]));
}
