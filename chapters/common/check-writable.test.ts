// checkWritable's refusals are system errors like Node's own: a code, the call, the path as typed and a
// message naming all three, so that explainSystemError says them and a stack trace, if one is printed,
// reads like Node's. Anything else that goes wrong is a bug, and cannotWrite lets it through.
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "./temp-folder.ts";
import { thrownAs } from "../../exercises/05-session-log/thrown.ts";
import { cannotWrite, checkWritable } from "./system-errors.ts";

describe("checkWritable's refusals", () => {
  test("a folder in the file's place: EISDIR from open, naming the path as typed", ({ dir }) => {
    const error = thrownAs(Error, () => checkWritable(dir), "checkWritable refuses a folder");
    expect(error).toMatchObject({ code: "EISDIR", syscall: "open", path: dir, message: `EISDIR: open '${dir}'` });
  });

  test("said without a doing of the caller's, it is what opening failed to do", ({ dir }) => {
    expect(cannotWrite(dir)).toBe(`这是一个文件夹，不是文件，无法打开 ${dir} / Cannot open ${dir}: it is a folder, not a file (EISDIR)`);
  });

  test("a relative name is checked from the working folder, and named as typed", ({ dir }) => {
    const relative = path.relative(process.cwd(), dir);
    expect(cannotWrite(relative)).toBe(
      `这是一个文件夹，不是文件，无法打开 ${relative} / Cannot open ${relative}: it is a folder, not a file (EISDIR)`,
    );
  });
});

describe("cannotWrite", () => {
  test("a failure that is not the system's (a bug) is thrown, not turned into a sentence", () => {
    expect(() => cannotWrite(42 as unknown as string)).toThrow(TypeError);
  });
});
