// Only a regular file is opened as a log: anything else is NOT_A_FILE, saying what it is instead.
// Real things of each kind: a folder, a socket, a character device, a block device (where the machine
// has one), each through a symbolic link too. (A FIFO is tested in 05.7 and not-a-file.test.ts.)
import { existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { descriptorsOn } from "../testing/real-faults.ts";
import { LogFileError } from "./log-file-types.ts";
import { readRegularFile } from "./regular-file.ts";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

function refusal(file: string): LogFileError {
  return thrownAs(
    LogFileError,
    () => readRegularFile(file),
    `${file} 不是普通文件，应当以 NOT_A_FILE 被拒绝 / ${file} is not a regular file and must be refused as NOT_A_FILE`,
  );
}

async function socketAt(file: string): Promise<void> {
  server = createServer();
  await new Promise<void>((resolve) => server?.listen(file, resolve));
}

/** The first block device the machine shows, if any (containers often have loop devices). */
const blockDevice = ["/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1"].find(
  (name) => existsSync(name) && statSync(name).isBlockDevice(),
);

describe("what a name leads to, said before a byte is read", () => {
  test("a folder, a socket and a character device are each named for what they are, directly and through a link", async ({ dir }) => {
    mkdirSync(path.join(dir, "folder"));
    await socketAt(path.join(dir, "socket"));
    for (const [target, kind] of [
      [path.join(dir, "folder"), "a folder"],
      [path.join(dir, "socket"), "a socket"],
      ["/dev/null", "a device"],
    ] as const) {
      const link = path.join(dir, `link-to-${path.basename(target)}`);
      symlinkSync(target, link);
      for (const name of [target, link]) {
        const error = refusal(name);
        expect(error.code, name).toBe("NOT_A_FILE");
        expect(error.message, name).toBe(`${name}: this is ${kind}, not a file; a log is a regular file that a writer appended to`);
        expect(error.cause, `${name}: the refusal a page meets (system-errors.ts)`).toMatchObject({
          code: "NOT_A_FILE",
          syscall: "open",
          path: name,
        });
      }
    }
  });

  test.runIf(blockDevice !== undefined)("a block device is a device too", () => {
    const name = blockDevice ?? "";
    expect(refusal(name).message).toBe(`${name}: this is a device, not a file; a log is a regular file that a writer appended to`);
  });
});

describe("a regular file", () => {
  test.runIf(existsSync("/proc/self/fd"))("is read whole and its descriptor closed again", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    writeFileSync(file, "line\n");
    for (let read = 0; read < 5; read++) expect(readRegularFile(file).toString()).toBe("line\n");
    expect(descriptorsOn(file), "descriptors open on it after five reads").toEqual([]);
  });
});
