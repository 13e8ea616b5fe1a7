// 5.2–5.3 and 5.6: the Session, an append-only log of events. `append` is the only way in; the log
// is read through frozen snapshots; subscribers hear about each event after it is committed; and a
// stored log replays into a new Session with `fromLog`, checked event by event.
import type { Message } from "../common/messages.ts";
import type { EventData, SessionEvent } from "./events.ts";
import { checkEventData, eventSchemas, EventDataError, type EventSchemas } from "./event-schemas.ts";
import { describeValue } from "./describe.ts";
import { copyPlainJson } from "./fast/json-fast.ts";
import { freezeJson } from "./json.ts";
import { JsonValueError, type JsonObject, type JsonValue } from "./json-value.ts";
import { MessageCache } from "./message-cache.ts";
import { ReplayError, reportListenerError, type Listener, type SessionLog, type SessionOptions } from "./session-types.ts";

// A subscription wraps its listener, so that subscribing the same function twice makes two
// subscriptions, each removed by its own unsubscribe.
type Subscription = { readonly listener: Listener };
// An event waiting to be delivered, with the subscriptions that existed when it was appended.
type Delivery = { readonly event: SessionEvent; readonly audience: readonly Subscription[] };

/** A quicker freeze tried before freezeJson's careful walk: the frozen value, or `undefined` for "not sure". */
type QuickFreeze = (value: unknown) => JsonValue | undefined;

/** `fromLog`'s options: a Session's, and a quicker way to freeze the stored data, if the caller has one. */
export interface ReplayOptions extends SessionOptions {
  /**
   * Tried first on each event's data (by default a quick copy, as in append). The log file reader,
   * which parsed each line itself and hands the result over, passes fast/json-fast.ts's freezeParsedJson:
   * frozen in place, not copied. Whatever it is not sure of, freezeJson decides, with the same errors.
   */
  readonly quickFreeze?: QuickFreeze;
}

export class Session implements SessionLog {
  readonly #log: SessionEvent[] = [];
  #snapshot: readonly SessionEvent[] | undefined;
  readonly #messages = new MessageCache();
  readonly #listeners = new Set<Subscription>();
  readonly #undelivered: Delivery[] = [];
  #delivering = false;
  readonly #clock: () => number;
  readonly #onListenerError: (error: unknown, event: SessionEvent) => void;
  readonly #schemas: EventSchemas;

  constructor(options: SessionOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#onListenerError = options.onListenerError ?? reportListenerError;
    // Extra schemas add types; they cannot replace or switch off the chapter's own.
    this.#schemas = { ...options.schemas, ...eventSchemas };
  }

  // ── 5.3 the only write path: validate and freeze, commit, then notify ──────────────────────────

  append<T extends string>(type: T, data: EventData<T>): SessionEvent<T> {
    checkType(type);
    const frozenData = freezeEventData(data);
    checkEventData(type, frozenData, this.#schemas);
    const event = makeEvent(this.#log.length, type, checkTimestamp(this.#clock()), frozenData);
    this.#commit(event);
    this.#notify(event);
    return event as SessionEvent<T>;
  }

  /** A frozen snapshot: the same array until the next append, so reading often costs nothing. */
  get events(): readonly SessionEvent[] {
    this.#snapshot ??= Object.freeze([...this.#log]);
    return this.#snapshot;
  }

  /** Calls `listener` with every event appended from now on; the returned function stops that. */
  subscribe(listener: Listener): () => void {
    const subscription: Subscription = { listener };
    this.#listeners.add(subscription);
    return () => {
      this.#listeners.delete(subscription); // deleting twice is harmless: unsubscribe is idempotent
    };
  }

  // ── 5.4 what the model sees is derived from the log ─────────────────────────────────────────────

  /** The model's messages; each event was projected once, when committed (step 05.6, message-cache.ts). */
  deriveMessages(): Message[] {
    return this.#messages.messages();
  }

  // ── 5.6 replay: rebuild a session from stored events, trusting nothing ──────────────────────────

  // `unknown`: a stored log comes from JSON.parse or a file, so even that it is an array is checked.
  static fromLog(log: unknown, options: ReplayOptions = {}): Session {
    const length = readStored(0, "NOT_A_LOG", () => (Array.isArray(log) ? log.length : undefined));
    if (length === undefined) {
      throw new ReplayError(0, "NOT_A_LOG", `a log must be an array of events, got ${describeValue(log)}`);
    }
    const { quickFreeze = copyPlainJson, ...sessionOptions } = options;
    const session = new Session(sessionOptions);
    // An index loop, not forEach: forEach skips the holes of a sparse array, which would let a
    // hand-made [e0, , e2] through with ids 0, 2. Here a hole is read as undefined.
    for (let index = 0; index < length; index++) {
      const stored = readStored(index, "NOT_AN_EVENT", () => (log as readonly unknown[])[index]);
      session.#commit(session.#readStoredEvent(stored, index, quickFreeze));
    }
    return session;
  }

  #readStoredEvent(stored: unknown, index: number, quickFreeze: QuickFreeze): SessionEvent {
    const fields = readStored(index, "NOT_AN_EVENT", () => fieldsOf(stored));
    if (fields === undefined) {
      throw new ReplayError(index, "NOT_AN_EVENT", `expected an object with id, type, ts and data, got ${describeValue(stored)}`);
    }
    const { id, type, ts, data, inherited, unexpected } = fields;
    if (inherited !== undefined) {
      const own = "an event is a record of its own id, type, ts and data, as JSON.parse makes it";
      throw new ReplayError(index, "NOT_AN_EVENT", `its field "${inherited}" is inherited, not its own: ${own}`);
    }
    if (unexpected.length > 0) {
      throw new ReplayError(index, "UNEXPECTED_KEY", `unexpected key ${describeValue(unexpected[0])} (an event has id, type, ts and data)`);
    }
    // What was found is described, never JSON.stringify'd: an id nested 5,000 arrays deep would
    // overflow it, and a bigint makes it throw.
    if (id !== index) {
      throw new ReplayError(index, "ID_MISMATCH", `id is ${describeValue(id)}, expected ${index} (ids count from 0 without gaps)`);
    }
    if (typeof type !== "string" || type === "") {
      throw new ReplayError(index, "BAD_TYPE", `type must be a non-empty string, got ${describeValue(type)}`);
    }
    if (!isTimestamp(ts)) {
      throw new ReplayError(index, "BAD_TS", `ts must be non-negative integer milliseconds (safe, not -0), got ${describeValue(ts)}`);
    }
    try {
      const frozenData = freezeEventData(data, quickFreeze);
      checkEventData(type, frozenData, this.#schemas);
      // The quick freeze froze the caller's own data in place (the log file reader hands its parse over):
      // then its record becomes the event too (its keys are id, type, ts and data, checked above), so a
      // large log is not held twice. Not with an id of -0, which `id !== index` lets through: an event's id is 0.
      if (frozenData === data && Object.is(id, index)) return Object.freeze(stored) as SessionEvent;
      return makeEvent(index, type, ts, frozenData);
    } catch (error) {
      if (error instanceof JsonValueError) {
        throw new ReplayError(index, "BAD_DATA", `data is not plain JSON: ${error.message}`, { cause: error });
      }
      if (error instanceof EventDataError) throw new ReplayError(index, "SCHEMA", error.message, { cause: error });
      throw error;
    }
  }

  // Every event passes here, from append and from fromLog alike, so this is where it is projected;
  // projecting first means an event that cannot be projected is not committed either.
  #commit(event: SessionEvent): void {
    this.#messages.project(event);
    this.#log.push(event);
    this.#snapshot = undefined;
  }

  // An append made by a listener is queued rather than delivered at once, so every listener hears
  // the events in id order; the outer delivery loop picks it up after the current event is done.
  #notify(event: SessionEvent): void {
    if (this.#listeners.size === 0) return; // no one to tell, so nothing to queue
    this.#undelivered.push({ event, audience: [...this.#listeners] });
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (let next = this.#undelivered.shift(); next; next = this.#undelivered.shift()) {
        this.#deliver(next.event, next.audience);
      }
    } finally {
      this.#delivering = false;
    }
  }

  #deliver(event: SessionEvent, audience: readonly Subscription[]): void {
    for (const subscription of audience) {
      if (!this.#listeners.has(subscription)) continue; // unsubscribed since the event was appended
      try {
        const returned: unknown = subscription.listener(event);
        // An async listener fails later, by rejecting: that is contained and reported as a throw is.
        if (returned instanceof Promise) returned.catch((error: unknown) => this.#reportListenerError(error, event));
      } catch (error) {
        this.#reportListenerError(error, event);
      }
    }
  }

  // Even a failing error handler must not break delivery: the event is already committed.
  #reportListenerError(error: unknown, event: SessionEvent): void {
    try {
      this.#onListenerError(error, event);
    } catch (handlerError) {
      reportListenerError(handlerError, event);
    }
  }
}

function makeEvent(id: number, type: string, ts: number, data: JsonObject): SessionEvent {
  return Object.freeze({ id, type, ts, data });
}

// Plain data, the usual case, takes a quick pass (fast/json-fast.ts, past the book); anything it is not
// sure of takes freezeJson's careful walk, which finds and names the first problem.
function freezeEventData(data: unknown, quickFreeze: QuickFreeze = copyPlainJson): JsonObject {
  const frozen: JsonValue = quickFreeze(data) ?? freezeJson(data);
  if (typeof frozen !== "object" || frozen === null || Array.isArray(frozen)) {
    throw new JsonValueError("$", "event data must be an object, not an array or a primitive");
  }
  return frozen as JsonObject;
}

function checkType(type: unknown): void {
  if (typeof type !== "string" || type === "") {
    throw new TypeError(`event type must be a non-empty string, got ${describeValue(type)}`);
  }
}

// -0 is refused like a negative number: JSON.stringify writes it as 0, so it would not read back.
function isTimestamp(ts: unknown): ts is number {
  return typeof ts === "number" && Number.isSafeInteger(ts) && ts >= 0 && !Object.is(ts, -0);
}

function checkTimestamp(ts: unknown): number {
  if (!isTimestamp(ts)) {
    throw new TypeError(`the session clock must return non-negative integer milliseconds (safe, not -0), got ${describeValue(ts)}`);
  }
  return ts;
}

/**
 * Reads from a stored log. A Proxy's trap or a getter there runs the caller's code, which may throw:
 * that is a fault of the log like any other, so it becomes a ReplayError, with the error as its cause.
 */
function readStored<T>(index: number, code: "NOT_A_LOG" | "NOT_AN_EVENT", reading: () => T): T {
  try {
    return reading();
  } catch (error) {
    throw new ReplayError(index, code, "reading it threw an error (a Proxy or a getter?), kept as the cause", {
      cause: error,
    });
  }
}

/**
 * A stored entry's fields, each read once, or `undefined` when the entry is not an object. `inherited`
 * names a field the entry does not hold itself but gets from its prototype (Object.create({ id: 0, … })):
 * reading it would load an event from fields that are not the entry's.
 */
function fieldsOf(stored: unknown) {
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return undefined;
  const inherited = EVENT_FIELDS.find((field) => !Object.hasOwn(stored, field) && field in stored);
  const { id, type, ts, data, ...extra } = stored as Record<string, unknown>;
  return { id, type, ts, data, inherited, unexpected: Object.keys(extra) };
}

const EVENT_FIELDS = ["id", "type", "ts", "data"] as const;
