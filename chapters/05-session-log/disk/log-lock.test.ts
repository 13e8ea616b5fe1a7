// The writer's lock, in one process: where its folder is, what a refusal says, when a lock left behind
// counts as stale, that releasing is idempotent, and that a holder hears when its lock is taken. Real
// files and real lock folders; the second process's view is in disk-faults.test.ts and lock-identity.test.ts.
import { chmodSync, existsSync, linkSync, mkdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { closingEvents } from "./log-file.ts";
import { LogFileError, RepairError } from "./log-file-types.ts";
import { assertNoLiveWriter, LOCK_PLACE, lockFolderOf, lockLogFile, makeSharedFolder, STALE_MS } from "./log-lock.ts";

const releases: (() => void)[] = [];
/** Lock paths a test made by hand in LOCK_PLACE, which is shared: removed after it, as a release would. */
const madeByHand: string[] = [];
afterEach(() => {
  for (const release of releases.splice(0)) release();
  for (const made of madeByHand.splice(0)) rmSync(made, { recursive: true, force: true });
});

/** Takes the lock and releases it after the test, whatever happens. */
function lock(file: string, options: Parameters<typeof lockLogFile>[1] = {}): () => void {
  const release = lockLogFile(file, options);
  releases.push(release);
  return release;
}

/** A lock folder for `file` as a holder that died `ageMs` ago left it: never refreshed since. */
function leftBehind(file: string, ageMs: number): string {
  writeFileSync(file, "", { flag: "a" });
  const folder = lockFolderOf(file);
  mkdirSync(folder);
  madeByHand.push(folder);
  const then = (Date.now() - ageMs) / 1000;
  utimesSync(folder, then, then);
  return folder;
}

describe("where the lock is", () => {
  test("a folder in the one LOCK_PLACE, named after the file's device and inode, made only while the lock is held", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const release = lock(path.join(dir, "run.jsonl"));
    const { dev, ino } = statSync(file, { bigint: true });
    const folder = `/tmp/agent-harness-workbook-locks/dev-${dev}-inode-${ino}.lock`;
    expect(lockFolderOf(file)).toBe(folder);
    expect(statSync(folder).isDirectory(), "held: the lock folder exists").toBe(true);
    release();
    expect(existsSync(folder), "released: the lock folder is gone").toBe(false);
  });

  test("LOCK_PLACE is open to every user, with the sticky bit, like /tmp: another user's run can lock there, and remove only its own", ({
    dir,
  }) => {
    lock(path.join(dir, "run.jsonl"));
    expect((statSync(LOCK_PLACE).mode & 0o7777).toString(8)).toBe("1777");
  });

  test("the first run on a machine makes LOCK_PLACE with mode 1777; later runs leave the folder as it is (it may be another user's)", ({
    dir,
  }) => {
    const place = path.join(dir, "locks");
    makeSharedFolder(place);
    expect((statSync(place).mode & 0o7777).toString(8), "made: open to every user, sticky, whatever the umask").toBe("1777");
    chmodSync(place, 0o755);
    makeSharedFolder(place);
    expect((statSync(place).mode & 0o7777).toString(8), "already there: not changed").toBe("755");
    const error = thrownAs(Error, () => makeSharedFolder(path.join(dir, "missing", "locks")), "a folder whose parent is missing");
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  test("locking a file that does not exist yet makes it, empty: only a file that exists has an inode", ({ dir }) => {
    const file = path.join(dir, "new.jsonl");
    lock(file);
    expect(statSync(file).size).toBe(0);
  });

  test("every name of the file has the one lock folder: a symbolic link, and a hard link in another folder", ({ dir }) => {
    const real = path.join(dir, "real");
    const other = path.join(dir, "other");
    mkdirSync(real);
    mkdirSync(other);
    writeFileSync(path.join(real, "run.jsonl"), "");
    symlinkSync(path.join(real, "run.jsonl"), path.join(dir, "link.jsonl"));
    linkSync(path.join(real, "run.jsonl"), path.join(other, "x.jsonl"));
    const folder = lockFolderOf(path.join(real, "run.jsonl"));
    expect(lockFolderOf(path.join(dir, "link.jsonl"))).toBe(folder);
    expect(lockFolderOf(path.join(other, "x.jsonl"))).toBe(folder);
  });
});

describe("a lock someone holds", () => {
  test("is LOCKED for a second writer, naming the file, when its lock goes stale, and the lock folder", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    lock(file);
    const error = thrownAs(LogFileError, () => lockLogFile(file));
    expect(error.code).toBe("LOCKED");
    expect(error.source).toBe(file);
    expect(error.message).toContain(
      `another process is writing this log (if it was killed, its lock goes stale ${STALE_MS / 1000} s after: try again then); lock: ${lockFolderOf(file)}`,
    );
    expect(thrownAs(LogFileError, () => lockLogFile(file, { staleMs: 3000 })).message).toContain("its lock goes stale 3 s after");
    expect(error.cause, "the lock library's own refusal stays as the cause").toMatchObject({ code: "ELOCKED" });
  });

  test("is LOCKED for a repair too: its last turn may still be running; closingEvents says so as a RepairError of the whole file, the lock's refusal its cause", ({
    dir,
  }) => {
    const file = path.join(dir, "run.jsonl");
    lock(file);
    const error = thrownAs(LogFileError, () => assertNoLiveWriter(file));
    expect(error.code).toBe("LOCKED");
    expect(error.message).toContain(
      `another process is writing this log right now; its last turn may still be running; lock: ${lockFolderOf(file)}`,
    );
    const repair = (() => {
      try {
        closingEvents([], { file });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(repair).toBeInstanceOf(RepairError);
    expect(repair).toMatchObject({ index: undefined, cause: { code: "LOCKED", message: error.message } });
    expect(String(repair), "a refusal of the whole file names no event").toBe(
      `RepairError: cannot repair this log by appending: ${error.message}. ` +
        "Only a log the agent loop leaves when it is killed can be closed; anything else is a damaged log to look at by hand.",
    );
  });

  test("releasing twice gives nothing back the second time: a lock taken since stays held", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const first = lockLogFile(file);
    first();
    lock(file);
    first();
    expect(thrownAs(LogFileError, () => assertNoLiveWriter(file)).code, "the second holder still holds the file").toBe("LOCKED");
  });

  test("a holder whose lock folder is taken away hears it through onLost, as a LOCKED error", async ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    const lost = new Promise<LogFileError>((resolve) => lock(file, { onLost: resolve }));
    rmSync(lockFolderOf(file), { recursive: true });
    const error = await lost; // the next refresh (every second) finds its folder gone
    expect(error.code).toBe("LOCKED");
    expect(error.message).toContain("this run's lock on the file was taken by another process; lock: ");
  });

  test("a holder that gave no onLost (a learner's writer: lockLogFile(file)) is not crashed when its lock is taken", async ({ dir }) => {
    const [quiet, heard] = [path.join(dir, "quiet.jsonl"), path.join(dir, "heard.jsonl")];
    lock(quiet);
    // Locked second and refreshed after it: by the time this one hears its loss, the first has found its own.
    const lost = new Promise<LogFileError>((resolve) => lock(heard, { onLost: resolve }));
    // What would end a real process (a throw from the refresh timer) is caught here, and only here, meanwhile.
    const others = process.rawListeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    const thrown: unknown[] = [];
    process.on("uncaughtException", (error) => thrown.push(error));
    try {
      rmSync(lockFolderOf(quiet), { recursive: true });
      rmSync(lockFolderOf(heard), { recursive: true });
      await lost;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.removeAllListeners("uncaughtException");
      for (const listener of others) process.on("uncaughtException", listener as NodeJS.UncaughtExceptionListener);
    }
    expect(thrown, "nothing is thrown from the lock's refresh timer").toEqual([]);
  });
});

describe("a lock left behind", () => {
  test("a lock path that cannot be taken over (a file where the folder goes) is the system's error, not LOCKED", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    writeFileSync(file, "");
    const lockPath = lockFolderOf(file);
    writeFileSync(lockPath, "");
    madeByHand.push(lockPath);
    const then = (Date.now() - 5_000) / 1000;
    utimesSync(lockPath, then, then);
    let error: unknown;
    try {
      lockLogFile(file, { staleMs: 2_000 });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).not.toBeInstanceOf(LogFileError);
    expect(error).toMatchObject({ code: "ENOTDIR" });
  });

  test("no file, no writer: a repair of a file that does not exist is not refused", ({ dir }) => {
    expect(() => assertNoLiveWriter(path.join(dir, "none.jsonl"))).not.toThrow();
    writeFileSync(path.join(dir, "unlocked.jsonl"), "");
    expect(() => assertNoLiveWriter(path.join(dir, "unlocked.jsonl"))).not.toThrow();
  });

  test(`is taken over once older than staleMs (${STALE_MS} ms unless given): younger, it still counts as held`, ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    leftBehind(file, 5_000);
    expect(thrownAs(LogFileError, () => assertNoLiveWriter(file)).code, `5 s old, under ${STALE_MS} ms`).toBe("LOCKED");
    expect(thrownAs(LogFileError, () => lockLogFile(file)).code, `5 s old, under ${STALE_MS} ms`).toBe("LOCKED");
    expect(() => assertNoLiveWriter(file, { staleMs: 2_000 }), "5 s old, over 2,000 ms").not.toThrow();
    lock(file, { staleMs: 2_000 });
    expect(thrownAs(LogFileError, () => assertNoLiveWriter(file)).code, "taken over: held again").toBe("LOCKED");
  });
});
