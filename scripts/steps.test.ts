// The manifest (steps.toml, read by scripts/steps.ts) is the one source every tool reads: these tests
// check that a wrong file is refused where it is wrong, that what it names exists, and that the guide
// agrees with it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { guideAnchor, NotImplementedError, stubStepOf } from "../exercises/05-session-log/todo.ts";
import { stepTable, withTable } from "./maintainer/guide-table.ts";
import {
  decoys,
  exercisesDir,
  findStep,
  guideFile,
  guideLink,
  inLearnerOrder,
  ManifestError,
  manifestFile,
  readManifest,
  root,
  shippedStubsDir,
  steps,
  whereInBook,
  type Step,
} from "./steps.ts";

const guide = readFileSync(guideFile, "utf8");
const ids = steps.map((step) => step.id);

describe("reading the manifest (steps.toml)", () => {
  const manifest = readFileSync(manifestFile, "utf8");

  test("text that is not TOML is refused with its line and column, in both languages", () => {
    expect(() => readManifest('[[step]]\nid = "05.1\n')).toThrow(
      new ManifestError(
        "steps.toml 第 2 行第 11 列不是合法的 TOML / steps.toml line 2, column 11 is not valid TOML: " +
          "Invalid TOML document: control characters are not allowed in strings",
      ),
    );
  });

  test("an entry with a field missing or of the wrong type is named by its number, its id and the field, in both languages", () => {
    const wrong = manifest
      .replace('bookSection = "5.4 节"\n', "")
      .replace('mistake = "tool/call is projected as a second assistant message"', "mistake = 3");
    expect(() => readManifest(wrong)).toThrow(
      new ManifestError(
        [
          "steps.toml 第 3 个练习步骤（05.3）的 bookSection：无效输入：期望 string，实际接收 undefined / " +
            "steps.toml, step #3 (05.3), field bookSection: Invalid input: expected string, received undefined",
          "steps.toml 第 3 个练习步骤（05.3）的 decoys[0].mistake：无效输入：期望 string，实际接收 数字 / " +
            "steps.toml, step #3 (05.3), field decoys[0].mistake: Invalid input: expected string, received number",
        ].join("\n"),
      ),
    );
  });

  test("a field the schema does not know is refused, so a misspelt one is never silently left out", () => {
    expect(() => readManifest(manifest.replace("hints = [", "hint = ["))).toThrow(
      'steps.toml 第 1 个练习步骤（05.1）：出现未知的键(key): "hint" / steps.toml, step #1 (05.1): Unrecognized key: "hint"',
    );
    expect(() => readManifest(manifest.replace('kind = "practice"', 'kind = "extra"'))).toThrow(
      "steps.toml, step #6 (p2), field kind: Invalid option: expected one of",
    );
    expect(() => readManifest("")).toThrow(
      "steps.toml 的 step：无效输入：期望 数组，实际接收 undefined / steps.toml, field step: Invalid input: expected array, received undefined",
    );
  });

  test("answer folders are read from the workbook's root", () => {
    expect(readManifest(manifest).find((step) => step.id === "05.7")?.answerDir).toBe(path.join(root, "chapters/05-session-log/disk"));
  });
});

describe("the step manifest", () => {
  test("step ids are unique", () => {
    expect(new Set(ids).size, ids.join(", ")).toBe(ids.length);
  });

  test("steps come in the learner's order: the book's, its 练习, then the challenges, whatever order they are listed in", () => {
    const [core, practice] = [findStep("05.1")!, findStep("p2")!];
    const challenge: Step = { ...core, id: "05.9", kind: "challenge" };
    const core2: Step = { ...core, id: "05.8" };
    expect(inLearnerOrder([challenge, practice, core, core2]).map((step) => step.id)).toEqual(["05.1", "05.8", "p2", "05.9"]);
    expect(steps).toEqual(inLearnerOrder(steps));
  });

  test.each(steps.map((step) => [step.id, step] as const))("%s: its stub, shipped stub, tests and answer exist", (_id, step) => {
    const files = {
      stub: path.join(exercisesDir, step.file),
      "shipped stub (npm run ship-stubs)": path.join(shippedStubsDir, step.file),
      test: path.join(exercisesDir, step.test),
      answer: path.join(step.answerDir, step.file),
    };
    for (const [what, file] of Object.entries(files)) expect(existsSync(file), `${step.id}'s ${what}: ${file}`).toBe(true);
  });

  test("each step needs only steps a learner has done before it", () => {
    steps.forEach((step: Step, index) => {
      const earlier = ids.slice(0, index);
      for (const need of step.needs) expect(earlier, `${step.id} needs ${need}`).toContain(need);
    });
  });

  test("every decoy file exists, and decoy names are unique", () => {
    for (const decoy of decoys) expect(existsSync(decoy.file), `decoy ${decoy.name} of ${decoy.step.id}`).toBe(true);
    const names = decoys.map((decoy) => decoy.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("todo(): the format the stubs and the tools share", () => {
  test.each(ids)("%s: a stub's error names the step's guide section, and the tools read the step back", (id) => {
    const { message } = new NotImplementedError(id, "某件事", "something");
    expect(message).toContain(`README.md#${guideAnchor(id)}`);
    expect(stubStepOf(message)).toBe(id);
    expect(stubStepOf(`Property failed after 1 tests\n${message}`), "inside a longer report").toBe(id);
  });

  test("any other message names no step", () => {
    expect(stubStepOf("expected 1 to be +0 // Object.is equality")).toBeUndefined();
  });
});

describe("the guide (exercises/05-session-log/README.md)", () => {
  test("its step table is the one the manifest gives (regenerate: npm run guide:table)", () => {
    expect(withTable(guide), `the step table, as the manifest gives it:\n${stepTable()}`).toBe(guide);
  });

  test("each step's section opens with its anchor, once", () => {
    for (const step of steps) {
      const anchor = `<a id="${guideAnchor(step.id)}"></a>`;
      expect(guide.split(anchor).length - 1, `${anchor} in the guide, before ${step.id}'s heading`).toBe(1);
    }
  });

  test("every link to a step section in the guide and the hints lands on an anchor", () => {
    const anchors = new Set([...guide.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]));
    const texts = [guide, ...steps.flatMap((step) => step.hints), ...steps.map(guideLink)];
    const links = texts.flatMap((text) => [...text.matchAll(/(?:\]\(|README\.md)#(step-[\w-]+)/g)].map((match) => match[1]));
    expect(links.length).toBeGreaterThan(steps.length);
    expect(links.filter((link) => !anchors.has(link))).toEqual([]);
  });
});

describe("a stub's error names its step in Chinese too", () => {
  test.each(ids)("%s: the Chinese half carries the step's Chinese title and the task, as the English half carries the task", (id) => {
    const step = steps.find((candidate) => candidate.id === id);
    const { message } = new NotImplementedError(id, "某件事", "something");
    expect(message.split("\n")[0]).toBe(`练习步骤 ${id}（${step?.titleZh}）还没实现：某件事 / not implemented yet — step ${id}: something`);
  });
});

describe("the progress bar the docs show", () => {
  test("has one cell per step, as `npm run watch` and `npm run progress` draw it", () => {
    const docs = [
      "README.md",
      "README.zh.md",
      "CONTRIBUTING.md",
      "exercises/05-session-log/README.md",
      "chapters/05-session-log/README.md",
    ];
    const bars = docs.flatMap((doc) =>
      [...readFileSync(path.join(root, doc), "utf8").matchAll(/([▰▱]+) (\d+)\/(\d+)/gu)].map((match) => ({ doc, match })),
    );
    expect(bars.length, "the READMEs show the bar").toBeGreaterThan(0);
    for (const { doc, match } of bars) {
      const [shown, cells = "", filled, total] = match;
      expect([cells.length, Number(total)], `${doc}: "${shown}" → ${steps.length} cells for ${steps.length} steps`).toEqual([
        steps.length,
        steps.length,
      ]);
      expect(Number(filled), `${doc}: "${shown}": one ▰ per step passed`).toBe([...cells].filter((cell) => cell === "▰").length);
    }
  });
});

describe("where the book has a step, in Chinese", () => {
  test("no stray space before a Chinese word, and no 书中本章", () => {
    expect(whereInBook({ bookSection: "5.4 节" })).toBe("对应书中 5.4 节");
    expect(whereInBook({ bookSection: "练习2" })).toBe("对应书中练习2");
    for (const step of steps) expect(whereInBook(step), step.id).not.toMatch(/书中 \p{Script=Han}|书中本章/u);
  });
});
