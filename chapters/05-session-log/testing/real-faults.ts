// Faults made for real inside the test process, for the writer's tests (disk/log-writer-*.test.ts and
// step 05.7's): a disk that refuses writes past a size, and a record of each flush to disk; and which
// descriptors this process holds open on a file (the reader's and the writer's tests). A mutant
// of the writer lives in the test process, so these are made here, not in a child process.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/**
 * Runs `action` and returns every fsyncSync / fdatasyncSync call made meanwhile (each is still made, for
 * real): which file was flushed (its inode) and how long it was then. Node's syncBuiltinESMExports makes
 * the `fsyncSync` a module imported from "node:fs" the recording one too, until it is put back.
 */
export function flushesDuring(action: () => void): { ino: number; size: number }[] {
  const flushes: { ino: number; size: number }[] = [];
  const real = { fsyncSync: fs.fsyncSync, fdatasyncSync: fs.fdatasyncSync };
  const recorded = (flush: (fd: number) => void) => (fd: number) => {
    const { ino, size } = fs.fstatSync(fd);
    flushes.push({ ino, size });
    flush(fd);
  };
  Object.assign(fs, { fsyncSync: recorded(real.fsyncSync), fdatasyncSync: recorded(real.fdatasyncSync) });
  syncBuiltinESMExports();
  try {
    action();
  } finally {
    Object.assign(fs, real);
    syncBuiltinESMExports();
  }
  return flushes;
}

/** Whether this machine has util-linux's prlimit (Linux does; macOS does not, and skips the tests that need it). */
export const hasPrlimit = spawnSync("prlimit", ["--version"]).status === 0;

/**
 * Runs `action` while this test process may not make any file larger than `bytes`: a write past it
 * stops there and the next one fails with EFBIG, as a full disk fails with ENOSPC. Only the soft limit
 * is lowered, so that the process can put it back afterwards.
 */
export function withFileSizeLimit(bytes: number, action: () => void): void {
  const pid = String(process.pid);
  const before = execFileSync("prlimit", ["--pid", pid, "--fsize", "--output=SOFT", "--noheadings"], { encoding: "utf8" }).trim();
  execFileSync("prlimit", ["--pid", pid, `--fsize=${bytes}:`]);
  try {
    action();
  } finally {
    execFileSync("prlimit", ["--pid", pid, `--fsize=${before}:`]);
  }
}

/** This process's open descriptors on `file`: counted by where they point, since the test runner opens and closes its own meanwhile. */
export function descriptorsOn(file: string): string[] {
  const target = fs.realpathSync(file);
  return fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === target;
    } catch {
      return false; // closed between listing and reading (the listing's own descriptor among them)
    }
  });
}
