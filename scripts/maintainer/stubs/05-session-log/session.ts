// Steps 05.2 and 05.4 — the Session, an append-only log of events.
//
// 05.2 (book §5.2–5.3 "Session.append：唯一的写入路径")
//   append(type, data) is the only way in. Check all of these, and only then commit:
//     - the type: a non-empty string, else TypeError (describe what you got with describeValue:
//       JSON.stringify throws on a bigint and overflows on an array nested 5,000 deep);
//     - the data: copy and deep-freeze it with your freezeJson; it must be a JSON object, else
//       JsonValueError;
//     - a known type's data: checkEventData(type, data, this.#schemas), else EventDataError (the
//       built-in schemas are strict, and a type like "constructor" is just an unknown type);
//     - the clock: a safe non-negative integer and not -0 (Object.is), else TypeError naming the clock.
//   Commit: id = the log's length, the event frozen. A rejected append changes nothing.
//   events is a frozen snapshot: the same array until the next append.
//   subscribe(listener) returns an unsubscribe that is safe to call twice. Listeners run after the
//   commit; one that throws goes to onListenerError (and if that throws too, to reportListenerError:
//   never swallowed) and the others still run. An append made inside a listener is queued, so
//   every listener hears the ids in order: queue each event together with
//   the listeners subscribed when it was appended (one that subscribes during a delivery hears only
//   later appends; one unsubscribed before its turn is skipped).
//
// 05.4 (book §5.6 "重放：从日志重建一切")
//   Session.fromLog(log) rebuilds a session from a stored log, trusting nothing and sharing
//   nothing with its input. Throw `new ReplayError(index, code, detail)` for the first broken rule,
//   checked in this order:
//     NOT_A_LOG      the log is not an array (index 0)
//     NOT_AN_EVENT   an entry is not an object (a hole in a sparse array too)
//     UNEXPECTED_KEY a key other than id, type, ts, data (name the key)
//     ID_MISMATCH    id !== index
//     BAD_TYPE       the type is not a non-empty string
//     BAD_TS         ts is not a safe non-negative integer, or is -0
//     BAD_DATA       the data is not a JSON object (re-frozen with freezeJson; name the path inside it)
//     SCHEMA         a known type's data is wrong (keep the EventDataError's message: it names the
//                    type and the field)
//   Loop with an index: forEach and map skip the holes of a sparse array. Reading the log or an entry
//   may run the caller's code (a getter, a Proxy) that throws: that is NOT_A_LOG / NOT_AN_EVENT too,
//   with the error as the cause: new ReplayError(index, code, detail, { cause }). A detail describes
//   what it found with describeValue, never JSON.stringify: an id may be a bigint or nested 5,000 deep.
// Run: npx vitest exercises/05-session-log/05.2-session.test.ts (then 05.4-replay.test.ts)
import type { Message } from "../../chapters/common/messages.ts";
import type { EventData, SessionEvent } from "../../chapters/05-session-log/events.ts";
import { checkEventData, EventDataError, eventSchemas, type EventSchemas } from "../../chapters/05-session-log/event-schemas.ts";
import { describeValue } from "../../chapters/05-session-log/describe.ts";
import { JsonValueError, type JsonObject } from "../../chapters/05-session-log/json-value.ts";
import {
  ReplayError,
  reportListenerError,
  type Listener,
  type ReplayRule,
  type SessionLog,
  type SessionOptions,
} from "../../chapters/05-session-log/session-types.ts";
import { freezeJson } from "./json.ts";
import { deriveMessages } from "./projection.ts";
import { todo } from "./todo.ts";

// Given: your freezeJson (05.1, ./json.ts) and deriveMessages (05.3, ./projection.ts), and the
// contracts, which hold no answer:
//   SessionLog       the public surface your Session implements: append, events, subscribe, deriveMessages
//   SessionOptions   { clock?: () => number; onListenerError?: (error, event) => void; schemas?: EventSchemas }
//   Listener         (event: SessionEvent) => void
//   ReplayError      new ReplayError(index, code: ReplayRule, detail); its message already says "event #N"
//   reportListenerError  the default onListenerError: a failing listener is reported, never allowed
//                        to break append
//   checkEventData   checkEventData(type, data, this.#schemas) throws EventDataError for a known type's bad data
//   JsonValueError   what freezeJson throws; JsonObject is the type event data has
//   describeValue    (describe.ts) what a value is, in a few words, for an error message

export class Session implements SessionLog {
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
    return todo(
      "05.2",
      "Session.append(type, data)：校验并冻结，提交并让快照失效，通知订阅者",
      "Session.append(type, data): validate, freeze, commit, notify",
    );
  }

  /** Every committed event, as a frozen array: the same array until the next append. */
  get events(): readonly SessionEvent[] {
    return todo("05.2", "Session.events：日志的快照，缓存起来的冻结数组", "Session.events: a cached frozen snapshot of the log");
  }

  /** Calls `listener` with every event appended from now on; the returned function stops that. */
  subscribe(listener: Listener): () => void {
    return todo(
      "05.2",
      "Session.subscribe：登记一个订阅者，返回取消订阅的函数（调用两次也无害）",
      "Session.subscribe: add a listener, return an idempotent unsubscribe",
    );
  }

  // ── 05.3 (given here): the messages are a projection of the log ───────────────────────────────────
  // The challenge step 05.6 replaces this with your MessageCache, fed where events are committed.

  deriveMessages(): Message[] {
    return deriveMessages(this.events);
  }

  // ── 05.4: replay a stored log, trusting nothing ──────────────────────────────────────────────────

  /** A new Session holding the stored `log` (e.g. `JSON.parse` of a saved file), checked entry by entry. */
  static fromLog(log: unknown, options: SessionOptions = {}): Session {
    return todo(
      "05.4",
      "Session.fromLog：逐条检查存储的事件，重新冻结，重建日志",
      "Session.fromLog: check each stored event, re-freeze it, rebuild the log",
    );
  }
}
