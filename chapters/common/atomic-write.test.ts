// Writing an output file whole or not at all, and knowing where a name leads before anything is there.
// Real files and links in a temporary folder; the failing rename is a real one (a folder in the way);
// what must never be replaced is real too: a FIFO (mkfifo), a unix socket a server listens on, and a
// device node made with mknod in the test's own folder (never the machine's /dev/null).
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "./temp-folder.ts";
import { nameBeside, resolvedPath, writeFileAtomically } from "./atomic-write.ts";
import { thrownAs } from "../../exercises/05-session-log/thrown.ts";
import { NotAFileError } from "./system-errors.ts";

// `dir` is the folder's real path (temp-folder.ts): what resolvedPath answers.

describe("resolvedPath: where a name leads, every link followed", () => {
  test("a chain of links to a file not made yet, a linked folder, and a link inside a linked folder lead to one path", ({ dir }) => {
    const file = path.join(dir, "log.jsonl");
    symlinkSync("log.jsonl", path.join(dir, "ln1"));
    symlinkSync("ln1", path.join(dir, "ln2"));
    symlinkSync(".", path.join(dir, "here"));
    for (const name of ["ln2", "here/log.jsonl", "here/here/ln2", "./here/./ln1"]) {
      expect(resolvedPath(path.join(dir, name)), name).toBe(file);
    }
    writeFileSync(file, "");
    expect(resolvedPath(path.join(dir, "here", "ln2")), "and the same once it exists").toBe(file);
  });

  test('".." after a linked folder goes up from where the link leads, as the system reads it', ({ dir }) => {
    mkdirSync(path.join(dir, "deep", "er"), { recursive: true });
    symlinkSync("deep/er", path.join(dir, "down"));
    // path.resolve would say dir/log.jsonl; the system writes deep/log.jsonl.
    expect(resolvedPath(`${dir}/down/../log.jsonl`)).toBe(path.join(dir, "deep", "log.jsonl"));
  });

  test("a loop of links ends instead of running for ever", ({ dir }) => {
    symlinkSync("b", path.join(dir, "a"));
    symlinkSync("a", path.join(dir, "b"));
    expect([path.join(dir, "a"), path.join(dir, "b")]).toContain(resolvedPath(path.join(dir, "a")));
  });

  test('a link back to itself through ".", "" or ".." (dot -> dot/.) stops at the link, the name the system then refuses (ELOOP)', ({
    dir,
  }) => {
    for (const [name, target] of [
      ["dot", "dot/."],
      ["slash", "slash/"],
      ["up", "up/x/.."],
    ] as const) {
      const link = path.join(dir, name);
      symlinkSync(target, link);
      expect(resolvedPath(link), `${name} -> ${target}`).toBe(link);
    }
    expect(thrownAs(Error, () => writeFileAtomically(path.join(dir, "dot"), "new"))).toMatchObject({
      code: "ELOOP",
      path: path.join(dir, "dot"),
    });
  });

  test("follows as many links as the system does (40): a chain of 40 leads to the file, one of 41 stops at its last link", ({ dir }) => {
    const file = path.join(dir, "page.html");
    writeFileSync(file, "");
    const chain = (length: number, prefix: string) => {
      for (let n = length; n >= 1; n--) symlinkSync(n === length ? "page.html" : `${prefix}${n + 1}`, path.join(dir, `${prefix}${n}`));
      return path.join(dir, `${prefix}1`);
    };
    expect(resolvedPath(chain(40, "forty-")), "40 links").toBe(realpathSync(chain(40, "again-")));
    const fortyOne = chain(41, "long-");
    expect(() => realpathSync(fortyOne), "the system gives up after 40").toThrow(/ELOOP/);
    expect(resolvedPath(fortyOne)).toBe(path.join(dir, "long-41"));
  });
});

describe("writeFileAtomically: the old file or the new one, never half of one", () => {
  test("writes through a link to where it leads, and the link stays a link", ({ dir }) => {
    writeFileSync(path.join(dir, "page.html"), "old");
    symlinkSync("page.html", path.join(dir, "latest.html"));
    expect(writeFileAtomically(path.join(dir, "latest.html"), "new")).toBe(path.join(dir, "page.html"));
    expect(readFileSync(path.join(dir, "page.html"), "utf8")).toBe("new");
    expect(readdirSync(dir).sort()).toEqual(["latest.html", "page.html"]);
  });

  test("a rename the system refuses (a folder in the way) removes the temporary file and leaves what was there", ({ dir }) => {
    const folder = path.join(dir, "page.html");
    mkdirSync(folder);
    writeFileSync(path.join(folder, "kept.txt"), "kept");
    expect(() => writeFileAtomically(folder, "new")).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir), "no temporary file left").toEqual(["page.html"]);
    expect(readFileSync(path.join(folder, "kept.txt"), "utf8")).toBe("kept");
  });
});

describe("writeFileAtomically never replaces what is not a regular file", () => {
  test("a FIFO, a listening unix socket and a device node: NotAFileError naming the kind, each left as it was, no temporary file", async ({
    dir,
  }) => {
    const fifo = path.join(dir, "pipe.html");
    execFileSync("mkfifo", [fifo]);
    const device = path.join(dir, "null.html");
    execFileSync("mknod", [device, "c", "1", "3"]); // a private node with /dev/null's numbers
    const socket = path.join(dir, "socket.html");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    symlinkSync("null.html", path.join(dir, "link.html"));
    try {
      for (const [name, kind, is] of [
        [fifo, "a pipe (FIFO)", "isFIFO"],
        [socket, "a socket", "isSocket"],
        [device, "a device", "isCharacterDevice"],
        [path.join(dir, "link.html"), "a device", "isCharacterDevice"],
      ] as const) {
        let error: unknown;
        try {
          writeFileAtomically(name, "<!doctype html>");
        } catch (thrown) {
          error = thrown;
        }
        expect(error, name).toBeInstanceOf(NotAFileError);
        // "rename": what would have replaced it (system-errors.ts says "无法重命名 / Cannot rename" when no doing is given).
        expect(error).toMatchObject({ code: "NOT_A_FILE", syscall: "rename", path: name, kind: [expect.any(String), kind] });
        expect(statSync(name)[is](), `${name} is still ${kind}`).toBe(true);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(readdirSync(dir).sort(), "no temporary file left").toEqual(["link.html", "null.html", "pipe.html"]);
  });
});

describe("what writing a page leaves behind", () => {
  test("the temporary file is .NAME.PID-RANDOM.tmp beside the page: one a killed run leaves says whose it was", async ({ dir }) => {
    const seen: string[] = [];
    let watcher: ReturnType<typeof watch> | undefined;
    // The folder's changes, in order: everything before "done" was the page's write.
    const done = new Promise<void>((resolve) => {
      watcher = watch(dir, (_event, name) => (name === "done" ? resolve() : name !== null && seen.push(name)));
    });
    writeFileAtomically(path.join(dir, "page.html"), "new");
    writeFileSync(path.join(dir, "done"), "");
    await done;
    watcher?.close();
    const temporary = new RegExp(`^\\.page\\.html\\.${process.pid}-[0-9a-f]{8}\\.tmp$`);
    expect(seen.filter((name) => name !== "page.html").length, "a temporary file was made").toBeGreaterThan(0);
    for (const name of seen.filter((name) => name !== "page.html")) expect(name).toMatch(temporary);
  });

  test("no file left open: the descriptor is closed after a write, and after a rename the system refuses", ({ dir }) => {
    // What this process holds open in the test's folder (other threads may open files of their own meanwhile).
    const openHere = () =>
      readdirSync("/proc/self/fd")
        .map((fd) => linkTarget(`/proc/self/fd/${fd}`))
        .filter((target) => target.startsWith(`${dir}/`));
    writeFileAtomically(path.join(dir, "page.html"), "new");
    expect(openHere(), "after a write").toEqual([]);
    mkdirSync(path.join(dir, "folder"));
    writeFileSync(path.join(dir, "folder", "kept.txt"), "");
    expect(() => writeFileAtomically(path.join(dir, "folder"), "new")).toThrow();
    expect(openHere(), "after a refused rename").toEqual([]);
  });
});

/** Where an entry of /proc/self/fd leads ("" for one closed while the list was read). */
function linkTarget(entry: string): string {
  try {
    return readlinkSync(entry);
  } catch {
    return "";
  }
}

describe("writeFileAtomically keeps a page's permissions", () => {
  test("a page rewritten keeps the old file's mode (a private 0600 page stays private), through a link too", ({ dir }) => {
    const page = path.join(dir, "page.html");
    writeFileSync(page, "old");
    chmodSync(page, 0o600);
    writeFileAtomically(page, "new");
    expect((statSync(page).mode & 0o7777).toString(8)).toBe("600");
    chmodSync(page, 0o640);
    symlinkSync("page.html", path.join(dir, "latest.html"));
    writeFileAtomically(path.join(dir, "latest.html"), "newer");
    expect((statSync(page).mode & 0o7777).toString(8), "the file the link leads to keeps its mode").toBe("640");
  });

  test("a new page gets the mode any new file gets: 0666 less the umask", ({ dir }) => {
    const page = path.join(dir, "new.html");
    writeFileAtomically(page, "new");
    const umask = process.umask();
    expect((statSync(page).mode & 0o777).toString(8)).toBe((0o666 & ~umask).toString(8));
  });
});

describe("the temporary name fits wherever the target's name fits", () => {
  test("a page whose name is 255 bytes, the most most file systems take, is written", ({ dir }) => {
    const page = path.join(dir, `${"p".repeat(250)}.html`);
    expect(writeFileAtomically(page, "new")).toBe(page);
    expect(readFileSync(page, "utf8")).toBe("new");
    expect(readdirSync(dir), "no temporary file left").toEqual([path.basename(page)]);
  });

  test("nameBeside cuts no more than it must: a name cut to fit is exactly as long as the target's", ({ dir }) => {
    const page = path.join(dir, `${"p".repeat(250)}.html`); // 255 bytes
    expect(Buffer.byteLength(path.basename(nameBeside(page, ".", path.basename(page), ".1234-abcdef01.tmp")))).toBe(255);
  });

  test("nameBeside cuts the middle between characters, to the name's own length in bytes (or 64, for a short name)", ({ dir }) => {
    const long = path.join(dir, `${"页".repeat(80)}.html`); // 245 bytes: 3 a character
    const beside = nameBeside(long, ".", path.basename(long), ".1234-abcdef01.tmp");
    expect(path.dirname(beside)).toBe(dir);
    expect(Buffer.byteLength(path.basename(beside))).toBeLessThanOrEqual(Buffer.byteLength(path.basename(long)));
    expect(path.basename(beside)).toMatch(/^\.页+\.1234-abcdef01\.tmp$/u); // no character cut in half
    expect(path.basename(nameBeside(path.join(dir, "a.html"), ".", "a.html", ".1-ab.tmp")), "a short name is kept whole").toBe(
      ".a.html.1-ab.tmp",
    );
  });
});
