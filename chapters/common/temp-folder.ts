// For tests: vitest's `test` with a temporary folder of the test's own, `dir`. It is made when a test
// asks for it (`test("…", ({ dir }) => …)`), under the system's temporary folder (a RAM disk under
// vitest.config.ts), named after the test file, and removed with all it holds once the test has ended,
// passed or failed: a test writes what it likes there and cleans up nothing itself. `dir` is its real
// path, every link followed (where the temporary folder is reached through a link, as on macOS), so a
// path the code under test resolves is the one the test built.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test as vitestTest } from "vitest";

export const test = vitestTest.extend<{ dir: string }>({
  dir: async ({ task }, use) => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), `${path.basename(task.file.name, ".test.ts")}-`)));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
});
