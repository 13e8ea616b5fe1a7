// Writing an output file whole or not at all, and knowing where a name leads before anything is there.
// Real files and links in a temporary folder; the failing rename is a real one (a folder in the way).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { resolvedPath, writeFileAtomically } from "./atomic-write.ts";

let dir = "";
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "atomic-write-"))); // the real path: what resolvedPath answers
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("resolvedPath: where a name leads, every link followed", () => {
  test("a chain of links to a file not made yet, a linked folder, and a link inside a linked folder lead to one path", () => {
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

  test('".." after a linked folder goes up from where the link leads, as the system reads it', () => {
    mkdirSync(path.join(dir, "deep", "er"), { recursive: true });
    symlinkSync("deep/er", path.join(dir, "down"));
    // path.resolve would say dir/log.jsonl; the system writes deep/log.jsonl.
    expect(resolvedPath(`${dir}/down/../log.jsonl`)).toBe(path.join(dir, "deep", "log.jsonl"));
  });

  test("a loop of links ends instead of running for ever", () => {
    symlinkSync("b", path.join(dir, "a"));
    symlinkSync("a", path.join(dir, "b"));
    expect([path.join(dir, "a"), path.join(dir, "b")]).toContain(resolvedPath(path.join(dir, "a")));
  });
});

describe("writeFileAtomically: the old file or the new one, never half of one", () => {
  test("writes through a link to where it leads, and the link stays a link", () => {
    writeFileSync(path.join(dir, "page.html"), "old");
    symlinkSync("page.html", path.join(dir, "latest.html"));
    expect(writeFileAtomically(path.join(dir, "latest.html"), "new")).toBe(path.join(dir, "page.html"));
    expect(readFileSync(path.join(dir, "page.html"), "utf8")).toBe("new");
    expect(readdirSync(dir).sort()).toEqual(["latest.html", "page.html"]);
  });

  test("a rename the system refuses (a folder in the way) removes the temporary file and leaves what was there", () => {
    const folder = path.join(dir, "page.html");
    mkdirSync(folder);
    writeFileSync(path.join(folder, "kept.txt"), "kept");
    expect(() => writeFileAtomically(folder, "new")).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir), "no temporary file left").toEqual(["page.html"]);
    expect(readFileSync(path.join(folder, "kept.txt"), "utf8")).toBe("kept");
  });
});
