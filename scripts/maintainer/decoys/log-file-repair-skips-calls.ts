// Decoy for step 05.7: repair closes the open step and the open turn, but a call that was running
// (or never started) when the crash came gets no result. The structure check still reports it, and the
// next request to DeepSeek would carry a tool call without its tool message (a 400).
import type { SessionEvent } from "../../../chapters/05-session-log/events.ts";
import type { ClosingEvent } from "../../../chapters/05-session-log/disk/log-file-types.ts";
import { closingEvents as answersClosingEvents } from "../../../chapters/05-session-log/disk/log-file.ts";
import type { Session } from "../../../chapters/05-session-log/session.ts";

export * from "../../../chapters/05-session-log/disk/log-file.ts";

export function closingEvents(events: readonly SessionEvent[], options: { readonly file?: string } = {}): ClosingEvent[] {
  // DECOY: the calls' tool/call and tool/result are left out.
  return answersClosingEvents(events, options).filter((event) => event.type !== "tool/call" && event.type !== "tool/result");
}

export function repairLog(session: Session): Session {
  for (const { type, data } of closingEvents(session.events)) session.append(type, data);
  return session;
}
