// Decoy for step 05.7: repair closes whatever findLogProblems reports as open, without asking whether
// the loop could have left the log that way. A repeated turn number, a step that jumps, or a call no
// reply asked for gets "closed" too, and the damage is hidden under a tidy turn/end.
import { isEventOfType } from "../../../chapters/05-session-log/events.ts";
import { findLogProblems } from "../../../chapters/05-session-log/invariants.ts";
import { OUTCOME_UNKNOWN, TURN_INTERRUPTED } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import type { Session } from "../../../chapters/05-session-log/session.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function repairLog(session: Session): Session {
  const events = session.events;
  // DECOY: no check of the loop's order of appends (whereTheLoopStopped); any open end is closed.
  for (const problem of findLogProblems(events)) {
    const event = events[problem.index];
    if (problem.code === "UNANSWERED_TOOL_CALL" && event && isEventOfType(event, "tool/call")) {
      session.append("tool/result", { call_id: event.data.call_id, content: OUTCOME_UNKNOWN, is_error: true });
    }
  }
  const openStep = findLogProblems(events).find((problem) => problem.code === "OPEN_STEP");
  const stepStart = openStep === undefined ? undefined : events[openStep.index];
  if (stepStart && isEventOfType(stepStart, "step/start")) session.append("step/end", stepStart.data);
  const openTurn = findLogProblems(events).findLast((problem) => problem.code === "OPEN_TURN");
  const turnStart = openTurn === undefined ? undefined : events[openTurn.index];
  if (turnStart && isEventOfType(turnStart, "turn/start")) {
    session.append("turn/end", { turn: turnStart.data.turn, reason: "interrupted", message: TURN_INTERRUPTED });
  }
  return session;
}
