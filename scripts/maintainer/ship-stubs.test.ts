// The shipped stubs (scripts/maintainer/stubs/) against the learner's folder: shipping copies a maintainer's
// stub edit, refuses solved work, and npm test tells a fresh clone from a learner's checkout.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { checkShipped, hasNewTodos } from "./check-exercises.ts";
import { UsageError } from "../command.ts";
import { shipStubs } from "./ship-stubs.ts";

let from: string;
let to: string;
test.beforeEach(({ dir }) => {
  from = path.join(dir, "exercises");
  to = path.join(dir, "stubs");
  mkdirSync(from);
  mkdirSync(to);
});

const stub =
  'export function deriveMessages() { return todo("05.3", "a"); }\nexport function deriveEventMessage() { return todo("05.3", "b"); }\n';

describe("npm run ship-stubs", () => {
  test("copies an edited stub to its shipped copy, and says when nothing changed", () => {
    writeFileSync(path.join(to, "projection.ts"), stub);
    writeFileSync(path.join(from, "projection.ts"), `// a better comment\n${stub}`);
    expect(shipStubs(["05.3"], from, to)).toEqual([expect.stringMatching(/projection\.ts → .*projection\.ts$/)]);
    expect(readFileSync(path.join(to, "projection.ts"), "utf8")).toBe(`// a better comment\n${stub}`);
    expect(shipStubs(["05.3"], from, to)).toEqual(["Every shipped stub is already up to date."]);
  });

  test("refuses a file with fewer todo( calls (solved work), unless --force", () => {
    writeFileSync(path.join(to, "projection.ts"), stub);
    writeFileSync(path.join(from, "projection.ts"), stub.replace('todo("05.3", "a")', "[]"));
    expect(() => shipStubs(["05.3"], from, to)).toThrow(UsageError);
    expect(() => shipStubs(["05.3"], from, to)).toThrow(/fewer todo\( calls .* looks like solved work/);
    expect(readFileSync(path.join(to, "projection.ts"), "utf8")).toBe(stub);
    shipStubs(["05.3", "--force"], from, to);
    expect(readFileSync(path.join(to, "projection.ts"), "utf8")).not.toBe(stub);
  });
});

describe("npm test: the learner files against the shipped stubs", () => {
  const pair = () => new Map([[path.join(from, "projection.ts"), path.join(to, "projection.ts")]]);

  test("a learner file that is its shipped stub passes, fresh clone or not", () => {
    writeFileSync(path.join(from, "projection.ts"), stub);
    writeFileSync(path.join(to, "projection.ts"), stub);
    for (const fresh of [true, false]) {
      expect(checkShipped(fresh, pair()).checks).toEqual([expect.objectContaining({ ok: true })]);
    }
  });

  test("a changed learner file fails a fresh clone, and is only noted in a learner's checkout", () => {
    writeFileSync(path.join(from, "projection.ts"), "// my work\n");
    writeFileSync(path.join(to, "projection.ts"), stub);
    const fresh = checkShipped(true, pair());
    expect(fresh.checks).toEqual([expect.objectContaining({ ok: false, detail: expect.stringContaining("npm run ship-stubs") })]);
    const learner = checkShipped(false, pair());
    expect(learner.checks).toEqual([]);
    expect(learner.notes).toEqual([expect.stringContaining("projection.ts is your own work now")]);
  });

  test("in a learner's checkout, the files skipped are said once, with how many checks that is and why", () => {
    const names = ["projection.ts", "json.ts"];
    for (const name of names) {
      writeFileSync(path.join(from, name), "// my work\n");
      writeFileSync(path.join(to, name), stub);
    }
    const { checks, notes } = checkShipped(false, new Map(names.map((name) => [path.join(from, name), path.join(to, name)])));
    expect(checks).toEqual([]);
    expect(notes).toEqual([
      "跳过了 2 项检查：projection.ts、json.ts 已经是你自己的版本，所以没有检查这些文件是否还是随附的原始桩（只有全新克隆才要求这样：`npm test -- --fresh-clone`）；" +
        "上面的练习测试照样对着随附的原始桩和诱饵运行，你的文件不影响结果。维护者：改了桩之后运行 `npm run ship-stubs`" +
        " / 2 checks skipped: projection.ts, json.ts are your own work now, so whether each is its shipped stub was not checked " +
        "(only a fresh clone requires that: `npm test -- --fresh-clone`); the exercise tests above still ran against the shipped stubs " +
        "and the decoys, whatever your files hold. (Maintainers: after editing a stub, `npm run ship-stubs`.)",
    ]);
  });

  test("a learner file with more todo() calls than its shipped copy is a stale shipped stub, fresh clone or not", () => {
    writeFileSync(path.join(from, "projection.ts"), `${stub}export function more() { return todo("05.6", "c"); }\n`);
    writeFileSync(path.join(to, "projection.ts"), stub);
    expect(checkShipped(false, pair()).checks).toEqual([expect.objectContaining({ ok: false })]);
    expect(hasNewTodos(stub.replace('todo("05.3", "a")', "1"), stub), "fewer calls: the learner's work").toBe(false);
  });

  test("a missing shipped copy always fails", () => {
    writeFileSync(path.join(from, "projection.ts"), stub);
    expect(checkShipped(false, pair()).checks).toEqual([
      expect.objectContaining({ ok: false, detail: expect.stringContaining("no shipped copy") }),
    ]);
  });
});
