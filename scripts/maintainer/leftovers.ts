// After npm test's runs: what they left behind, one line a thing (Chinese first, English beside), and
// then it is removed. Two kinds (scripts/maintainer/test-tmpdir.ts says why none may stay):
//   1. anything in the runs' own TMPDIR: only their tests and the programs those started wrote there;
//   2. a log's lock folder, which lives in LOCK_PLACE, outside TMPDIR on purpose (log-lock.ts), and is
//      named after its file's device and inode. Other processes on the machine lock files there too,
//      so a lock counts as this run's only when it names a file a test of this run made: the
//      temp-folder fixture notes the device and inode of every file in a test's folder as it removes
//      it (WORKBOOK_TEST_FILES). Such a lock still there after the run, when every test and program of
//      the run has ended, is one nobody will release: its holder was killed, or never released it.
//      Sound on the RAM disk the tests write to: tmpfs never gives a removed file's inode number to a
//      later file, so no other process's lock can carry that name.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { TEST_FILES } from "./test-tmpdir.ts";
import { lockFolderFor } from "../../chapters/05-session-log/disk/log-lock.ts";

/** What the runs left in `guard` (guardTemporaryFiles), one line each, after which it is all removed. */
export function leftovers(guard: string): string[] {
  const files = readdirSync(guard)
    .filter((name) => name !== TEST_FILES && !/^tsx-\d+$/.test(name)) // tsx's compile cache, one per user: removed with the rest
    .map(leftFile);
  const locks = leftLocks(path.join(guard, TEST_FILES));
  rmSync(guard, { recursive: true, force: true });
  return [...files, ...locks];
}

function leftFile(name: string): string {
  const prefix = name.replace(/(?<=-)[A-Za-z0-9]{6}$/, ""); // mkdtemp's six random characters
  return `临时文件或文件夹 ${name} 还在（按前缀 ${prefix} 找建它的测试文件或代码） / the temporary file or folder ${name} is still there (its prefix ${prefix} leads to the test file or code that made it)`;
}

/** Lock folders still in LOCK_PLACE for files the run's tests made (they are removed here). */
function leftLocks(ledger: string): string[] {
  if (!existsSync(ledger)) return [];
  const lines = new Map<string, string>();
  for (const line of readFileSync(ledger, "utf8").split("\n").filter(Boolean)) {
    const [dev = "", ino = "", madeBy = ""] = line.split("\t");
    const lock = lockFolderFor(BigInt(dev), BigInt(ino));
    if (lines.has(lock) || !existsSync(lock)) continue;
    lines.set(
      lock,
      `测试 ${madeBy} 留下了锁文件夹（它锁的文件已随测试文件夹删除，没有谁会再释放它）：${lock} / ` +
        `the test ${madeBy} left the lock folder ${lock} behind (the file it locks went with the test's folder: nobody will release it)`,
    );
  }
  for (const lock of lines.keys()) rmSync(lock, { recursive: true, force: true });
  return [...lines.values()];
}
