// Where tests write their temporary files, and what `npm test` does about any they leave behind.
//
// Tests write to a RAM disk where the machine has one: an fsync there costs microseconds instead of
// milliseconds on a busy disk, and the code under test runs the same calls. But a file left on a RAM
// disk holds memory until the machine restarts, so npm test (scripts/maintainer/test.ts) gives its two
// vitest runs a fresh folder of their own as TMPDIR; no other process writes there, so whatever is in it
// after the runs was left by a test or by the code it ran, and is said, with its name, and removed.
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The RAM disk, where the machine has one (Linux's /dev/shm). */
export function ramDisk(): string | undefined {
  return process.platform === "linux" && existsSync("/dev/shm") ? "/dev/shm" : undefined;
}

/**
 * The TMPDIR a vitest run gives its tests (vitest.config.ts): npm test's own folder under npm test. (Not
 * one per run by mode: vitest loads the config again for each project, with the mode "test".)
 */
export function testTmpdir(): { TMPDIR?: string } {
  const guarded = process.env.WORKBOOK_TEST_TMPDIR;
  if (guarded !== undefined) return { TMPDIR: guarded };
  const ram = ramDisk();
  return ram === undefined ? {} : { TMPDIR: ram };
}

/**
 * Makes npm test's folder and hands it to the runs about to start (vitest.config.ts reads it when
 * a run loads its config), and the file where the temp-folder fixture (chapters/common/temp-folder.ts)
 * notes every file a test made.
 */
export function guardTemporaryFiles(): string {
  const guard = mkdtempSync(path.join(ramDisk() ?? tmpdir(), "workbook-npm-test-"));
  chmodSync(guard, 0o1777); // open like /tmp: some tests run a program as the user nobody, on files in it
  process.env.WORKBOOK_TEST_TMPDIR = guard;
  process.env.WORKBOOK_TEST_FILES = path.join(guard, TEST_FILES);
  // Removed however npm test ends: after the runs (leftovers.ts), on an error, or by Ctrl-C.
  process.once("exit", () => rmSync(guard, { recursive: true, force: true }));
  process.once("SIGINT", () => process.exit(130));
  return guard;
}

/** In npm test's folder, where the fixture notes the files tests made (not a leftover). */
export const TEST_FILES = "files-made-by-tests.tsv";
