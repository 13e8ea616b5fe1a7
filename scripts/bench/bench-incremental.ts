// Step 05.6 measured: what deriving the messages costs the agent loop. "incremental" is the session's
// own `deriveMessages()`; "full" is the 05.3 projection over the whole log, `deriveMessages(
// session.events)`, which is what Session.deriveMessages did before 05.6 (snapshot rebuild included).
//
// Each derivation is measured in a fresh process of its own (`measureApart`), so that neither inherits
// the other's heap. V8 adapts allocation to what it has seen survive: once a long full projection has
// kept thousands of new messages alive until it returns, V8 allocates the projection's messages
// straight into the old generation ("allocation-site pretenuring"), and from then on every full
// projection costs full garbage collections. That is the real cost of the full projection in a long
// session, but it should not leak into the incremental figures, nor depend on which ran first.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Message } from "../../chapters/common/messages.ts";
import { deriveMessages } from "../../chapters/05-session-log/projection.ts";
import type { Session } from "../../chapters/05-session-log/session.ts";
import { calculatorEvents, calculatorSession, median, middle, newSession, time, type EventInput } from "./bench-lib.ts";

const derivations = {
  full: (session: Session): readonly Message[] => deriveMessages(session.events),
  incremental: (session: Session): readonly Message[] => session.deriveMessages(),
} as const;

export type Derivation = keyof typeof derivations;

/** Session lengths (events) the plot samples. */
const lengths = [1_000, 2_000, 4_000, 8_000, 16_000, 24_000, 32_000, 48_000];

/** A user message, the commonest append before a model call; it also makes the derivation grow. */
function appendQuestion(session: Session): void {
  session.append("user/message", { content: "再算一次？" });
}

/**
 * The median of `variant ÷ baseline` over `runs` runs, the two timed back to back in each run: a burst
 * of load on a shared machine then slows both sides of a ratio alike.
 */
function pairedRatio(runs: number, baseline: () => number, variant: () => number): number {
  const ratios: number[] = [];
  for (let run = 0; run < runs; run++) ratios.push(variant() / baseline());
  return middle(ratios);
}

/**
 * One derivation made right after an append (the append itself not timed) ÷ JSON.stringify of the
 * messages it gave: the request body the loop must build for each model call anyway.
 */
function deriveVsStringify(session: Session, how: Derivation, runs: number): number {
  let messages: readonly Message[] = [];
  return pairedRatio(
    runs,
    () => time(() => void JSON.stringify(messages)),
    () => {
      appendQuestion(session);
      return time(() => void (messages = derivations[how](session)));
    },
  );
}

/** ms to append `events` to a new session, deriving after each append when `how` is given. */
function appendAll(events: readonly EventInput[], how?: Derivation): number {
  const session = newSession();
  return time(() => {
    for (const { type, data } of events) {
      session.append(type, data);
      if (how !== undefined) derivations[how](session);
    }
  });
}

export interface CostPoint {
  /** Events in the session when the step was taken. */
  readonly events: number;
  readonly series: Derivation | "stringify";
  /** µs for one step: one append and one derivation (or, for "stringify", the request body alone). */
  readonly micros: number;
}

/** One derivation's figures: the three ratios of issue 9, and its cost per step as the session grows. */
export interface Figures {
  /** Messages in the session the first ratio was measured on. */
  readonly messages: number;
  /** One derivation right after an append ÷ JSON.stringify of the same messages. */
  readonly deriveVsStringify: number;
  /** Appending M events and deriving after each ÷ the appends alone, as [M, ratio]. */
  readonly appendAndDerive: readonly (readonly [number, number])[];
  readonly points: readonly CostPoint[];
}

function measure(how: Derivation): Figures {
  const session = calculatorSession(4_000); // 48,000 events → 16,000 messages
  const messages = session.deriveMessages().length;
  const runs = how === "full" ? { derive: 21, append: 3 } : { derive: 101, append: 11 };
  return {
    messages,
    deriveVsStringify: deriveVsStringify(session, how, runs.derive),
    appendAndDerive: [4_000, 16_000].map((count) => {
      const events = calculatorEvents(count);
      return [
        count,
        pairedRatio(
          runs.append,
          () => appendAll(events),
          () => appendAll(events, how),
        ),
      ] as const;
    }),
    points: costPerStep(how),
  };
}

/** µs per step as the session grows (for the incremental run, the request body's cost too): the plot. */
function costPerStep(how: Derivation): CostPoint[] {
  const points: CostPoint[] = [];
  const session = newSession();
  const run = calculatorEvents(Math.max(...lengths));
  let appended = 0;
  for (const length of lengths) {
    for (const { type, data } of run.slice(appended, length)) session.append(type, data);
    appended = length;
    // A step's append is timed with its derivation: together they are what the loop pays.
    const step = median(how === "full" ? 15 : 101, () => {
      appendQuestion(session);
      derivations[how](session);
    });
    points.push({ events: length, series: how, micros: step * 1_000 });
    if (how === "incremental") {
      const messages = session.deriveMessages();
      points.push({
        events: length,
        series: "stringify",
        micros: median(15, () => void JSON.stringify(messages)) * 1_000,
      });
    }
  }
  return points;
}

/** One derivation's figures, measured by this file run as a fresh process (see the top). */
export function measureApart(how: Derivation): Figures {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), how], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`measuring the ${how} derivation failed:\n${child.stderr}`);
  return JSON.parse(child.stdout) as Figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const how = process.argv[2];
  if (how !== "full" && how !== "incremental") throw new Error(`usage: bench-incremental.ts full|incremental, got ${how}`);
  console.log(JSON.stringify(measure(how)));
}
