// npm test's guard (leftovers.ts): what its runs left in their own TMPDIR, and the lock folders left for
// files their tests made, are each said in one line, and then removed.
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { lockFolderOf, lockLogFile } from "../../chapters/05-session-log/disk/log-lock.ts";
import { leftovers } from "./leftovers.ts";
import { TEST_FILES } from "./test-tmpdir.ts";

test("a folder a test left and the lock of a file a test made are one line each, with the prefix and the test; then all is gone", ({
  dir,
}) => {
  const guard = path.join(dir, "npm-test");
  mkdirSync(path.join(guard, "mine-file-Ab12Cd"), { recursive: true });
  mkdirSync(path.join(guard, "tsx-0")); // tsx's compile cache: not a test's
  const file = path.join(dir, "run.jsonl");
  const release = lockLogFile(file); // never released before the guard looks, as by a holder killed
  const lock = lockFolderOf(file);
  const unlocked = path.join(dir, "notes.txt");
  writeFileSync(unlocked, "");
  const noted = (name: string, test: string) => {
    const { dev, ino } = statSync(name, { bigint: true });
    return `${dev}\t${ino}\t${test}\n`;
  };
  writeFileSync(path.join(guard, TEST_FILES), noted(file, "some.test.ts > a test") + noted(unlocked, "some.test.ts > another"));

  expect(leftovers(guard)).toEqual([
    "临时文件或文件夹 mine-file-Ab12Cd 还在（按前缀 mine-file- 找建它的测试文件或代码） / the temporary file or folder mine-file-Ab12Cd is still there (its prefix mine-file- leads to the test file or code that made it)",
    `测试 some.test.ts > a test 留下了锁文件夹（它锁的文件已随测试文件夹删除，没有谁会再释放它）：${lock} / ` +
      `the test some.test.ts > a test left the lock folder ${lock} behind (the file it locks went with the test's folder: nobody will release it)`,
  ]);
  expect(existsSync(guard), "npm test's folder is removed").toBe(false);
  expect(existsSync(lock), "the lock folder is removed").toBe(false);
  release();
});
