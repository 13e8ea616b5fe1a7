// The lock between users: every log's lock lives in one place for the whole machine (LOCK_PLACE), so it
// must be open to every user, no user may take another's lock away, and an error there must say that it
// is the lock that cannot be made, not the log. Each case is real: the user nobody (setpriv), a log folder nobody cannot write, and a fresh
// /tmp, or a LOCK_PLACE nobody cannot write, in a private mount namespace (unshare -m, as root), so that
// the machine's own LOCK_PLACE, which other tests are using, is never touched.
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { root } from "../../common/root.ts";
import { DEMO, ended, programCommand, startDemo, startProcess, startsPrograms } from "../testing/demo-testing.ts";
import { readLogFile } from "./log-file.ts";
import { LOCK_PLACE, lockFolderOf, lockLogFile } from "./log-lock.ts";

/** A folder in `dir` with `mode` (set after mkdir, which the umask would narrow); `dir` is opened to the user nobody. */
function folder(dir: string, name: string, mode: number): string {
  chmodSync(dir, 0o755); // the user nobody finds its way in
  const made = path.join(dir, name);
  mkdirSync(made);
  chmodSync(made, mode);
  return made;
}

/** `shell` run by sh as root in a mount namespace of its own (unshare -m): mounts made there are seen by nothing else. */
const inOwnNamespace = (shell: string, env: Record<string, string>) => ended(startProcess("unshare", ["-m", "sh", "-c", shell], env));

/**
 * sh that mounts a fresh, empty /tmp in the namespace, the workbook kept where it is: a clone under
 * /tmp (as CI's may be) would otherwise vanish under the new mount, tsx and the chapter with it.
 */
const freshTmp = (dir: string) => {
  const kept = shellWords([path.join(dir, "workbook")]);
  const workbook = shellWords([root]);
  return `mkdir ${kept} && mount --bind ${workbook} ${kept} && mount -t tmpfs none /tmp && mkdir -p ${workbook} && mount --bind ${kept} ${workbook}`;
};

/** argv as one line of sh, each word quoted. */
const shellWords = (words: readonly string[]) => words.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");

describe("LOCK_PLACE between users", () => {
  test("made fresh under a umask of 077, it is open to every user with the sticky bit: nobody locks its own log there while root holds another, and meets root's lock through a hard link in another folder", {
    ...startsPrograms,
  }, async ({ dir }) => {
    const held = path.join(folder(dir, "d", 0o755), "w.jsonl");
    writeFileSync(held, ""); // 0644: nobody may read it, as a log shared between users is read
    const far = path.join(folder(dir, "e", 0o755), "x.jsonl");
    linkSync(held, far);
    const own = path.join(folder(dir, "mine", 0o777), "own.jsonl");
    const script = path.join(dir, "lock-as.mts");
    writeFileSync(
      script,
      [
        'import { execFileSync } from "node:child_process";',
        'import { statSync } from "node:fs";',
        `import { assertNoLiveWriter, LOCK_PLACE, lockLogFile } from ${JSON.stringify(path.join(root, "chapters/05-session-log/disk/log-lock.ts"))};`,
        "const [role, held, far, own] = process.argv.slice(2);",
        "const codeOf = (action) => { try { action(); return 'taken'; } catch (error) { return error.code; } };",
        "if (role === 'root') {",
        "  lockLogFile(held);",
        "  const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx'];",
        "  const heard = execFileSync(nobody[0], [...nobody.slice(1), process.argv[1], 'nobody', held, far, own], { encoding: 'utf8' });",
        "  console.log(JSON.stringify({ place: (statSync(LOCK_PLACE).mode & 0o7777).toString(8), nobody: JSON.parse(heard) }));",
        "} else {",
        "  console.log(JSON.stringify({ farLink: codeOf(() => lockLogFile(far)), repair: codeOf(() => assertNoLiveWriter(far)), own: codeOf(() => lockLogFile(own)) }));",
        "}",
      ].join("\n"),
    );
    const tsxCache = folder(dir, "tmp", 0o777);
    const node = programCommand([script, "root", held, far, own]);
    // A fresh /tmp, so that LOCK_PLACE is made by this run, under a umask that would keep every other user out.
    const run = await inOwnNamespace(`${freshTmp(dir)} && umask 077 && exec ${shellWords(node)}`, { TMPDIR: tsxCache });
    expect(run.code, run.output).toBe(0);
    expect(JSON.parse(run.output)).toEqual({ place: "1777", nobody: { farLink: "LOCKED", repair: "LOCKED", own: "taken" } });
  });
});

describe("another user's lock left behind", () => {
  test("is not taken over (the sticky bit lets no user remove another's): the sentence names the lock folder, and nothing is written", {
    ...startsPrograms,
  }, async ({ dir }) => {
    const log = path.join(folder(dir, "shared", 0o777), "w.jsonl");
    writeFileSync(log, "");
    chmodSync(log, 0o666);
    lockLogFile(log)(); // LOCK_PLACE is there, as after any run
    const lock = lockFolderOf(log);
    mkdirSync(lock); // root's run, killed long ago: its lock never refreshed since
    const then = new Date(Date.now() - 60_000);
    utimesSync(lock, then, then);
    try {
      const demo = startDemo(["--offline", "--save", log], { env: { TMPDIR: folder(dir, "tmp", 0o777) }, nobody: true });
      const { code } = await demo.exited;
      expect(code, demo.stdout()).toBe(1);
      expect(demo.stdout()).toContain(
        `操作不被允许（EPERM，${lock}），无法保存到 ${log} / Cannot save to ${log}: ${lock}: the operation is not permitted (EPERM)`,
      );
      expect(readFileSync(log, "utf8")).toBe("");
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  });
});

describe("a log the user can write, in a folder the user cannot (item: name what cannot be written)", () => {
  /** The case: a writable log (0666) in a read-only folder, saved to by the user nobody. */
  function readOnlyFolderLog(dir: string): string {
    const log = path.join(folder(dir, "ro", 0o777), "w.jsonl");
    writeFileSync(log, "");
    chmodSync(log, 0o666);
    chmodSync(path.dirname(log), 0o555);
    return log;
  }

  test("is saved to: its lock is made in LOCK_PLACE, not beside it", { ...startsPrograms }, async ({ dir }) => {
    const log = readOnlyFolderLog(dir);
    const demo = startDemo(["--offline", "--save", log], { env: { TMPDIR: folder(dir, "tmp", 0o777) }, nobody: true });
    const { code } = await demo.exited;
    expect(code, demo.stdout()).toBe(0);
    const { session, torn } = readLogFile(log);
    expect(torn).toBeUndefined();
    expect(demo.stdout()).toContain(`已保存：${log} 里有 ${session.events.length} 条事件`);
  });

  test("when the lock cannot be made (LOCK_PLACE not open to the user), the sentence names the lock folder, not the log", {
    ...startsPrograms,
  }, async ({ dir }) => {
    const log = readOnlyFolderLog(dir);
    const tsxCache = folder(dir, "tmp", 0o777);
    const node = programCommand([DEMO, "--offline", "--save", log], { nobody: true });
    // In this namespace only: a LOCK_PLACE of root's that no one else may write in.
    const shell = `${freshTmp(dir)} && mkdir -m 0755 ${LOCK_PLACE} && exec ${shellWords(node)}`;
    const run = await inOwnNamespace(shell, { TMPDIR: tsxCache });
    expect(run.code, run.output).toBe(1);
    const lock = new RegExp(`${LOCK_PLACE}/dev-\\d+-inode-\\d+\\.lock`).exec(run.output)?.[0];
    expect(lock, `the lock folder is named: ${run.output}`).toBeDefined();
    expect(run.output).toContain(
      `没有权限（EACCES，${lock}），无法保存到 ${log} / Cannot save to ${log}: ${lock}: permission denied (EACCES)`,
    );
    expect(run.output, "refused before the run").not.toContain("① 订阅者视角");
    expect(readFileSync(log, "utf8"), "nothing written to the log").toBe("");
  });
});
