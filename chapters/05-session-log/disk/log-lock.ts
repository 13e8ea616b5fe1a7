// One log, one writer: a lock that every process writing or repairing a log file takes first, so two
// runs can never append to one file, and a repair never "closes" a turn that another process is still
// writing. The lock is proper-lockfile's: a folder made with mkdir (atomic: of two processes making it,
// one gets it), whose modification time its holder refreshes every second. A holder that dies — even by
// SIGKILL, which runs no clean-up — stops refreshing it, and once it is older than STALE_MS the next
// writer takes it over. A process id in a file would be simpler, but a reused id looks alive.
//
// The lock belongs to the file, not to the name it was reached by: `run.jsonl`, a symbolic link to it
// and a hard link to it (a second name for the same file, in any folder) must all meet the same lock.
// What every name of a file shares is its device and inode number, so the lock folder is named after
// them, `dev-2049-inode-5308416.lock`, and kept in one place for the whole machine, LOCK_PLACE: where a
// folder beside each name would be looked for beside that name only. Not os.tmpdir(): TMPDIR differs
// between processes (tests set it), and two that disagree would never meet. Not covered: a process on
// another machine writing the file over a network file system (its lock is in its own /tmp).
import { chmodSync, closeSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { checkSync, lockSync } from "proper-lockfile";
import { LogFileError } from "./log-file-types.ts";
import { openRegularFile } from "./regular-file.ts";

// A write past the process's file size limit fails with EFBIG, which the writer reports, and also
// sends SIGXFSZ, which Node ignores. proper-lockfile's exit hook (signal-exit 3) listens for SIGXFSZ,
// and when it is the only listener it re-sends the signal with its default action, which kills the
// process: the run would die mid-sentence instead of saying what reached the file. A listener of our
// own keeps the signal harmless.
process.on("SIGXFSZ", () => {});

/**
 * Where every log's lock folder is kept. Open to every user, with the sticky bit, like /tmp itself: any
 * user's run can lock a file there, and no user can remove another's lock (so a lock a killed run of
 * another user left behind is an error that names it, not taken over).
 */
export const LOCK_PLACE = "/tmp/agent-harness-workbook-locks";

/** How old an unrefreshed lock must be before it counts as left behind by a dead holder. */
export const STALE_MS = 10_000;
/** How often a holder refreshes its lock (proper-lockfile's floor is one second). */
const UPDATE_MS = 1_000;

export interface LockOptions {
  /** Overrides STALE_MS when deciding whether someone else's lock is stale (tests use 2,000, the floor). */
  readonly staleMs?: number;
  /** Called, from a timer, if the lock is taken from this holder (its folder removed or refreshed by another). */
  readonly onLost?: (error: LogFileError) => void;
}

/**
 * Takes the lock for writing `file`, or throws LogFileError "LOCKED" when a live process holds it. It
 * makes the file first (an empty one, if there is none), since a lock names a file and only a file that
 * exists has an inode; anything but a regular file is "NOT_A_FILE" (regular-file.ts), before any lock is
 * taken. Returns the function that releases it (idempotent). The lock is also released when the process
 * exits normally; after a crash it goes stale instead.
 */
export function lockLogFile(file: string, options: LockOptions = {}): () => void {
  closeSync(openRegularFile(file, constants.O_RDONLY | constants.O_CREAT));
  const lockFolder = lockFolderOf(file);
  makeSharedFolder(LOCK_PLACE);
  let release: () => void;
  try {
    // The lock folder stands for the file in proper-lockfile's own bookkeeping too, whatever the name.
    release = lockSync(lockFolder, {
      lockfilePath: lockFolder,
      stale: options.staleMs ?? STALE_MS,
      update: UPDATE_MS,
      // Stryker disable next-line BooleanLiteral: equivalent, `realpath: true` would resolve a path that is already real
      realpath: false, // the lock folder's path is already absolute and free of links
      onCompromised: (cause) =>
        options.onLost?.(lockError(file, lockFolder, "this run's lock on the file was taken by another process", cause)),
    });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ELOCKED") throw cause;
    const detail = `another process is writing this log (if it was killed, its lock goes stale ${(options.staleMs ?? STALE_MS) / 1000} s after: try again then)`;
    throw lockError(file, lockFolder, detail, cause);
  }
  let held = true;
  return () => {
    // Stryker disable next-line ConditionalExpression: equivalent, proper-lockfile's release also refuses a second call (ERELEASED, caught below)
    if (!held) return;
    // Stryker disable next-line BooleanLiteral: equivalent, as above
    held = false;
    try {
      release();
    } catch {
      // Only a lock that is no longer ours fails to release (it was taken over): there is nothing to give back.
    }
  };
}

/**
 * Throws LogFileError "LOCKED" when a live process holds `file`'s lock. For code that changes a log
 * without keeping a writer attached (a repair): what looks like a crash may be a turn still running.
 */
export function assertNoLiveWriter(file: string, options: Pick<LockOptions, "staleMs"> = {}): void {
  if (!existsSync(file)) return; // a writer makes the file before it locks it: no file, no writer
  const lockFolder = lockFolderOf(file);
  // Stryker disable next-line BooleanLiteral: equivalent, `realpath: true` would resolve a path that is already real
  if (checkSync(lockFolder, { lockfilePath: lockFolder, stale: options.staleMs ?? STALE_MS, realpath: false })) {
    throw lockError(file, lockFolder, "another process is writing this log right now; its last turn may still be running");
  }
}

/** Where the lock of `file` (which must exist) is kept: in LOCK_PLACE, named after the file's device and inode. */
export function lockFolderOf(file: string): string {
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent where tests run: tmpfs, ext4 and overlayfs number inodes below 2^53, where a number prints as its bigint does
  const { dev, ino } = statSync(file, { bigint: true }); // stat follows every link; some file systems number inodes past 2^53
  return lockFolderFor(dev, ino);
}

/** The lock folder of the file with this device and inode number (npm test looks for those its tests left). */
export function lockFolderFor(dev: bigint, ino: bigint): string {
  return path.join(LOCK_PLACE, `dev-${dev}-inode-${ino}.lock`);
}

/** Makes `folder` (LOCK_PLACE) open to every user, with the sticky bit, unless it is there already: then it is left as it is. */
export function makeSharedFolder(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw error;
  }
  chmodSync(folder, 0o1777); // not mkdir's mode: the umask would take the others' write permission away
}

function lockError(file: string, lockFolder: string, detail: string, cause?: unknown): LogFileError {
  return new LogFileError("LOCKED", file, undefined, `${detail}; lock: ${lockFolder}`, { cause });
}
