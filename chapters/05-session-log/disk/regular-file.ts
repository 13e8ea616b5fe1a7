// A log lives in a regular file, and nothing else is ever read or written as one. Whatever a name leads
// to, through any number of symbolic links, is looked at before a byte moves: a folder or a socket
// cannot be opened as a file at all, a FIFO would make reading (or opening) wait for ever, /dev/zero
// never ends, and /dev/null swallows every line. Each is LogFileError "NOT_A_FILE", said at once.
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type Stats } from "node:fs";
import { NotAFileError } from "../../common/system-errors.ts";
import { LogFileError } from "./log-file-types.ts";

/**
 * Opens `file` with `flags` (node:fs constants) and returns the descriptor, or throws "NOT_A_FILE" when
 * the name leads to anything but a regular file. A name that does not exist yet is fine (O_CREAT makes
 * it); the system's own refusals (a missing folder, no permission) are thrown as they are.
 */
export function openRegularFile(file: string, flags: number): number {
  const found = statSync(file, { throwIfNoEntry: false }); // stat follows every link
  if (found !== undefined && !found.isFile()) throw notAFile(file, found);
  // O_NONBLOCK: if the name was changed to a FIFO since that look, opening it must not wait for ever.
  const fd = openSync(file, flags | constants.O_NONBLOCK);
  const opened = fstatSync(fd); // what was opened, not what the name led to a moment ago
  if (opened.isFile()) return fd;
  closeSync(fd);
  throw notAFile(file, opened);
}

/**
 * A regular file opened for reading, and its size (so that a file too large to read is refused before
 * a byte is read); the caller closes `fd`. A file that cannot be opened is "UNREADABLE", with the
 * system's error as its cause.
 */
export function openToRead(file: string): { readonly fd: number; readonly size: number } {
  let fd: number;
  try {
    fd = openRegularFile(file, constants.O_RDONLY);
  } catch (error) {
    if (error instanceof LogFileError) throw error;
    throw new LogFileError("UNREADABLE", file, undefined, `cannot open it (${(error as Error).message})`, { cause: error });
  }
  return { fd, size: fstatSync(fd).size };
}

/** The bytes of a regular file, read whole (see openToRead): for files known to be small. */
export function readRegularFile(file: string): Buffer {
  const { fd } = openToRead(file);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** NOT_A_FILE, its cause the same refusal a page meets (common/system-errors.ts), which names the kind in both languages. */
function notAFile(file: string, stats: Stats): LogFileError {
  const cause = new NotAFileError("open", file, stats);
  const detail = `this is ${cause.kind[1]}, not a file; a log is a regular file that a writer appended to`;
  return new LogFileError("NOT_A_FILE", file, undefined, detail, { cause });
}
