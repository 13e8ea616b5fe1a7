// Where a command may write a page (`demo --html`, `view --out`): never over a log, never over the
// run's own input or other output, never over any file that is not an earlier page of ours. A log is
// the single source of truth; a page is only derived from it, so a page may replace an older page and
// nothing else. Checked before the run starts, so a refused flag writes nothing at all, and again right
// before the page is written (what a name leads to can change during a run). Names are compared where
// they lead, every link followed (common/atomic-write.ts), and by device and inode (a hard link).
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { resolvedPath } from "../../common/atomic-write.ts";

/**
 * Undefined when `output` (named by `flag`) may be written; otherwise the usage error to print, in
 * Chinese and English. `others`: the files the same command reads or writes (its --load, its --save).
 */
export function refuseOutput(flag: string, output: string | undefined, others: readonly (string | undefined)[]): string | undefined {
  if (output === undefined) return undefined;
  if (others.some((other) => other !== undefined && sameFile(output, other))) {
    return `${flag} ${output} 是这次运行读写的日志，页面不能覆盖它 / ${flag} ${output} is a log this run reads or writes: a page must not overwrite it`;
  }
  const found = statOrUndefined(output);
  if (found === undefined) return undefined;
  // A folder, a FIFO, a socket or a device is not a file to replace: the write check (checkWritable in
  // common/system-errors.ts) says so in one sentence, exit 1, as for any other path that cannot be
  // written, and writeFileAtomically refuses it again right before its rename.
  if (!found.isFile()) return undefined;
  if (!isOurPage(output)) {
    return `${output} 已经存在，而且不是本练习册写的时间线页面，不会覆盖它，请换一个文件名 / ${output} exists and is not a timeline page this workbook wrote: it is not overwritten, choose a new file name`;
  }
  return undefined;
}

/** The same place once every link is followed (a file yet to be written too), or the same file under two names. */
function sameFile(a: string, b: string): boolean {
  if (resolvedPath(a) === resolvedPath(b)) return true;
  const [first, second] = [statOrUndefined(a), statOrUndefined(b)];
  return first !== undefined && second !== undefined && first.dev === second.dev && first.ino === second.ino;
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

// What timeline/page.ts writes first: the doctype, then the element that carries the log. Both sit in
// the first few kilobytes of every page (the log itself comes after them), so reading those is enough.
const PAGE_START = "<!doctype html>\n<html";
const PAGE_MARK = '<script type="application/json" id="session-log">';
const HEAD_BYTES = 64 * 1024;

/** Whether `file` starts as a page of ours does: a log, a note or a source file never does. */
function isOurPage(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const text = head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0)).toString("utf8");
    return text.startsWith(PAGE_START) && text.includes(PAGE_MARK);
  } finally {
    closeSync(fd);
  }
}
