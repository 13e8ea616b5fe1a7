// Writing an output file (a timeline page: `demo --html`, `view --out`) whole or not at all. The text
// goes to a new temporary file in the same folder, is flushed to disk, and only then renamed over the
// old file. A rename within one folder is atomic: whoever reads the name sees the old file or the new
// one, never half of one. A write the disk refuses (it is full, a size limit) removes the temporary
// file and leaves the old one as it was. A rename replaces whatever has the name, so what it replaces
// is looked at first, and again right before the rename: only a regular file is replaced, never a FIFO,
// a socket or a device (NotAFileError). The new file keeps the old one's permissions (a private page
// stays private); a new page gets the umask's, as any new file does. Not covered: a process killed in
// the middle of the write leaves its temporary file behind (`.NAME.PID-RANDOM.tmp`, beside the file);
// the new file is owned by whoever wrote it.
import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fsyncSync, openSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from "node:fs";
import path from "node:path";
import { refuseSpecialFile } from "./system-errors.ts";

/**
 * Writes `text` to `file` (to where its links lead), whole or not at all; returns the path written. A
 * large text may come in pieces, written one after another, so that it is never in memory whole.
 */
export function writeFileAtomically(file: string, text: string | Iterable<string>): string {
  const target = resolvedPath(file);
  const old = replaceable(target, file);
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  const temporary = nameBeside(target, ".", path.basename(target), `.${suffix}`);
  try {
    const fd = openSync(temporary, "wx"); // "x": a new name, never a file that someone else made
    try {
      if (old !== undefined) fchmodSync(fd, old.mode & 0o7777); // openSync's mode would pass through the umask
      for (const piece of typeof text === "string" ? [text] : text) writeFileSync(fd, piece); // at the descriptor's position: one after another
      fsyncSync(fd); // on disk before the rename makes it the file
    } finally {
      closeSync(fd);
    }
    replaceable(target, file); // what the name leads to may have changed while the text was written
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    // The temporary file is a step of writing the target, not a file of the learner's: a refusal there
    // is said as the target's (system-errors.ts names a path only when it is not the target).
    if ((error as { path?: unknown }).path === temporary) Object.assign(error as object, { path: target });
    throw error;
  }
  return target;
}

/** What is at `target` now (undefined: nothing yet), after refusing anything a file must not replace. */
function replaceable(target: string, file: string): Stats | undefined {
  const found = statSync(target, { throwIfNoEntry: false });
  refuseSpecialFile(found, "rename", file);
  return found;
}

/** A name is short enough wherever it is no longer than this, or than a name already there. */
const SHORT_NAME_BYTES = 64;

/**
 * `before + middle + after`, in `file`'s folder, with `middle` cut short (between characters) as far as
 * needed for the name to be no longer in bytes than `file`'s own name, or than SHORT_NAME_BYTES: so it
 * fits wherever `file`'s name fits (a file system's limit, 255 bytes on most, is far above 64).
 */
export function nameBeside(file: string, before: string, middle: string, after: string): string {
  const room = Math.max(Buffer.byteLength(path.basename(file)), SHORT_NAME_BYTES) - Buffer.byteLength(before + after);
  let kept = "";
  for (const character of middle) {
    if (Buffer.byteLength(kept + character) > room) break;
    kept += character;
  }
  return path.join(path.dirname(file), before + kept + after);
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
