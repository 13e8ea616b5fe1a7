// Step 05.6 measured: what deriving the messages costs the agent loop, full projection against
// incremental, in one run. "full" is the 05.3 projection over the whole log, `deriveMessages(
// session.events)` — what Session.deriveMessages did before 05.6, snapshot rebuild included;
// "incremental" is the session's own `deriveMessages()`.
import { performance } from "node:perf_hooks";
import type { Message } from "../chapters/common/messages.ts";
import { deriveMessages } from "../chapters/05-session-log/projection.ts";
import type { Session } from "../chapters/05-session-log/session.ts";
import { calculatorEvents, calculatorSession, median, middle, newSession, type EventInput } from "./bench-lib.ts";

export const derivations = {
  full: (session: Session): readonly Message[] => deriveMessages(session.events),
  incremental: (session: Session): readonly Message[] => session.deriveMessages(),
} as const;

export type Derivation = keyof typeof derivations;

/** A user message, the commonest append before a model call; it also makes the derivation grow. */
function appendQuestion(session: Session): void {
  session.append("user/message", { content: "再算一次？" });
}

/** ms that `work` takes, once. */
function time(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
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

export interface Ratios {
  /** Messages in the session the first ratio was measured on. */
  readonly messages: number;
  /** One derivation right after an append ÷ JSON.stringify of the same messages. */
  readonly deriveVsStringify: Record<Derivation, number>;
  /** Appending M events and deriving after each ÷ the appends alone, by M. */
  readonly appendAndDerive: ReadonlyMap<number, Record<Derivation, number>>;
}

/** The three ratios of issue 9, for both derivations, from one run. */
export function measureRatios(): Ratios {
  const session = calculatorSession(4_000); // 48,000 events → 16,000 messages
  const messages = session.deriveMessages().length;
  const ratios = {
    full: deriveVsStringify(session, "full", 21),
    incremental: deriveVsStringify(session, "incremental", 101),
  };
  const appendAndDerive = new Map<number, Record<Derivation, number>>();
  for (const count of [4_000, 16_000]) {
    const events = calculatorEvents(count);
    appendAndDerive.set(count, {
      full: pairedRatio(3, () => appendAll(events), () => appendAll(events, "full")),
      incremental: pairedRatio(11, () => appendAll(events), () => appendAll(events, "incremental")),
    });
  }
  return { messages, deriveVsStringify: ratios, appendAndDerive };
}

export interface CostPoint {
  /** Events in the session when the step was taken. */
  readonly events: number;
  readonly series: "full" | "incremental" | "stringify";
  /** µs for one step: one append and one derivation (or, for "stringify", the request body alone). */
  readonly micros: number;
}

/** Cost per step as the session grows: the data of the plot. */
export function measureCostPerStep(lengths: readonly number[]): CostPoint[] {
  const points: CostPoint[] = [];
  const session = newSession();
  const run = calculatorEvents(Math.max(...lengths));
  let appended = 0;
  for (const length of lengths) {
    for (const { type, data } of run.slice(appended, length)) session.append(type, data);
    appended = length;
    for (const series of ["full", "incremental"] as const) {
      // A step's append is timed with its derivation: together they are what the loop pays.
      const step = median(series === "full" ? 15 : 101, () => {
        appendQuestion(session);
        derivations[series](session);
      });
      points.push({ events: length, series, micros: step * 1_000 });
    }
    const messages = session.deriveMessages();
    points.push({ events: length, series: "stringify", micros: median(15, () => void JSON.stringify(messages)) * 1_000 });
  }
  return points;
}
