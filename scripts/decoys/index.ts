// Decoys: plausible wrong answers that the exercise tests must reject. Each replaces one learner
// file with a near-miss built on the chapter's code; scripts/check-exercises.ts proves that at least
// one test of the step fails for each. They live here, away from anything a learner would copy.
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Decoy {
  readonly name: string;
  /** What is wrong with it, as the check reports it. */
  readonly mistake: string;
  /** The learner file it stands in for (inside exercises/05-session-log/). */
  readonly replaces: string;
  /** The step test that must catch it. */
  readonly test: string;
  readonly file: string;
}

function decoy(name: string, mistake: string, replaces: string, test: string): Decoy {
  return { name, mistake, replaces, test, file: path.join(here, `${name}.ts`) };
}

export const decoys: readonly Decoy[] = [
  // 05.1 freezeJson
  decoy("json-shallow-freeze", "only the top level of the copy is frozen; nested objects and arrays stay writable", "json.ts", "05.1-freeze-json.test.ts"),
  decoy("json-accepts-negative-zero", "-0 is accepted, though JSON.stringify writes it as 0", "json.ts", "05.1-freeze-json.test.ts"),
  decoy("json-seen-set-cycles", "cycles are tracked with a set of every object ever seen, so a shared (non-cyclic) object is rejected", "json.ts", "05.1-freeze-json.test.ts"),
  decoy("json-freezes-input", "no copy: the caller's own objects are frozen in place and returned", "json.ts", "05.1-freeze-json.test.ts"),
  decoy("json-recursive", "a recursive walk: 100,000 levels of nesting overflow the stack (RangeError)", "json.ts", "05.1-freeze-json.test.ts"),
  // 05.2 Session: append, events, subscribe
  decoy("session-snapshot-not-frozen", "events returns a fresh unfrozen copy on every read", "session.ts", "05.2-session.test.ts"),
  decoy("session-listener-error-escapes", "listeners are called bare: a throwing one escapes append and stops the others", "session.ts", "05.2-session.test.ts"),
  decoy("session-shallow-data", "event data is copied and frozen at the top level only", "session.ts", "05.2-session.test.ts"),
  decoy("session-nested-append-immediate", "an append made inside a listener is delivered at once, not queued", "session.ts", "05.2-session.test.ts"),
  decoy("session-listeners-by-function", "listeners are a Set of functions: the same function subscribed twice is one subscription", "session.ts", "05.2-session.test.ts"),
  decoy("session-late-subscriber-hears-queue", "queued events go to the listeners subscribed at delivery, so a listener subscribed mid-delivery hears an earlier append", "session.ts", "05.2-session.test.ts"),
  // 05.3 the projection
  decoy("projection-includes-tool-call", "tool/call is projected as a second assistant message", "projection.ts", "05.3-projection.test.ts"),
  decoy("projection-drops-reasoning", "reasoning_content is not carried into the assistant message", "projection.ts", "05.3-projection.test.ts"),
  decoy("projection-drops-empty-content", 'an assistant reply with content "" is dropped like content null', "projection.ts", "05.3-projection.test.ts"),
  // 05.4 Session.fromLog
  decoy("replay-accepts-id-gap", "replay only checks that ids increase, so a gap or a log numbered from 1 passes", "session.ts", "05.4-replay.test.ts"),
  decoy("replay-shares-input", "replay keeps the caller's data objects instead of frozen copies", "session.ts", "05.4-replay.test.ts"),
  decoy("replay-index-one-based", "the ReplayError counts entries from 1, so its index points past the broken entry", "session.ts", "05.4-replay.test.ts"),
  // 05.5 runAgent
  decoy("loop-skips-step-end-on-error", "no finally: a step whose model call throws is never closed with step/end", "agent-loop.ts", "05.5-agent-loop.test.ts"),
  decoy("loop-system-as-message", "the system prompt is logged as a user/message and sent as conversation", "agent-loop.ts", "05.5-agent-loop.test.ts"),
  decoy("loop-reasoning-undefined", "reasoning_content logged without ?? null, so a reply that omits it logs undefined", "agent-loop.ts", "05.5-agent-loop.test.ts"),
  decoy("loop-throws-on-tool-error", "tools run without runToolCall, so a failing tool ends the run", "agent-loop.ts", "05.5-agent-loop.test.ts"),
  // p2 (练习2) a coding assistant's inspection and UI events
  decoy("coding-assistant-file-read-projects", "recordFileRead also writes a user/message, so the inspection event reaches the model", "coding-assistant.ts", "p2-coding-assistant.test.ts"),
  decoy("coding-assistant-lax-schemas", "schemas check JSON types only: any string is a sha256, any number a byte count", "coding-assistant.ts", "p2-coding-assistant.test.ts"),
  decoy("coding-assistant-counts-chars", "bytes is the string's length (UTF-16 units), not its UTF-8 byte count", "coding-assistant.ts", "p2-coding-assistant.test.ts"),
  // p3 (练习3) redaction
  decoy("redaction-drops-message", "a redacted event's message is dropped instead of masked, breaking call/result pairing", "redaction.ts", "p3-redaction.test.ts"),
  decoy("redaction-strips-calls", "a redacted assistant message loses its tool_calls, orphaning their results", "redaction.ts", "p3-redaction.test.ts"),
  decoy("redaction-export-raw", "only the model projection is masked; the export shows the raw content", "redaction.ts", "p3-redaction.test.ts"),
  decoy("redaction-skips-invalid", "a stored redaction that cannot apply is silently ignored instead of reported", "redaction.ts", "p3-redaction.test.ts"),
  decoy("redaction-edits-raw", "the redaction overwrites the logged event's content in place", "redaction.ts", "p3-redaction.test.ts"),
  decoy("redaction-reply-leaves-call", "redacting an assistant message leaves its arguments in the tool/call events", "redaction.ts", "p3-redaction.test.ts"),
  decoy("redaction-tool-call-model-unmasked", "a redacted tool/call's arguments still reach the model in the assistant message's tool_calls entry", "redaction.ts", "p3-redaction.test.ts"),
  // p4 (练习4) model/usage and its view
  decoy("usage-view-cache", "the view reads running totals kept by recordUsage, not the log", "usage-view.ts", "p4-usage-view.test.ts"),
  decoy("usage-view-last-call-wins", "each usage event replaces its turn's row instead of adding to it", "usage-view.ts", "p4-usage-view.test.ts"),
  decoy("usage-view-counts-steps", "turn and step are counted over the whole log, not read from the open step", "usage-view.ts", "p4-usage-view.test.ts"),
  decoy("usage-view-no-hit-check", "the schema allows more cache-hit tokens than prompt tokens", "usage-view.ts", "p4-usage-view.test.ts"),
];
