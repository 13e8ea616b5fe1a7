// Decoy for step 05.7: repair closes the open step and the open turn, but a call that was running
// (or never started) when the crash came gets no result. The structure check still reports it, and the
// next request to DeepSeek would carry a tool call without its tool message (a 400).
import { isEventOfType } from "../../chapters/05-session-log/events.ts";
import { findLogProblems } from "../../chapters/05-session-log/invariants.ts";
import type { Session } from "../../chapters/05-session-log/session.ts";

export * from "../../chapters/05-session-log/log-file.ts";

export function repairLog(session: Session): Session {
  const events = session.events;
  const problems = findLogProblems(events);
  // DECOY: UNANSWERED_TOOL_CALL is not handled.
  const openStep = events[problems.find((problem) => problem.code === "OPEN_STEP")?.index ?? -1];
  const openTurn = events[problems.find((problem) => problem.code === "OPEN_TURN")?.index ?? -1];
  if (openStep && isEventOfType(openStep, "step/start")) session.append("step/end", openStep.data);
  if (openTurn && isEventOfType(openTurn, "turn/start")) {
    session.append("turn/end", {
      turn: openTurn.data.turn,
      reason: "error",
      message: "interrupted: the run stopped mid-turn",
    });
  }
  return session;
}
