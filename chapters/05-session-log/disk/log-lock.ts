// One log, one writer: a lock that every process writing or repairing a log file takes first, so two
// runs can never append to one file, and a repair never "closes" a turn that another process is still
// writing. The lock is proper-lockfile's: a folder `FILE.lock` made with mkdir (atomic on every file
// system, network ones too), whose modification time its holder refreshes every second. A holder that
// dies — even by SIGKILL, which runs no clean-up — stops refreshing it, and once it is older than
// STALE_MS the next writer takes it over. A process id in a file would be simpler, but a reused id
// looks alive, and an id from another machine cannot be checked at all.
import path from "node:path";
import { checkSync, lockSync } from "proper-lockfile";
import { LogFileError } from "./log-file-types.ts";

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
 * Takes the lock for writing `file`, or throws LogFileError "LOCKED" when a live process holds it.
 * Returns the function that releases it (idempotent). The lock is also released when the process exits
 * normally; after a crash it goes stale instead.
 */
export function lockLogFile(file: string, options: LockOptions = {}): () => void {
  const target = path.resolve(file); // the lock belongs to the path, whether or not the file exists yet
  let release: () => void;
  try {
    release = lockSync(target, {
      stale: options.staleMs ?? STALE_MS,
      update: UPDATE_MS,
      realpath: false,
      onCompromised: (cause) => options.onLost?.(lockError(file, "this run's lock on the file was taken by another process", cause)),
    });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ELOCKED") throw cause;
    const detail = `another process is writing this log (if it was killed, its lock goes stale ${(options.staleMs ?? STALE_MS) / 1000} s after: try again then)`;
    throw lockError(file, detail, cause);
  }
  let held = true;
  return () => {
    if (!held) return;
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
  if (checkSync(path.resolve(file), { stale: options.staleMs ?? STALE_MS, realpath: false })) {
    throw lockError(file, "another process is writing this log right now; its last turn may still be running");
  }
}

function lockError(file: string, detail: string, cause?: unknown): LogFileError {
  const lockFolder = `${path.resolve(file)}.lock`;
  return new LogFileError("LOCKED", file, undefined, `${detail}; lock: ${lockFolder}`, { cause });
}
