// Writing an output file (a timeline page: `demo --html`, `view --out`) whole or not at all. The text
// goes to a new temporary file in the same folder, is flushed to disk, and only then renamed over the
// old file. A rename within one folder is atomic: whoever reads the name sees the old file or the new
// one, never half of one. A write the disk refuses (it is full, a size limit) removes the temporary
// file and leaves the old one as it was. Not covered: a process killed in the middle of the write
// leaves its temporary file behind (`.NAME.PID-RANDOM.tmp`, beside the file).
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Writes `text` to `file` (to where its links lead), whole or not at all; returns the path written. */
export function writeFileAtomically(file: string, text: string): string {
  const target = resolvedPath(file);
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${suffix}.tmp`);
  const fd = openSync(temporary, "wx"); // "x": a new name, never a file that someone else made
  try {
    try {
      writeFileSync(fd, text);
      fsyncSync(fd); // on disk before the rename makes it the file
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return target;
}

/** Links followed before a name counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Where `file` leads: the absolute path with every symbolic link followed, in the folders too, even
 * where the file (or the target of a link) does not exist yet. Two names of one place resolve alike.
 * A hard link is not followed (it is a name of its own): compare device and inode for those.
 */
export function resolvedPath(file: string): string {
  return follow(process.cwd(), file, 0);
}

/**
 * `name` read from the folder `from` one part at a time, as the system reads it: a link is replaced
 * by where it leads, so a ".." after it goes up from there (path.resolve would only drop the part before).
 */
function follow(from: string, name: string, links: number): string {
  let at = path.isAbsolute(name) ? path.parse(name).root : from;
  for (const part of name.split(path.sep)) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      at = path.dirname(at);
      continue;
    }
    const next = path.join(at, part);
    const target = linkTarget(next);
    at = target === undefined || links >= MAX_LINKS ? next : follow(at, target, links + 1);
  }
  return at;
}

function linkTarget(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined; // not a link, or not there
  }
}
