// What a Session promises, apart from how it keeps the promise: its public surface, its options, and
// the error a stored log that breaks a rule is rejected with. session.ts implements it; the workbook
// gives it to the learner (steps 05.2 and 05.4) and to every other module that takes a session.
import type { Message } from "../common/messages.ts";
import type { EventData, SessionEvent } from "./events.ts";
import type { EventSchemas } from "./event-schemas.ts";

/**
 * Hears each event once it is committed. What it returns is ignored (`void`), except that an async
 * listener's rejected promise is contained and reported like a throw.
 */
export type Listener = (event: SessionEvent) => void;

export interface SessionOptions {
  /** Where `ts` comes from; inject a fake clock for deterministic tests. */
  readonly clock?: () => number;
  /** Receives a listener's error; the event itself stays committed. */
  readonly onListenerError?: (error: unknown, event: SessionEvent) => void;
  /** Schemas for event types beyond the built-in vocabulary (see events.ts). */
  readonly schemas?: EventSchemas;
}

/** The session as its users see it: one way in (`append`), and everything else read from the log. */
export interface SessionLog {
  /** Validates, freezes and commits one event, tells the listeners, and returns the event. */
  append<T extends string>(type: T, data: EventData<T>): SessionEvent<T>;
  /** Every committed event, as a frozen array: the same array until the next append. */
  readonly events: readonly SessionEvent[];
  /** Calls `listener` with every event appended from now on; the returned function stops that. */
  subscribe(listener: Listener): () => void;
  /** The messages the model is shown: a projection of the log. */
  deriveMessages(): Message[];
}

/** The rules a stored log is checked against, in the order `fromLog` checks them. */
export type ReplayRule = "NOT_A_LOG" | "NOT_AN_EVENT" | "UNEXPECTED_KEY" | "ID_MISMATCH" | "BAD_TYPE" | "BAD_TS" | "BAD_DATA" | "SCHEMA";

/**
 * A stored log broke a rule; `index` is the event's position, `code` names the rule and `detail` says
 * what was found. The message opens in Chinese, as the book's from_log error does (重放失败：第 3 个事件…).
 */
export class ReplayError extends Error {
  override readonly name = "ReplayError";
  constructor(
    readonly index: number,
    readonly code: ReplayRule,
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`重放失败：第 ${index} 个事件 / replay failed at event #${index}: ${detail}`, options);
  }
}

/** The default `onListenerError`: a failing listener is reported, never allowed to break `append`. */
export function reportListenerError(error: unknown, event: SessionEvent): void {
  console.error(`[session] a listener failed on event #${event.id} ${event.type}:`, error);
}
