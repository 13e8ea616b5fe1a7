// The log on disk under real faults, each made for real: a file system that refuses writes past a size
// (`prlimit --fsize`, as a full disk refuses them), a second demo process on the same file, and a lock
// holder killed with SIGKILL. No mocks: what is tested is what a learner's machine would do.
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn } from "../../../fixtures/standin.ts";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { root } from "../../common/root.ts";
import { test } from "../../common/temp-folder.ts";
import { runProgram, startDemo } from "../testing/demo-testing.ts";
import { LogFileError } from "./log-file-types.ts";
import { readLogFile } from "./log-file.ts";
import { attachLogFile } from "./log-writer.ts";
import { assertNoLiveWriter, lockFolderOf, STALE_MS } from "./log-lock.ts";

const KEY = "sk-disk-faults-key-9f8e7d6c5b4a";

describe("nothing is reported saved that is not on disk", () => {
  test("a write refused by a full file system stops the run before its next model call: exit 1, the count that reached the file, no torn line left", {
    timeout: 90_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "full.jsonl");
    // 1,500 bytes: the first 8 events fit, the 9th is cut mid-line (the offline calculator run, 12 events).
    const demo = startDemo(["--offline", "--save", file], { fileSizeLimit: 1500 });
    const { code } = await demo.exited;
    const output = demo.output();
    expect(output).not.toContain("已保存 / Saved");
    expect(code, output).toBe(1);
    const saved = readLogFile(file);
    const written = saved.session.events.length;
    expect(saved.torn, "the failed write took back its partial line: a reader must not call it a crash").toBeUndefined();
    expect(output).toContain(`只有前 ${written} 条事件（每条完整），从事件 #${written} 起都没有写进去`);
    expect(output).toContain(`holds only the first ${written} events`);
    expect(output).toMatch(/EFBIG/);
    const replies = output.split("\n").filter((line) => /^ {2}#\d+ +assistant\/message/.test(line));
    expect(replies, "the second model call must not be made once the log stopped reaching the file").toHaveLength(1);
  });
});

describe("one log, one writer, across processes", () => {
  test("a second demo on a file a live run is writing is refused and changes nothing; after a SIGKILL the stale lock is taken over", {
    timeout: 120_000,
  }, async ({ dir, onTestFinished }) => {
    const first = loadFixture(fixturePath("calculator")).exchanges[0]!.response;
    const standIn = await startStandIn({ apiKey: KEY, replies: [first], hangWhenDone: true });
    onTestFinished(() => standIn.close());
    const file = path.join(dir, "shared.jsonl");
    const holder = startDemo(["--no-stream", "--save", file], { env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL } });
    await standIn.received(2); // the live run waits on its second model call, its turn open in the file
    const before = readFileSync(file);

    // What the issue saw: the second run "repaired" the first one's running turn and both exited 0.
    const second = startDemo(["--load", file, "--continue"]);
    expect((await second.exited).code, second.output()).toBe(1);
    expect(second.output()).toContain("another process is writing this log");
    expect(readFileSync(file), "the second run must not append to a file with a live writer").toEqual(before);
    expect(thrownAs(LogFileError, () => assertNoLiveWriter(file)).code, "repair checks this before touching the file").toBe("LOCKED");

    holder.child.kill("SIGKILL"); // no clean-up runs: the lock folder stays behind
    await holder.exited;
    const lockFolder = lockFolderOf(file);
    onTestFinished(() => rmSync(lockFolder, { recursive: true, force: true })); // the dead holder's lock, gone however this test ends
    expect(existsSync(lockFolder)).toBe(true);
    const { session } = readLogFile(file);
    // A lock's age is its folder's mtime, all proper-lockfile reads: set here, not waited for, so that
    // neither check depends on how fast a loaded machine gets from the kill to this line.
    const lockAged = (ms: number) => {
      const at = new Date(Date.now() - ms);
      utimesSync(lockFolder, at, at);
    };
    lockAged(0); // refreshed a moment ago, as by a holder just killed
    expect(thrownAs(LogFileError, () => attachLogFile(session, file)).code, "a fresh lock still looks alive").toBe("LOCKED");
    lockAged(STALE_MS + 1000); // nobody has refreshed it for longer than the stale time
    let stop = () => {};
    expect(() => {
      stop = attachLogFile(session, file);
    }, "the lock of a dead holder is taken over once stale").not.toThrow();
    stop();
    expect(existsSync(lockFolder), "stopping releases the lock").toBe(false);
  });
});

describe("a refused write is an error to tell, never a death", () => {
  test("a writer over its process's file size limit lives on: SIGXFSZ, which Node ignores, is not turned into a kill by the lock library", {
    timeout: 60_000,
  }, async ({ dir }) => {
    const file = path.join(dir, "limited.jsonl");
    const script = path.join(dir, "overflow.mts");
    const chapter = path.join(root, "chapters/05-session-log");
    writeFileSync(
      script,
      [
        `import { Session } from ${JSON.stringify(path.join(chapter, "session.ts"))};`,
        `import { attachLogFile } from ${JSON.stringify(path.join(chapter, "disk/log-writer.ts"))};`,
        "const session = new Session({ onListenerError: (error) => console.log(error.code) });",
        `attachLogFile(session, ${JSON.stringify(file)});`,
        'session.append("user/message", { content: "x".repeat(4000) });',
        'setTimeout(() => console.log("still running"), 200); // a few turns of the event loop, where signal listeners run',
      ].join("\n"),
    );
    const run = await runProgram([script], { fileSizeLimit: 1000 });
    expect(run.signal, "the process was killed by a signal").toBeNull();
    expect(run.stdout).toBe("WRITE_FAILED\nstill running\n");
  });
});
