// The step manifest, as the tools see it: steps.toml (at the workbook's root, where its fields are
// described) read once, checked against the schema below, and given paths. Every tool takes its steps
// from here; the stubs' todo() reads only the Chinese titles, straight from the file.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, TomlError } from "smol-toml";
import { z } from "zod";
import { root } from "../chapters/common/root.ts";
import { guideAnchor } from "../exercises/05-session-log/todo.ts";

export { root };
export const manifestFile = path.join(root, "steps.toml");
export const exercisesDir = path.join(root, "exercises/05-session-log");
export const chapterDir = path.join(root, "chapters/05-session-log");
export const solutionsDir = path.join(root, "solutions/05-session-log");
export const decoysDir = path.join(root, "scripts/maintainer/decoys");
/** The stubs as the workbook ships them, never edited by a learner. */
export const shippedStubsDir = path.join(root, "scripts/maintainer/stubs/05-session-log");
export const guideFile = path.join(exercisesDir, "README.md");

const text = z.string().min(1);
const tsFile = z.string().regex(/^[\w.-]+\.ts$/);

const stepSchema = z.strictObject({
  id: z.string().regex(/^(?:\d\d\.\d+|p\d+)$/),
  /** core: the book's sections; practice: the book's 练习 as code; challenge: past the book. */
  kind: z.enum(["core", "practice", "challenge"]),
  title: text,
  titleZh: text,
  bookSection: text,
  file: tsFile,
  test: z.string().regex(/^[\w.-]+\.test\.ts$/),
  /** Absolute once read; written from the workbook's root. */
  answerDir: text.transform((dir) => path.join(root, dir)),
  needs: z.array(text).readonly(),
  decoys: z.array(z.strictObject({ name: z.string().regex(/^[a-z0-9-]+$/), mistake: text, replaces: tsFile.optional() })).readonly(),
  alsoEdits: z
    .array(z.strictObject({ file: tsFile, whatZh: text, what: text }))
    .readonly()
    .optional(),
  hints: z.array(text).min(1).readonly(),
});

const manifestSchema = z.strictObject({ step: z.array(stepSchema).min(1) });

export type Step = Readonly<z.output<typeof stepSchema>>;
export type StepKind = Step["kind"];

/** What is wrong with the manifest, named in both languages: its line, or its entry and field. */
export class ManifestError extends Error {
  override readonly name = "ManifestError";
}

/** The steps `source` (a steps.toml) lists, as written; a ManifestError says where it is wrong. */
export function readManifest(source: string, file = "steps.toml"): Step[] {
  let data: unknown;
  try {
    data = parse(source);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split("\n")[0] ?? "";
    throw new ManifestError(
      `${file} 第 ${error.line} 行第 ${error.column} 列不是合法的 TOML / ${file} line ${error.line}, column ${error.column} is not valid TOML: ${reason}`,
      { cause: error },
    );
  }
  const read = manifestSchema.safeParse(data);
  if (read.success) return read.data.step;
  // Said again in Chinese: zod's own Chinese messages, for the same issues.
  const zh = manifestSchema.safeParse(data, { error: z.locales.zhCN().localeError }).error?.issues ?? [];
  const lines = read.error.issues.map((issue, index) => {
    const [zhWhere, enWhere] = whereIn(data, issue.path);
    return `${file}${zhWhere}：${zh[index]?.message ?? issue.message} / ${file}${enWhere}: ${issue.message}`;
  });
  throw new ManifestError(lines.join("\n"));
}

/** Where an issue is, in both languages: ` 第 3 个练习步骤（05.3）的 decoys[1].mistake`, `, step #3 (05.3), field decoys[1].mistake`. */
function whereIn(data: unknown, at: readonly PropertyKey[]): [zh: string, en: string] {
  const [top, index, ...field] = at;
  if (top !== "step" || typeof index !== "number") return at.length === 0 ? ["", ""] : [` 的 ${fieldPath(at)}`, `, field ${fieldPath(at)}`];
  const id = (data as { step: ({ id?: unknown } | undefined)[] }).step[index]?.id;
  const [zhId, enId] = typeof id === "string" ? [`（${id}）`, ` (${id})`] : ["", ""];
  const [zhField, enField] = field.length === 0 ? ["", ""] : [`的 ${fieldPath(field)}`, `, field ${fieldPath(field)}`];
  return [` 第 ${index + 1} 个练习步骤${zhId}${zhField}`, `, step #${index + 1}${enId}${enField}`];
}

/** `decoys[1].mistake`, as the field is written in the file. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`)).join("");
}

const kindOrder: readonly StepKind[] = ["core", "practice", "challenge"];

/** Steps in the order a learner takes them: core, practice, challenge; within a kind, as listed. */
export function inLearnerOrder(list: readonly Step[]): Step[] {
  return [...list].sort((a, b) => kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind));
}

export const steps: readonly Step[] = inLearnerOrder(readManifest(readFileSync(manifestFile, "utf8")));

/**
 * Where the book has the step, as a Chinese line says it: `对应书中 5.4 节`, `对应书中练习2` (no space
 * before a Chinese word), `对应本章开头…` (本章 is the book's chapter already).
 */
export function whereInBook({ bookSection }: Pick<Step, "bookSection">): string {
  if (bookSection.startsWith("本章")) return `对应${bookSection}`;
  return /^\d/u.test(bookSection) ? `对应书中 ${bookSection}` : `对应书中${bookSection}`;
}

export function findStep(id: string): Step | undefined {
  return steps.find((step) => step.id === id);
}

/** Where a step's instructions are, as a learner would open it. */
export function guideLink(step: Step): string {
  return `exercises/05-session-log/README.md#${guideAnchor(step.id)}`;
}

export interface Decoy {
  readonly name: string;
  /** What is wrong with it, as the check reports it. */
  readonly mistake: string;
  /** The step whose tests must catch it. */
  readonly step: Step;
  readonly file: string;
  /** The learner's file it stands in for (absolute): the step's own, unless the entry says otherwise. */
  readonly replaces: string;
}

export const decoys: readonly Decoy[] = steps.flatMap((step) =>
  step.decoys.map(({ name, mistake, replaces = step.file }) => ({
    name,
    mistake,
    step,
    file: path.join(decoysDir, `${name}.ts`),
    replaces: path.join(exercisesDir, replaces),
  })),
);

/** The files learners edit, each once (05.2 and 05.4 share session.ts). */
export function learnerFiles(): string[] {
  return [...new Set(steps.map((step) => path.join(exercisesDir, step.file)))];
}

/** Every file a learner edits, mapped to the answer that stands in for it in the answers run. */
export function answerFiles(): Map<string, string> {
  return new Map(steps.map((step) => [path.join(exercisesDir, step.file), path.join(step.answerDir, step.file)]));
}

/** Every file a learner edits, mapped to its shipped stub: the stubs run and reset both read these. */
export function shippedStubs(): Map<string, string> {
  return new Map(steps.map((step) => [path.join(exercisesDir, step.file), path.join(shippedStubsDir, step.file)]));
}
