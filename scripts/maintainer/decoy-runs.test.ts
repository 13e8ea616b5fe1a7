// The decoy check runs every decoy in one project whose files share workers and modules: each decoy's
// run must see its own decoy for the file it replaces, the answers for every other learner file, and
// no module another decoy's run loaded (scripts/maintainer/decoy-runs.ts).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";
import { describe, expect, onTestFinished } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { ended, startProcess, startsPrograms } from "../../chapters/05-session-log/testing/demo-testing.ts";
import { decoyOf, decoyRunFile, removeDecoyRuns, swapInDecoys, writeDecoyRuns } from "./decoy-runs.ts";
import { answerFiles, decoys, exercisesDir, root } from "../steps.ts";

type Resolve = (source: string, importer: string) => Promise<string | null>;

/** The plugin's resolveId with Vite's own resolution stood in for by a plain path join. */
function resolver(): Resolve {
  const hook = swapInDecoys().resolveId as Extract<Plugin["resolveId"], (...args: never[]) => unknown>;
  const context = {
    resolve: async (source: string, importer: string) => ({ id: path.resolve(path.dirname(importer.replace(/\?.*$/, "")), source) }),
  };
  return async (source, importer) => {
    const result = (await hook.call(context as never, source, importer, { isEntry: false, attributes: {} } as never)) as {
      id: string;
    } | null;
    return result?.id ?? null;
  };
}

const byName = (name: string) => {
  const decoy = decoys.find((each) => each.name === name);
  if (decoy === undefined) throw new Error(`no decoy ${name} in the manifest`);
  return decoy;
};

describe("decoy runs", () => {
  test("each decoy's run file imports its step's test file, and is known by its name", () => {
    writeDecoyRuns();
    onTestFinished(removeDecoyRuns);
    for (const decoy of decoys) {
      const file = decoyRunFile(decoy);
      expect(readFileSync(file, "utf8")).toContain(`import ${JSON.stringify(path.join(exercisesDir, decoy.step.test))};`);
      expect(decoyOf(file)).toBe(decoy);
    }
  });

  test("in a run, the replaced file is the decoy, another learner file its answer, a learner-folder helper the run's own copy", async () => {
    const resolve = resolver();
    const decoy = byName("json-shallow-freeze");
    const test = await resolve(path.join(exercisesDir, decoy.step.test), decoyRunFile(decoy));
    expect(test).toBe(`${path.join(exercisesDir, decoy.step.test)}?decoy=json-shallow-freeze`);
    expect(await resolve("./json.ts", test ?? "")).toBe(decoy.file);
    expect(await resolve("./session.ts", test ?? "")).toBe(answerFiles().get(path.join(exercisesDir, "session.ts")));
    expect(await resolve("./arbitraries.ts", test ?? "")).toBe(`${path.join(exercisesDir, "arbitraries.ts")}?decoy=json-shallow-freeze`);
    expect(await resolve("../../chapters/05-session-log/json.ts", test ?? ""), "the chapter is shared by every run").toBe(
      path.join(exercisesDir, "../../chapters/05-session-log/json.ts"),
    );
  });

  test("two decoys of one step never share a module: each run's copy of the learner folder is its own", async () => {
    const resolve = resolver();
    const [one, other] = [byName("json-shallow-freeze"), byName("json-freezes-input")];
    const testOf = async (decoy: typeof one) => (await resolve(path.join(exercisesDir, decoy.step.test), decoyRunFile(decoy))) ?? "";
    expect(await testOf(one)).not.toBe(await testOf(other));
    expect(await resolve("./json.ts", await testOf(one))).not.toBe(await resolve("./json.ts", await testOf(other)));
  });

  test("a check run removes the run files it wrote once it ends", startsPrograms, async ({ dir }) => {
    const vitest = path.join(root, "node_modules/.bin/vitest");
    const args = ["run", "--mode", "check", "--project", "decoys", "--passWithNoTests", "no-test-file-has-this-name"];
    const run = await ended(startProcess(vitest, args, { TMPDIR: dir }));
    expect(run.code, run.output).toBe(0);
    expect(readdirSync(dir), "the check run's own decoy run files, written for it and left behind").toEqual([]);
  });

  test("outside a decoy's run (the stubs, the answers, the chapter) the plugin changes nothing", async () => {
    expect(await resolver()("./json.ts", path.join(exercisesDir, "05.1-freeze-json.test.ts"))).toBeNull();
  });
});
