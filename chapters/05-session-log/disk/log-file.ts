// Beyond 5.3 and 5.6: the log on disk. A subscriber writes each event as one line of JSON (JSONL) the
// moment it is committed (log-writer.ts); a reader replays the file into a Session, dropping only a
// last line that a crash cut short; and repairLog closes the turn such a crash left open — by
// appending, never editing.
//
// The format: each line is one JSON value followed by "\n", in id order, UTF-8: an event
// (`JSON.stringify(event)`), or a packed row of the chunk events written together (log-rows.ts).
// JSON.stringify escapes every newline inside a string, so a value is always exactly one line.
import type { EventData, SessionEvent } from "../events.ts";
import { whereTheLoopStopped, type OpenStep } from "./loop-order.ts";
import {
  LogFileError,
  NOT_STARTED,
  OUTCOME_UNKNOWN,
  RepairError,
  TURN_FINISHED,
  TURN_INTERRUPTED,
  type ClosingEvent,
} from "./log-file-types.ts";
import { assertNoLiveWriter } from "./log-lock.ts";
import { assembleInterrupted } from "../stream/stream-assembler.ts";
import type { Session } from "../session.ts";

// ── writing: persistence is just a subscriber (log-writer.ts, with its lock in log-lock.ts) ────────
export { attachLogFile } from "./log-writer.ts";

// ── reading: every line is trusted only after it is checked, a piece of the file at a time (log-reader.ts) ──
export { parseLogText, readLogFile } from "./log-reader.ts";

// ── repair: a crash leaves the last turn open; close it by appending ────────────────────────────

/**
 * Closes the last turn if a crash left it open (see closingEvents), by appending to `session`, which it
 * returns: a writer attached to the session saves the repair too, and the events already logged stay
 * exactly as they were. A log with every turn closed is returned as it is. A log this loop could not
 * have left (loop-order.ts) is a RepairError, and nothing is appended.
 */
export function repairLog(session: Session): Session {
  for (const { type, data } of closingEvents(session.events)) session.append(type, data);
  return session;
}

/**
 * What a repair appends, in order: nothing when every turn is closed; RepairError for a log no crash of
 * this loop leaves. Given the `file` the events were read from, a file another process holds the writer's
 * lock on is refused too: its last turn is not torn, it is still running.
 */
export function closingEvents(events: readonly SessionEvent[], options: { readonly file?: string } = {}): ClosingEvent[] {
  // Stryker disable next-line ConditionalExpression: equivalent, assertNoLiveWriter(undefined) finds no file (existsSync(undefined) is false)
  if (options.file !== undefined) refuseLiveWriter(options.file);
  const stop = whereTheLoopStopped(events);
  if (!stop.fits) throw new RepairError(stop.index, stop.why);
  if (stop.open === undefined) return [];
  const { turn, step, answered } = stop.open;
  const closing: ClosingEvent[] = step === undefined ? [] : closeStep(step);
  // The loop appends turn/end "completed" right after a final answer: when the log holds that answer, say so.
  closing.push(
    close(
      "turn/end",
      answered ? { turn, reason: "completed", message: TURN_FINISHED } : { turn, reason: "interrupted", message: TURN_INTERRUPTED },
    ),
  );
  return closing;
}

const close = <T extends "tool/call" | "tool/result" | "step/end" | "turn/end" | "assistant/message">(
  type: T,
  data: EventData<T>,
): ClosingEvent => ({
  type,
  data: data as EventData<string>,
});

function refuseLiveWriter(file: string): void {
  try {
    assertNoLiveWriter(file);
  } catch (error) {
    // Its only LogFileError is LOCKED; anything else is the system's error, thrown as it is.
    // Stryker disable next-line ConditionalExpression: no test reaches it, stat or the lock library failing on a file just found
    if (!(error instanceof LogFileError)) throw error;
    throw new RepairError(undefined, error.message, { cause: error });
  }
}

function closeStep({ turn, step, chunks, running, notStarted }: OpenStep): ClosingEvent[] {
  const closing: ClosingEvent[] = [];
  // A stream cut before its message: keep what the user already saw, citing the chunks it came from.
  const seen = assembleInterrupted(chunks.map((event) => event.data.chunk));
  if (seen !== null) {
    const { content, reasoning_content = null } = seen;
    const chunk_ids = chunks.map((event) => event.id);
    closing.push(close("assistant/message", { content, reasoning_content, tool_calls: [], chunk_ids, interrupted: true }));
  }
  if (running !== undefined) closing.push(answer(running.id, OUTCOME_UNKNOWN));
  // A reply asking for several calls is logged before the first runs; a crash can leave later ones unstarted.
  for (const call of notStarted) {
    closing.push(close("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }), answer(call.id, NOT_STARTED));
  }
  closing.push(close("step/end", { turn, step }));
  return closing;
}

function answer(callId: string, content: string): ClosingEvent {
  return close("tool/result", { call_id: callId, content, is_error: true });
}
