// For tests: vitest's `test` with a temporary folder of the test's own, `dir`. It is made when a test
// asks for it (`test("…", ({ dir }) => …)`), under the system's temporary folder (a RAM disk under
// vitest.config.ts), named after the test file, and removed with all it holds once the test has ended,
// passed or failed: a test writes what it likes there and cleans up nothing itself. `dir` is its real
// path, every link followed (where the temporary folder is reached through a link, as on macOS), so a
// path the code under test resolves is the one the test built.
// `fileDir` is the same for a whole test file, for what its tests share (`test.beforeAll(({ fileDir }) => …)`):
// made once, removed after the file's last test.
import { appendFileSync, lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test as vitestTest } from "vitest";

export const test = vitestTest.extend<{ dir: string; fileDir: string }>({
  dir: async ({ task }, use) => {
    const dir = tempFolder(task.file.name);
    await use(dir);
    removeFolder(dir, `${task.file.name} > ${task.name}`);
  },
  fileDir: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's first parameter as an object pattern
    async ({}, use) => {
      const testFile = path.relative(process.cwd(), expect.getState().testPath ?? "a test file");
      const dir = tempFolder(testFile);
      await use(dir);
      removeFolder(dir, testFile);
    },
    { scope: "file" },
  ],
});

function tempFolder(testFile: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), `${path.basename(testFile, ".test.ts")}-`)));
}

/**
 * Removes `dir`. Under `npm test` (scripts/maintainer/test.ts sets WORKBOOK_TEST_FILES) it first notes
 * the device and inode of every file in it, with the test that made it: a log's lock is named after
 * those (chapters/05-session-log/disk/log-lock.ts), so a lock the test left behind is still traced to
 * it after the file is gone.
 */
function removeFolder(dir: string, madeBy: string): void {
  const ledger = process.env.WORKBOOK_TEST_FILES;
  if (ledger) {
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).flatMap((name) => {
      const file = lstatSync(path.join(dir, name), { bigint: true, throwIfNoEntry: false });
      return file === undefined ? [] : [`${file.dev}\t${file.ino}\t${madeBy}\n`]; // gone already: a program still ending removed it
    });
    appendFileSync(ledger, files.join(""));
  }
  rmSync(dir, { recursive: true, force: true });
}
