// When the operating system says no — a missing folder, a folder where a file should be, no
// permission, a full disk, a port in use — the learner gets one sentence, Chinese first with the
// English beside it, that names the file (or port) and the reason, never Node's raw error and stack.
// Every command tells these failures here, and ends with exit code 1 as after any other failure.
import { accessSync, constants, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { visible } from "./text.ts";

/** An error from the operating system, as Node reports it: a code such as "ENOENT" and the call that failed. */
export interface SystemError extends Error {
  readonly code: string;
  readonly syscall: string;
  readonly path?: string;
  readonly port?: number;
}

/** The exit code after a file or network failure: the same as after any other failed run. */
export const SYSTEM_ERROR_EXIT = 1;

export function isSystemError(error: unknown): error is SystemError {
  if (error instanceof NotAFileError) return true; // refused as the system refuses, told the same way
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as Partial<SystemError>;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) && typeof syscall === "string";
}

type Bilingual = readonly [zh: string, en: string];

/**
 * Our own refusal, told as the system's are: a name that leads to a FIFO, a socket or a device is
 * never replaced by a file. The system would let a rename do it — and `--html /dev/null`, run as root,
 * once replaced the machine's /dev/null with a page. `code` is NOT_A_FILE, as for a log (regular-file.ts).
 */
export class NotAFileError extends Error implements SystemError {
  override readonly name = "NotAFileError";
  readonly code = "NOT_A_FILE";
  /** What the name leads to: [中文, English]. */
  readonly kind: Bilingual;
  constructor(
    readonly syscall: string,
    readonly path: string,
    stats: Stats,
  ) {
    const kind = kindOf(stats);
    super(`NOT_A_FILE: ${syscall} '${path}': it is ${kind[1]}, not a regular file`);
    this.kind = kind;
  }
}

/** What a name leads to when it is not a regular file: [中文, English]. */
export function kindOf(stats: Stats): Bilingual {
  if (stats.isDirectory()) return ["文件夹", "a folder"];
  if (stats.isFIFO()) return ["管道（FIFO）", "a pipe (FIFO)"];
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return ["设备", "a device"];
  return ["套接字", "a socket"];
}

/** Throws NotAFileError when `found` (what `file` leads to) is a FIFO, a socket or a device; a folder is the system's own EISDIR. */
export function refuseSpecialFile(found: Stats | undefined, syscall: string, file: string): void {
  if (found !== undefined && !found.isFile() && !found.isDirectory()) throw new NotAFileError(syscall, file, found);
}

/** Why, by the error's code; the ones a learner meets while saving, loading and serving. */
const REASONS: Readonly<Record<string, Bilingual>> = {
  ENOENT: ["文件或它所在的文件夹不存在", "it does not exist (or the folder it is in does not)"],
  EISDIR: ["这是一个文件夹，不是文件", "it is a folder, not a file"],
  ENOTDIR: ["路径中的某一段不是文件夹", "a part of its path is not a folder"],
  EACCES: ["没有权限", "permission denied"],
  EPERM: ["操作不被允许", "the operation is not permitted"],
  EROFS: ["文件系统是只读的", "it is on a read-only file system"],
  ENOSPC: ["磁盘已满", "the disk is full"],
  EFBIG: ["文件超过了允许的大小", "the file is larger than allowed"],
  EDQUOT: ["磁盘配额已用完", "the disk quota is used up"],
  ENAMETOOLONG: ["名字太长", "the name is too long"],
  ELOOP: ["符号链接太多，可能成了环", "too many symbolic links (a loop?)"],
  EMFILE: ["打开的文件太多", "too many files are open"],
  EBUSY: ["正被占用", "it is busy"],
  EADDRINUSE: [
    "端口已被占用（用 --port 换一个，或者 --port 0 任选一个空闲端口）",
    "the port is in use: choose another with --port, or --port 0 for any free one",
  ],
  EADDRNOTAVAIL: ["这个地址在本机上不可用", "the address is not available on this machine"],
};

/** What was being done, by the call that failed, when the caller does not say. */
const DOING: Readonly<Record<string, Bilingual>> = {
  open: ["无法打开", "Cannot open"],
  read: ["无法读取", "Cannot read"],
  write: ["无法写入", "Cannot write"],
  mkdir: ["无法创建文件夹", "Cannot create the folder"],
  rename: ["无法重命名", "Cannot rename"],
  listen: ["无法监听", "Cannot listen on"],
  access: ["无法写入", "Cannot write"],
};

/**
 * The sentence for a failure of the operating system: `doing` (e.g. ["无法保存到", "Cannot save to"])
 * and `target` (the file as the learner typed it) when the caller knows them better than the error.
 * When what the system refused is another path than the target (the folder a file goes in, the file's
 * lock), that path is named too: it is what cannot be written.
 */
export function explainSystemError(error: SystemError, doing?: Bilingual, target?: string): string {
  const [zhDoing, enDoing] = doing ?? DOING[error.syscall] ?? ["失败", "Failed"];
  const named = target ?? error.path ?? (error.port === undefined ? "" : `127.0.0.1:${error.port}`);
  const where = named === "" ? "" : ` ${visible(named)}`; // a read() on an open file names no path
  const [zh, en] = systemReason(error);
  const refused = error.path;
  const [zhAt, enAt] =
    target === undefined || refused === undefined || path.resolve(refused) === path.resolve(target)
      ? ["", ""]
      : [`，${visible(refused)}`, ` ${visible(refused)}:`];
  // The reason first in Chinese, so that the path ends its half of the line and copies cleanly; the code
  // (and the path refused, when it is not the target) in its parentheses, as the English half has them.
  const notes = `${error.code}${zhAt}`;
  const why = zh.endsWith("）") ? zh.replace(/（([^（]*)）$/u, (_, remedy: string) => `（${notes}；${remedy}）`) : `${zh}（${notes}）`;
  return `${why}，${zhDoing}${where} / ${enDoing}${where}:${enAt} ${en} (${error.code})`;
}

/** Why the system refused, in both languages: [中文, English]. */
export function systemReason(error: SystemError): Bilingual {
  if (error instanceof NotAFileError) {
    const [zh, en] = error.kind;
    return [`这是${zh}，不是普通文件，不会用文件替换它`, `it is ${en}, not a regular file, and a file never replaces it`];
  }
  return REASONS[error.code] ?? ["操作系统拒绝了这个操作", "the operating system refused"];
}

/**
 * Throws the SystemError that writing `file` would meet, before any work is done that it would waste:
 * a folder in its place (EISDIR), a FIFO, a socket or a device there (NotAFileError), a file on the way
 * to it (ENOTDIR), a name too long (ENAMETOOLONG), no permission or a read-only file system (EACCES,
 * EROFS), for the file or for the folder it is in: a file is written as a new file in that folder, then
 * renamed over the old one (atomic-write.ts). Folders that do not exist yet are fine: they will be
 * made, if the first existing one above them can be written.
 */
export function checkWritable(file: string): void {
  const absolute = path.resolve(file);
  const found = statSync(absolute, { throwIfNoEntry: false });
  if (found?.isDirectory()) throw systemError("EISDIR", "open", file);
  refuseSpecialFile(found, "open", file);
  if (found !== undefined) {
    accessSync(absolute, constants.W_OK);
    accessSync(path.dirname(realpathSync(absolute)), constants.W_OK | constants.X_OK);
    return;
  }
  // The first folder that exists is a folder: had a file been on the way, statSync would have thrown
  // ENOTDIR (Node's own, from stat) for the path below it.
  let folder = path.dirname(absolute);
  while (statSync(folder, { throwIfNoEntry: false }) === undefined) folder = path.dirname(folder);
  accessSync(folder, constants.W_OK | constants.X_OK);
}

/** The sentence that says why `file` cannot be written, or undefined when it can (see checkWritable). */
export function cannotWrite(file: string, doing?: Bilingual): string | undefined {
  try {
    checkWritable(file);
    return undefined;
  } catch (error) {
    if (!isSystemError(error)) throw error;
    return explainSystemError(error, doing, file);
  }
}

function systemError(code: string, syscall: string, file: string): SystemError {
  return Object.assign(new Error(`${code}: ${syscall} '${file}'`), { code, syscall, path: file });
}
