// One log, one writer: a lock that every process writing or repairing a log file takes first, so two
// runs can never append to one file, and a repair never "closes" a turn that another process is still
// writing. The lock is proper-lockfile's: a folder made with mkdir (atomic on every file system, network
// ones too), whose modification time its holder refreshes every second. A holder that dies — even by
// SIGKILL, which runs no clean-up — stops refreshing it, and once it is older than STALE_MS the next
// writer takes it over. A process id in a file would be simpler, but a reused id looks alive, and an id
// from another machine cannot be checked at all.
//
// The lock belongs to the file, not to the name it was reached by: `run.jsonl`, a symbolic link to it
// and a hard link to it (a second name for the same file) must all meet the same lock. So the lock
// folder sits beside the file where it really is (every link followed, in its folders too), named after
// the file's inode number, which every name of the file shares: `log-inode-5308416.lock`. Not covered:
// a hard link in another folder. A hard link is a real path of its own, so its lock folder is looked
// for in its own folder, where no other name's writer puts one.
import { closeSync, constants, existsSync, realpathSync, statSync } from "node:fs";
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
  let release: () => void;
  try {
    release = lockSync(realpathSync(file), {
      lockfilePath: lockFolder,
      stale: options.staleMs ?? STALE_MS,
      update: UPDATE_MS,
      // Stryker disable next-line BooleanLiteral: equivalent, `realpath: true` would resolve a path that is already real
      realpath: false, // already the real path; the lock folder is named above
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
    if (!held) return;
    // Stryker disable next-line BooleanLiteral: equivalent, proper-lockfile's release also refuses a second call (ERELEASED, caught below)
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
  if (checkSync(realpathSync(file), { lockfilePath: lockFolder, stale: options.staleMs ?? STALE_MS, realpath: false })) {
    throw lockError(file, lockFolder, "another process is writing this log right now; its last turn may still be running");
  }
}

/** Where the lock of `file` (which must exist) is kept: beside the file itself, named after its inode. */
export function lockFolderOf(file: string): string {
  const real = realpathSync(file);
  const { ino } = statSync(real, { bigint: true }); // some file systems number inodes past 2^53
  return path.join(path.dirname(real), `log-inode-${ino}.lock`);
}

function lockError(file: string, lockFolder: string, detail: string, cause?: unknown): LogFileError {
  return new LogFileError("LOCKED", file, undefined, `${detail}; lock: ${lockFolder}`, { cause });
}
