// ④'s structure check and the timeline page's problem list (checkLogStructure): one story per log. A
// log that --load refuses to repair, because the agent loop could not have written it, is never called
// clean, though findLogProblems alone (turns and steps closed, calls answered) finds nothing in it.
import { describe, expect, it } from "vitest";
import { closingEvents } from "./disk/log-file.ts";
import { RepairError } from "./disk/log-file-types.ts";
import { checkLogStructure, findLogProblems } from "./invariants.ts";
import { call, log, message, opening, other, stepEnd, stepStart, toolCall, toolResult, wholeTurn, type Entry } from "./testing/loop-log.ts";
import { deriveTimeline, problemsOf } from "./timeline/view-model.ts";

const turnEnd = (turn = 1): Entry => ["turn/end", { turn, reason: "completed" }];

function repairRefusal(events: ReturnType<typeof log>): RepairError {
  try {
    closingEvents(events);
  } catch (error) {
    if (error instanceof RepairError) return error;
    throw error;
  }
  return expect.fail("--load's repair should refuse this log");
}

describe("checkLogStructure: never clean where --load refuses to repair", () => {
  it.each([
    ["a skipped turn number", [...wholeTurn(1), ...wholeTurn(3)], 12, /^turn\/start says turn 3, but it is turn 2 of the log/],
    [
      "a skipped step number",
      [...opening(), stepStart(1), message([call]), toolCall(), toolResult(), stepEnd(1), stepStart(3), message([]), stepEnd(3), turnEnd()],
      8,
      /^step\/start says turn 1 step 3, but the next is turn 1 step 2/,
    ],
    [
      "tool events outside a step",
      [...opening(), stepStart(1), message([]), stepEnd(1), toolCall(other), toolResult(other.id), turnEnd()],
      6,
      /^tool\/call outside any step/,
    ],
    [
      "a result answering an earlier step's call",
      [...opening(), stepStart(1), message([call]), toolCall(), stepEnd(1), stepStart(2), toolResult(), message([]), stepEnd(2), turnEnd()],
      6,
      /^step\/end while call call_1 still has no result/,
    ],
  ] as const)("%s: findLogProblems alone finds nothing; checkLogStructure names the event repair refuses", (_, entries, index, why) => {
    const events = log(...(entries as readonly Entry[]));
    expect(findLogProblems(events), "findLogProblems does not check the loop's order: that is why ④ runs both").toEqual([]);
    expect(repairRefusal(events).index).toBe(index);
    const problems = checkLogStructure(events);
    expect(problems.map((p) => `${p.code}@${p.index}`)).toEqual([`NOT_LOOP_ORDER@${index}`]);
    expect(problems[0]?.message.slice(`event #${index}: `.length)).toMatch(why);
    expect(problems[0]?.message).toMatch(/\(the agent loop never writes it there, so --load refuses to repair this log\)$/);
    expect(problems[0]?.zh, "Chinese first, with the event and its type").toMatch(
      `事件 #${index}：${events[index]?.type} 不可能是智能体循环写在这里的，所以 --load 不修复这份日志（`,
    );
    expect(problemsOf(deriveTimeline(events)), "the page tells the same story").toEqual(problems);
  });

  it("a RepairError names the event the loop could not have written, then why, then what a repair can close", () => {
    const error = repairRefusal(log(...wholeTurn(1), ...wholeTurn(3)));
    expect(String(error)).toMatch(
      /^RepairError: cannot repair this log by appending: event #12 turn\/start says turn 3, but it is turn 2 of the log/,
    );
    expect(error.message).toMatch(
      /\. Only a log the agent loop leaves when it is killed can be closed; anything else is a damaged log to look at by hand\.$/,
    );
  });

  it("adds nothing to the loop's own log, or to a crash's prefix of it, or where findLogProblems already names the event", () => {
    const whole = log(...wholeTurn(1), ...wholeTurn(2));
    for (let length = 0; length <= whole.length; length++) {
      expect(checkLogStructure(whole.slice(0, length)), `the first ${length} events`).toEqual(findLogProblems(whole.slice(0, length)));
    }
    const boundary = log(["turn/start", { turn: 1 }], stepEnd(1));
    expect(repairRefusal(boundary).index).toBe(1);
    expect(checkLogStructure(boundary).map((p) => `${p.code}@${p.index}`)).toEqual(["OPEN_TURN@0", "UNEXPECTED_BOUNDARY@1"]);
  });
});
