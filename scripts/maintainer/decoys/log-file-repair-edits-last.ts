// Decoy for step 05.7: repair "finishes" the log by overwriting its last event (the half-done
// step/start or tool/call the crash left) with the closing turn/end, and replays the edited log into
// a new session. History is rewritten, and a writer attached to the old session never sees it.
import { findLogProblems } from "../../../chapters/05-session-log/invariants.ts";
import { Session } from "../../../chapters/05-session-log/session.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function repairLog(session: Session): Session {
  const events = session.events;
  const last = events.at(-1);
  if (last === undefined || findLogProblems(events).length === 0) return session;
  const turn = Number(events.findLast((event) => event.type === "turn/start")?.data.turn ?? 1);
  // DECOY: the last event is replaced, not followed.
  const closing = { ...last, type: "turn/end", data: { turn, reason: "error", message: "interrupted" } };
  return Session.fromLog([...events.slice(0, -1), closing]);
}
