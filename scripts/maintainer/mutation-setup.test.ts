// The mutation run skips program-starting tests by name (mutation-setup.ts). A test renamed since would
// run again in every mutant's run: minutes wasted, and, in Stryker's sandbox, a failing dry run.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { root } from "../../chapters/common/root.ts";
import { PROGRAM_TESTS } from "./mutation-setup.ts";

test("every test the mutation run skips by name is still a test of that name", () => {
  const files = ["chapters", "fixtures", "scripts"].flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".test.ts"))
      .map((file) => path.join(root, folder, file)),
  );
  // The formatter may put a long name on the line after `test(`.
  const text = files
    .map((file) => readFileSync(file, "utf8"))
    .join("\n")
    .replace(/test\(\s+/g, "test(");
  const gone = [...PROGRAM_TESTS].filter((name) => !text.includes(`test(${JSON.stringify(name)}`) && !text.includes(`test(\`${name}\``));
  expect(gone, "renamed or removed: put the test's new name in PROGRAM_TESTS (scripts/maintainer/mutation-setup.ts)").toEqual([]);
});
