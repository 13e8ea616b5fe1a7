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

/**
 * Where the events repair appends go, as the account says it: into the file a writer is attached to
 * (the run goes on there), into the session in memory only (`--load` shows the log repaired, the file
 * unchanged), or nowhere (the run stops before it begins: nothing is appended at all).
 */
export type RepairTo = { readonly file: string } | "memory" | "nowhere";

export interface AccountOptions {
  readonly repairTo: RepairTo;
}

/** The account of `loaded`, read from `file`: what was read, what was skipped or torn, what repair appends. */
export function accountOfLog(file: string, loaded: LoadedLog, { repairTo }: AccountOptions): LogAccount {
  const repair = repairAccount(findRepair(file, loaded), repairTo);
  return { lines: [...readAccount(file, loaded).lines, ...repair.lines], closing: repair.closing };
}

/** What was read: the events and the format, a byte order mark, CRLF line ends, a torn last line. */
export function readAccount(file: string, loaded: LoadedLog): LogAccount {
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
  return { lines, closing: [] };
}

function tornLine({ line, reason, bytes }: TornLine): Bilingual {
  const [zh, en] = reason === "unterminated" ? ["没有换行结尾", "no newline at its end"] : ["不是合法的 JSON", "not an event's JSON"];
  return [
    `第 ${line} 行被撕裂（${zh}，${bytes} 字节）：崩溃打断的写入，已丢弃，之前的事件全部保留`,
    `Line ${line} is torn (${en}, ${bytes} bytes): a write cut short by a crash; dropped, every event before it kept`,
  ];
}

/** What repair would append to close the last turn, or why it will not; found before it is told. */
export interface Repair {
  readonly closing: readonly ClosingEvent[];
  /** The id the first appended event gets. */
  readonly nextId: number;
  /** Why the log is not repaired, when it is not: [中文, English]. */
  readonly refused: Bilingual | undefined;
}

/**
 * What repair appends to `loaded`. Found before a writer of this run takes the file's lock: a lock
 * someone holds means the last turn may be running still, and is not repaired.
 */
export function findRepair(file: string, loaded: LoadedLog): Repair {
  const events = loaded.session.events;
  try {
    return { closing: closingEvents(events, { file }), nextId: events.length, refused: undefined };
  } catch (error) {
    if (!(error instanceof RepairError)) throw error;
    const zh =
      error.index === undefined
        ? "另一个进程正在写这个文件，最后一轮可能还在运行"
        : `事件 #${error.index}（${events[error.index]?.type}）不可能是智能体循环写在这里的，这不是崩溃留下的日志，请人工检查`;
    return { closing: [], nextId: events.length, refused: [`无法靠追加修复：${zh}`, `Not repaired: ${error.message}`] };
  }
}

/** The repair, told for where its events go; each appended event shown whole (the demo's ② cuts data). */
export function repairAccount({ closing, nextId, refused }: Repair, repairTo: RepairTo): LogAccount {
  if (refused !== undefined) return { lines: [refused], closing };
  const last = closing.at(-1);
  if (last === undefined) return { lines: [["每一轮都已闭合，无需修复", "Every turn is closed: nothing to repair"]], closing };
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
  const n = closing.length;
  const [zh, en] =
    repairTo === "memory"
      ? [
          `修复追加 ${n} 条事件（只在内存里，文件不变，继续对话时才写入）`,
          `${n} events appended (in memory only: the file is unchanged until the conversation goes on)`,
        ]
      : repairTo === "nowhere"
        ? [
            `修复会追加 ${n} 条事件（这次没有追加，文件不变）`,
            `repair would append ${n} events (not appended this time: the file is unchanged)`,
          ]
        : [`修复追加 ${n} 条事件，写入 ${repairTo.file}`, `${n} events appended, into ${repairTo.file}`];
  const said: Bilingual[] = [[`${why[0]}；${zh}：`, `Repair: ${why[1]}; ${en}:`]];
  for (const [index, { type, data }] of closing.entries()) {
    const line = `#${nextId + index} ${type} ${JSON.stringify(data)}`;
    said.push([line, line]);
  }
  return { lines: said, closing };
}

/** The account as terminal lines: each Chinese line with its English below it; an event (the same in both) once, indented. */
export function accountLines({ lines }: LogAccount): string[] {
  return lines.flatMap(([zh, en]) => (zh === en ? [`    ${zh}`] : [`  ${zh}`, `  (${en})`]));
}
