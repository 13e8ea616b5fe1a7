// One log, one writer, whatever name the file is reached by. A symbolic link, a chain of them, a link
// in the folder part of the path and a hard link (a second name for the same file, in the same folder
// or another) all lead to one file, so they must all meet one lock: otherwise a second run takes a lock
// of its own, "repairs" the turn the first run is still writing and appends after it, and the first run
// stops with FILE_CHANGED. The second runs are real processes, with another TMPDIR than the first, and
// one is another user's.
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn } from "../../../fixtures/standin.ts";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { runInProcess, startDemo, startsPrograms } from "../testing/demo-testing.ts";
import { Session } from "../session.ts";
import { LogFileError } from "./log-file-types.ts";
import { assertNoLiveWriter, lockFolderOf } from "./log-lock.ts";
import { attachLogFile } from "./log-writer.ts";

const KEY = "sk-lock-identity-key-5e6f7a8b9c0d";

/** Other names for `file`, beside it, one of each kind; made before or after the file exists. */
function otherNames(file: string): Record<string, string> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  symlinkSync(base, path.join(dir, "ln-1")); // relative, as `ln -s` makes it
  symlinkSync("ln-1", path.join(dir, "ln-2")); // a chain: ln-2 → ln-1 → the file
  mkdirSync(path.join(dir, "sub"));
  symlinkSync("..", path.join(dir, "sub", "up")); // a linked folder: sub/up → dir
  return {
    "a symbolic link": path.join(dir, "ln-1"),
    "a chain of two links": path.join(dir, "ln-2"),
    "a link in the folder part": path.join(dir, "sub", "up", base),
  };
}

describe("the writer's lock belongs to the file, not to the name", () => {
  test("a second writer by another name (links, a chain, a linked folder, a hard link) is refused while the first writes", ({ dir }) => {
    const file = path.join(dir, "w.jsonl");
    const names = otherNames(file); // made first: each link dangles until the writer makes the file
    const session = new Session();
    const stop = attachLogFile(session, names["a chain of two links"] ?? "");
    try {
      session.append("turn/start", { turn: 1 });
      expect(existsSync(file), "the writer made the file the links lead to").toBe(true);
      const hardLink = path.join(dir, "hard-w.jsonl");
      linkSync(file, hardLink);
      mkdirSync(path.join(dir, "elsewhere"));
      const farLink = path.join(dir, "elsewhere", "x.jsonl");
      linkSync(file, farLink);
      const all = { ...names, "the file's own name": file, "a hard link": hardLink, "a hard link in another folder": farLink };
      for (const [kind, name] of Object.entries(all)) {
        const second = thrownAs(LogFileError, () => attachLogFile(Session.fromLog(session.events), name));
        expect(second.code, `${kind}: one file, one lock`).toBe("LOCKED");
        expect(thrownAs(LogFileError, () => assertNoLiveWriter(name)).code, `${kind}: repair sees the live writer too`).toBe("LOCKED");
      }
    } finally {
      stop();
    }
    expect(existsSync(lockFolderOf(file)), "stopping releases the one lock").toBe(false);
  });
});

describe("across processes", () => {
  test("while a live run writes d/w.jsonl, --load --continue through a symbolic link, a hard link, or a hard link in another folder (another process, another TMPDIR, another user) is refused and the file is unchanged", {
    ...startsPrograms,
  }, async ({ dir, onTestFinished }) => {
    const first = loadFixture(fixturePath("calculator")).exchanges[0]!.response;
    const standIn = await startStandIn({ apiKey: KEY, replies: [first], hangWhenDone: true });
    onTestFinished(() => standIn.close());
    chmodSync(dir, 0o755); // the user nobody reads the log through its names
    const folder = (name: string) => {
      mkdirSync(path.join(dir, name));
      return path.join(dir, name);
    };
    const [d, e, holderTmp, secondTmp] = [folder("d"), folder("e"), folder("tmp-1"), folder("tmp-2")];
    chmodSync(secondTmp, 0o777); // also nobody's TMPDIR
    const file = path.join(d, "w.jsonl");
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL, TMPDIR: holderTmp };
    const holder = startDemo(["--no-stream", "--save", file], { env });
    try {
      await standIn.received(2); // the live run waits on its second model call, its turn open in the file
      const before = readFileSync(file);
      const symbolic = path.join(d, "ln-w.jsonl");
      symlinkSync("w.jsonl", symbolic);
      const hard = path.join(d, "hard-w.jsonl");
      linkSync(file, hard);
      const far = path.join(e, "x.jsonl"); // the issue's `ln d/w.jsonl e/x.jsonl`
      linkSync(file, far);
      for (const name of [symbolic, hard]) {
        const second = await runInProcess(["--load", name, "--continue"]);
        expect(second.code, `${name}: ${second.text}`).toBe(1);
        expect(second.text).toContain("another process is writing this log");
        expect(readFileSync(file), `${name}: the second run must not append to a file with a live writer`).toEqual(before);
      }
      for (const nobody of [false, true]) {
        const second = startDemo(["--load", far, "--continue"], { env: { TMPDIR: secondTmp }, nobody });
        const { code } = await second.exited;
        const who = nobody ? "the user nobody" : "root";
        expect(code, `${who}: ${second.stdout()}`).toBe(1);
        expect(second.stdout(), `${who}: the lock is met by every name, in any folder`).toContain("another process is writing this log");
        expect(readFileSync(file), `${who}: the second run must not append to a file with a live writer`).toEqual(before);
      }
      expect(thrownAs(LogFileError, () => assertNoLiveWriter(far)).code, "repair's live-writer check meets the lock too").toBe("LOCKED");
    } finally {
      holder.child.kill("SIGKILL");
      await holder.exited;
      rmSync(lockFolderOf(file), { recursive: true, force: true }); // a killed holder's lock, in the shared place
    }
  });
});
