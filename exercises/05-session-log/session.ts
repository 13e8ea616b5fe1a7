// Steps 05.2 and 05.4 — the Session, an append-only log of events.
// 05.2 (book §5.2–5.3 "Session.append：唯一的写入路径"): `append(type, data)` is the only way in:
//   check the type (non-empty string → else TypeError), copy + deep-freeze the data with your
//   freezeJson (a JSON object → else JsonValueError), check a known type's data (`checkEventData`
//   → EventDataError), read the clock (a safe non-negative integer → else TypeError), and only then
//   commit: id = log length, frozen event. A rejected append changes nothing. The built-in schemas
//   are strict (an extra key is an EventDataError), the constructor's schemas only add types (given
//   below), and types like "constructor" are ordinary unknown types (checkEventData looks up own
//   keys). `events` is a frozen snapshot, the same array until the next append. `subscribe` returns
//   an idempotent unsubscribe; listeners run after commit, a throwing one goes to `onListenerError`,
//   and appends made inside a listener are queued so every listener hears the ids in order. Queue
//   each event with the listeners subscribed when it was appended: one that subscribes during a
//   delivery hears only later appends, and one unsubscribed before its turn is skipped.
// 05.4 (book §5.6 "重放：从日志重建一切"): `Session.fromLog(events)` rebuilds a session from a stored
//   log, trusting nothing. Each entry (a hole in a sparse array too) must be an object with exactly
//   id/type/ts/data: id === index, a non-empty type, a safe non-negative integer ts, JSON-object
//   data (re-frozen; known types re-checked, strictly; "constructor" is just an unknown type).
//   Throw `new ReplayError(index, code, detail)`, code one of NOT_A_LOG (index 0), NOT_AN_EVENT,
//   UNEXPECTED_KEY (name the key), ID_MISMATCH, BAD_TYPE, BAD_TS, BAD_DATA, SCHEMA (keep the
//   EventDataError's message: it names the type and the field), checked in that order. Loop with
//   an index: forEach and map skip the holes of a sparse array. Share nothing with the input.
// Run: npx vitest exercises/05-session-log/05.2-session.test.ts (then 05.4-replay.test.ts)
import type { Message } from "../../chapters/common/messages.ts";
// What you will need: your freezeJson from 05.1, and the vocabulary's schemas (given).
import {
  checkEventData,
  EventDataError,
  eventSchemas,
  type EventData,
  type EventSchemas,
} from "../../chapters/05-session-log/events.ts";
import {
  ReplayError,
  reportListenerError,
  type Listener,
  type SessionEvent,
  type SessionOptions,
} from "../../chapters/05-session-log/session.ts";
import { freezeJson, JsonValueError } from "./json.ts";
import { deriveMessages } from "./projection.ts";
import { todo } from "./todo.ts";

// Given: the event type, the options and the replay error (its message already says "event #N"),
// and reportListenerError, the default onListenerError (a failing listener is reported, never
// allowed to break append).
export { ReplayError, type Listener, type SessionEvent, type SessionOptions };

export class Session {
  // The options are stored for you; add the log, the snapshot and the listeners yourself.
  readonly #clock: () => number;
  readonly #onListenerError: (error: unknown, event: SessionEvent) => void;
  /** The built-in schemas plus any the caller added: pass it to `checkEventData(type, data, schemas)`. */
  readonly #schemas: EventSchemas;

  constructor(options: SessionOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#onListenerError = options.onListenerError ?? reportListenerError;
    // The built-in schemas go last: the caller's schemas add types, never replace or switch off ours.
    this.#schemas = { ...options.schemas, ...eventSchemas };
  }

  // ── 05.2: the only write path; a frozen snapshot; listeners ──────────────────────────────────────

  /** Validates, freezes and commits one event, tells the listeners, and returns the event. */
  append<T extends string>(type: T, data: EventData<T>): SessionEvent<T> {
    return todo("05.2", `Session.append("${type}", …): validate, freeze, commit, notify`);
  }

  /** Every committed event, as a frozen array: the same array until the next append. */
  get events(): readonly SessionEvent[] {
    return todo("05.2", "Session.events: a cached frozen snapshot of the log");
  }

  /** Calls `listener` with every event appended from now on; the returned function stops that. */
  subscribe(listener: Listener): () => void {
    return todo("05.2", "Session.subscribe: add a listener, return an idempotent unsubscribe");
  }

  // ── 05.3 (given here): the messages are a projection of the log ───────────────────────────────────

  deriveMessages(): Message[] {
    return deriveMessages(this.events);
  }

  // ── 05.4: replay a stored log, trusting nothing ──────────────────────────────────────────────────

  /** A new Session holding `events` (e.g. `JSON.parse` of a saved log), checked entry by entry. */
  static fromLog(events: readonly unknown[], options: SessionOptions = {}): Session {
    return todo("05.4", "Session.fromLog: check each stored event, re-freeze it, rebuild the log");
  }
}
