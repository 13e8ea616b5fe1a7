// `npm run hint -- 05.3`: hints that reveal a little more each time. The first call prints hint 1,
// the next hint 2, and so on (`--all` reprints every hint seen so far); how many a learner has seen
// is kept per step in a small state file (.workbook/hints.json at the repo root, or
// $WORKBOOK_STATE_DIR/hints.json), so it survives between runs. `--reset` forgets (one step, or
// every step when no id is given).
import { readStateFile, stateFile, writeStateFile } from "./state-file.ts";
import pc from "picocolors";
import type { Command, Flags } from "../../chapters/common/flags.ts";
import { isMain, readArgs, requireStep, runMain } from "../command.ts";
import { guideLink, steps, type Step } from "../steps.ts";

/** Step id → how many of its hints have been shown. */
export type HintState = Readonly<Record<string, number>>;

export function hintStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return stateFile("hints.json", env);
}

/** A missing or unreadable state file just means no hints were asked for yet. */
export function readHintState(file: string): HintState {
  const state: Record<string, number> = {};
  for (const [id, count] of Object.entries(readStateFile(file))) {
    if (typeof count === "number" && Number.isSafeInteger(count) && count > 0) state[id] = count;
  }
  return state;
}

export function writeHintState(file: string, state: HintState): void {
  writeStateFile(file, state);
}

/** One more hint for `id`, never past the last one. */
export function revealNext(state: HintState, id: string, total: number): { state: HintState; shown: number } {
  const shown = Math.min((state[id] ?? 0) + 1, total);
  return { state: { ...state, [id]: shown }, shown };
}

export function forget(state: HintState, id: string | undefined): HintState {
  if (id === undefined) return {};
  const { [id]: _forgotten, ...rest } = state;
  return rest;
}

/**
 * The text a learner sees: the step, the newest hint (or, with `all`, every hint seen so far), and
 * what to do next. Earlier hints are not repeated by default: by the fourth call they would bury
 * the new one.
 */
export function renderHints(step: Step, stepHints: readonly string[], shown: number, all = false, inWatch = false): string {
  const lines = [pc.bold(`练习步骤 ${step.id} — ${step.titleZh} / ${step.title}`), ""];
  const from = all ? 0 : shown - 1;
  if (from > 0) {
    const earlier = from === 1 ? "1" : `1–${from}`;
    const english = from === 1 ? "hint 1 is" : `hints ${earlier} are`;
    lines.push(pc.dim(`提示 ${earlier} 不再重复；看过的全部提示 / ${english} not repeated; every hint you have seen:`));
    lines.push(pc.dim(`  npm run hint -- ${step.id} --all`), "");
  }
  stepHints.slice(from, shown).forEach((hint, offset) => {
    const number = from + offset + 1;
    const label = pc.cyan(`提示 ${number}/${stepHints.length} / hint ${number} of ${stepHints.length}:`);
    lines.push(`${label} ${indentAfterFirst(hint)}`, "");
  });
  if (shown < stepHints.length && inWatch) {
    lines.push(pc.dim(`还卡着？再按 h 看提示 ${shown + 1} / still stuck? Press h again for hint ${shown + 1}.`));
  } else if (shown < stepHints.length) {
    lines.push(pc.dim(`还卡着？再运行一次看提示 ${shown + 1} / still stuck? Run it again for hint ${shown + 1}:`));
    lines.push(pc.dim(`  npm run hint -- ${step.id}`));
  } else {
    lines.push(pc.yellow(`这是 ${step.id} 的最后一条提示 / that was the last hint for ${step.id}.`));
    lines.push(`还卡着？把你的代码和答案对照 / still stuck? See the answer beside your code:`, `  npm run compare -- ${step.id}`);
  }
  return lines.join("\n");
}

function indentAfterFirst(text: string): string {
  return text.split("\n").join("\n    ");
}

export interface HintDeps {
  readonly stateFile: string;
  /** Shown inside `npm run watch`: "press h again" instead of the command. */
  readonly inWatch?: boolean;
  /** Hint texts by step id, instead of the manifest's (the tests use their own). */
  readonly hints?: Readonly<Record<string, readonly string[]>>;
  readonly steps?: readonly Step[];
}

const COMMAND = {
  usage: ["npm run hint -- <练习步骤 / step> [--all]", "npm run hint -- [<练习步骤 / step>] --reset"],
  flags: {
    all: { type: "boolean", help: "重新显示看过的全部提示 / every hint seen so far, again" },
    reset: { type: "boolean", help: "忘掉看过的提示（不给练习步骤就是全部）/ forget the hints seen (every step's without an id)" },
  },
  positionals: true,
} as const satisfies Command<Flags>;

/** The whole command, minus printing: returns the text, updates the state file. */
export function hintCommand(argv: readonly string[], deps: HintDeps): string {
  const { id, values } = readArgs(argv, COMMAND);
  const list = deps.steps ?? steps;
  if (values.reset === true) {
    const step = id === undefined ? undefined : requireStep(id, "hint", list);
    writeHintState(deps.stateFile, forget(readHintState(deps.stateFile), step?.id));
    return step === undefined
      ? "Forgot the hints of every step: each starts again at hint 1."
      : `Forgot the hints of ${step.id}: \`npm run hint -- ${step.id}\` starts again at hint 1.`;
  }
  const step = requireStep(id, "hint", list);
  const stepHints = deps.hints?.[step.id] ?? step.hints;
  if (stepHints.length === 0) {
    return `No hints for ${step.id} yet. Read ${guideLink(step)}, or compare with the answer: \`npm run compare -- ${step.id}\``;
  }
  const state = readHintState(deps.stateFile);
  const seen = state[step.id] ?? 0;
  // --all reprints what was seen without revealing more (or the first hint, if none was seen yet).
  if (values.all === true && seen > 0) return renderHints(step, stepHints, Math.min(seen, stepHints.length), true);
  const next = revealNext(state, step.id, stepHints.length);
  writeHintState(deps.stateFile, next.state);
  return renderHints(step, stepHints, next.shown, values.all === true, deps.inWatch);
}

if (isMain(import.meta.url)) {
  await runMain(() => console.log(hintCommand(process.argv.slice(2), { stateFile: hintStateFile() })));
}
