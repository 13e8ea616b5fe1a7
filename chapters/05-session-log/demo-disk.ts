// The demo's disk side (05.7): `--save FILE` keeps the log in a JSONL file as it happens; `--load FILE`
// reads one back with no model call, saying what was torn and what repair appended; `--continue` (the
// recorded follow-up question) or `--ask QUESTION` (live) goes on with a new turn, saved as it happens.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { fixturePath, loadFixture, type Fixture } from "../../fixtures/fixture.ts";
import { CALCULATOR_PROMPT, FOLLOW_UP_PROMPT, userMessagesIn } from "../../fixtures/scenarios.ts";
import type { SessionEvent } from "./events.ts";
import { LogFileError, RepairError } from "./log-file-types.ts";
import { attachLogFile, readLogFile, repairLog } from "./log-file.ts";
import { Session } from "./session.ts";

/** The demo's disk options, for node:util parseArgs. */
export const diskOptions = {
  save: { type: "string" },
  load: { type: "string" },
  continue: { type: "boolean" },
  ask: { type: "string" },
} as const satisfies ParseArgsConfig["options"];

export interface DiskArgs {
  readonly save?: string | undefined;
  readonly load?: string | undefined;
  readonly continue?: boolean | undefined;
  readonly ask?: string | undefined;
}

/** What the run does with the disk: where the log comes from and goes, and what it asks. */
export interface DiskPlan {
  readonly load: string | undefined;
  /** Where events are written as they happen; a conversation loaded to go on is saved back into its file. */
  readonly save: string | undefined;
  /** The question of the turn to run; undefined when --load only shows a file. */
  readonly prompt: string | undefined;
}

export class DiskUsageError extends Error {
  override readonly name = "DiskUsageError";
}

export function planDisk(args: DiskArgs): DiskPlan {
  const goesOn = args.continue === true || args.ask !== undefined;
  if (goesOn && args.load === undefined) throw new DiskUsageError("--continue and --ask go on with a loaded conversation: add --load FILE");
  if (args.continue === true && args.ask !== undefined) {
    throw new DiskUsageError("--continue asks the recorded follow-up question and --ask your own: use one of them");
  }
  if (args.load === undefined) return { load: undefined, save: args.save, prompt: CALCULATOR_PROMPT };
  return { load: args.load, save: args.save ?? (goesOn ? args.load : undefined), prompt: goesOn ? (args.ask ?? FOLLOW_UP_PROMPT) : undefined };
}

export interface DiskIO {
  readonly out: (line?: string) => void;
  /** How the demo prints one event (section ②'s format). */
  readonly format: (event: SessionEvent) => string;
}

export interface OpenedSession {
  readonly session: Session;
  /** Stops writing (closes the file); harmless when nothing was being saved. */
  readonly stop: () => void;
}

/**
 * The session the demo works on: a new one, or the one --load reads (telling what was torn, and
 * repairing a turn a crash left open), with --save's writer attached before the repair so that the
 * file gets it too. Undefined, after saying why, when the file cannot be read or written.
 */
export function openSession(plan: DiskPlan, io: DiskIO): OpenedSession | undefined {
  const loaded = plan.load === undefined ? { session: new Session(), torn: false } : load(plan.load, io);
  if (loaded === undefined) return undefined;
  const { session } = loaded;
  let stop = () => {};
  if (plan.save !== undefined) {
    const attached = attach(session, plan.save, loaded.torn && plan.save === plan.load, io);
    if (attached === undefined) return undefined;
    stop = attached;
  }
  if (plan.load !== undefined) repair(session, plan.save !== undefined, io);
  return { session, stop };
}

function load(file: string, { out }: DiskIO): { session: Session; torn: boolean } | undefined {
  try {
    const { session, torn, format } = readLogFile(file);
    out(`从文件读取 / Loaded ${file}: ${session.events.length} events (${format}), no model call`);
    if (torn !== undefined) {
      const how = torn.reason === "unterminated" ? "no newline at its end" : "not an event's JSON";
      out(`  撕裂的最后一行 / Torn last line ${torn.line} (${how}, ${torn.bytes} bytes): a write cut short by a crash; dropped, every event before it kept`);
    }
    return { session, torn: torn !== undefined };
  } catch (error) {
    if (!(error instanceof LogFileError) && (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    out(`无法读取 / Cannot load ${file}: ${(error as Error).message}`);
    return undefined;
  }
}

function attach(session: Session, file: string, tornFile: boolean, { out }: DiskIO): (() => void) | undefined {
  try {
    const stop = attachLogFile(session, file);
    out(`保存到 / Saving to ${file}: each event is written (and fsync'd) the moment it is logged`);
    return stop;
  } catch (error) {
    if (!(error instanceof LogFileError)) throw error;
    out(`无法保存 / Cannot save to ${file}: ${error.message}`);
    out(
      tornFile
        ? `  A torn line stays where it is (nothing in a log is edited): go on in a new file with --load ${file} --save NEW.jsonl --continue`
        : `  --save starts a new log: choose a new file, or go on with that log: --load ${file} --continue`,
    );
    return undefined;
  }
}

function repair(session: Session, saved: boolean, { out, format }: DiskIO): void {
  const before = session.events.length;
  try {
    repairLog(session);
  } catch (error) {
    if (!(error instanceof RepairError)) throw error;
    out(`  无法修复 / Not repaired: ${error.message}`);
    return;
  }
  const added = session.events.slice(before);
  if (added.length === 0) return out("  每一轮都已闭合 / Every turn is closed: nothing to repair");
  const where = saved ? "" : " (in memory: the file is unchanged until the conversation goes on)";
  out(`  修复 / Repaired: the last turn was left open (a crash or Ctrl-C), so ${added.length} events were appended${where}:`);
  for (const event of added) out(`    ${format(event)}`);
}

/** The recording an offline run replays. */
export interface Recording {
  readonly file: string;
  readonly fixture: Fixture;
  /** Why a request that does not match it can happen, for the learner. */
  readonly note?: string;
}

const FOLLOW_UP = "calculator-follow-up";

/**
 * Offline, a saved run replays turn 1 of the two-turn recording and --continue replays its turn 2, so
 * a log saved offline can always go on offline. Undefined: the demo's usual recording. A string: why
 * this run cannot be replayed offline.
 */
export function offlineRecording(plan: DiskPlan): Recording | string | undefined {
  if (plan.load === undefined && plan.save === undefined) return undefined;
  if (plan.load !== undefined && plan.prompt !== undefined && plan.prompt !== FOLLOW_UP_PROMPT) {
    return `offline, the only follow-up question recorded is "${FOLLOW_UP_PROMPT}": use --continue, or set DEEPSEEK_API_KEY to ask your own`;
  }
  const turn = plan.load === undefined ? 1 : 2;
  const whole = loadFixture(fixturePath(FOLLOW_UP));
  const exchanges = whole.exchanges.filter((exchange) => userMessagesIn(exchange) === turn);
  return {
    file: `fixtures/data/${FOLLOW_UP}.json, turn ${turn}`,
    fixture: { ...whole, exchanges },
    ...(turn === 2 && {
      note: `offline, --continue replays turn 2 of fixtures/data/${FOLLOW_UP}.json, which goes on from its turn 1 (what an offline --save writes); a log from a live run or a repaired crash holds another conversation — set DEEPSEEK_API_KEY to go on with it live`,
    }),
  };
}

/** What the demo says when Ctrl-C stops it: the file is already complete up to the last event logged. */
export function interruptedNote(argv: readonly string[]): string {
  let save: string | undefined;
  try {
    save = planDisk(parseArgs({ args: [...argv], options: { offline: { type: "boolean" }, ...diskOptions } }).values).save;
  } catch {
    save = undefined; // a usage error: the run never started
  }
  if (save === undefined) return "已中断 / Interrupted (nothing was being saved: --save FILE keeps the log as it happens)";
  return `已中断 / Interrupted. ${save} holds every event logged before Ctrl-C; read it back (the open turn gets repaired) with: npm run demo -- --load ${save}`;
}
