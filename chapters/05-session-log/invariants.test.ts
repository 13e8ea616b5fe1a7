import { describe, expect, it } from "vitest";
import { calculator } from "../common/calculator.ts";
import type { ChatClient } from "../common/deepseek.ts";
import type { AssistantMessage } from "../common/messages.ts";
import { runAgent } from "./agent-loop.ts";
import { closingEvents } from "./disk/log-file.ts";
import { RepairError } from "./disk/log-file-types.ts";
import { checkLogStructure, findLogProblems } from "./invariants.ts";
import { Session } from "./session.ts";
import type { EventData, SessionEvent } from "./events.ts";
import { deriveTimeline, problemsOf } from "./timeline/view-model.ts";

const callReply: AssistantMessage = {
  role: "assistant",
  content: "",
  reasoning_content: "use the calculator",
  tool_calls: [{ id: "call_00_a", name: "calculator", arguments: '{"expression":"1+2*3"}' }],
};
const answerReply: AssistantMessage = { role: "assistant", content: "7", reasoning_content: null, tool_calls: [] };

function scriptedClient(replies: AssistantMessage[]): ChatClient {
  return { model: "scripted", chat: async () => replies.shift() ?? answerReply };
}

async function calculatorLog(): Promise<readonly SessionEvent[]> {
  const session = await runAgent({
    client: scriptedClient([callReply, answerReply]),
    tools: [calculator],
    systemPrompt: "You are a calculator.",
    userPrompt: "1+2*3 等于几？",
  });
  return session.events;
}

const codes = (events: readonly SessionEvent[]) => findLogProblems(events).map((p) => `${p.code}@${p.index}`);

describe("findLogProblems: turns and steps closed, every tool call answered once", () => {
  it("finds nothing in a log written by runAgent", async () => {
    expect(findLogProblems(await calculatorLog())).toEqual([]);
  });

  it("a log torn after the tool call reports the open step, the open turn and the unanswered call", async () => {
    const torn = (await calculatorLog()).slice(0, 6); // … assistant/message, tool/call
    expect(codes(torn)).toEqual(["OPEN_TURN@0", "OPEN_STEP@3", "UNANSWERED_TOOL_CALL@5"]);
  });

  it("every prefix of a complete log has only open ends, never a contradiction", async () => {
    const log = await calculatorLog();
    for (let length = 0; length <= log.length; length++) {
      const found = findLogProblems(log.slice(0, length)).map((p) => p.code);
      const contradictions = found.filter((code) => !["OPEN_TURN", "OPEN_STEP", "UNANSWERED_TOOL_CALL"].includes(code));
      expect(contradictions, `prefix of ${length} events`).toEqual([]);
    }
  });

  it("reports a duplicate result and a result for a call never made", () => {
    const session = new Session({ clock: () => 0 });
    session.append("tool/call", { call_id: "a", name: "calculator", arguments: "{}" });
    session.append("tool/result", { call_id: "a", content: "1", is_error: false });
    session.append("tool/result", { call_id: "a", content: "1", is_error: false });
    session.append("tool/result", { call_id: "b", content: "2", is_error: false });
    expect(codes(session.events)).toEqual(["DUPLICATE_TOOL_RESULT@2", "ORPHAN_TOOL_RESULT@3"]);
  });

  it("reports boundaries that close what is not open, naming the event", () => {
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/end", { turn: 1, step: 1 });
    session.append("turn/end", { turn: 2, reason: "completed" });
    const problems = findLogProblems(session.events);
    expect(problems.map((p) => p.code)).toEqual(["UNEXPECTED_BOUNDARY", "UNEXPECTED_BOUNDARY"]);
    expect(problems[0]?.message).toBe("event #1: step/end for turn 1 step 1, which is not open");
  });

  it.each([
    ["its turn", { turn: 7, step: 1 }],
    ["its number", { turn: 1, step: 2 }],
  ])("a step/end must match the open step's turn and number: another %s is UNEXPECTED_BOUNDARY", (_, end) => {
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("step/end", end);
    session.append("turn/end", { turn: 1, reason: "completed" });
    expect(codes(session.events)).toEqual(["UNEXPECTED_BOUNDARY@2"]);
  });

  it("a later turn may reuse a call id: its answered result is not a duplicate", () => {
    const session = new Session({ clock: () => 0 });
    for (const content of ["1", "2"]) {
      session.append("tool/call", { call_id: "call_0", name: "calculator", arguments: "{}" });
      session.append("tool/result", { call_id: "call_0", content, is_error: false });
    }
    expect(codes(session.events)).toEqual([]);
  });

  it("a new turn while one is open reports the old turn", () => {
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("turn/start", { turn: 2 });
    session.append("turn/end", { turn: 2, reason: "completed" });
    expect(codes(session.events)).toEqual(["OPEN_TURN@0"]);
  });

  it("a step still open at turn/end is OPEN_STEP where the step began, naming it", () => {
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("turn/end", { turn: 1, reason: "error" });
    const problems = findLogProblems(session.events);
    expect(problems.map((p) => `${p.code}@${p.index}`)).toEqual(["OPEN_STEP@1"]);
    expect(problems[0]?.message).toMatch(/^event #1: .*\bstep 1\b.*\bturn\b/);
  });

  it("a step still open at the next step/start is OPEN_STEP naming both steps", () => {
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("step/start", { turn: 1, step: 2 });
    session.append("step/end", { turn: 1, step: 2 });
    session.append("turn/end", { turn: 1, reason: "completed" });
    const problems = findLogProblems(session.events);
    expect(problems.map((p) => `${p.code}@${p.index}`)).toEqual(["OPEN_STEP@1"]);
    expect(problems[0]?.message).toMatch(/^event #1: .*\bstep 1\b.*\bstep 2\b/);
  });

  it("a step/start outside its turn (another turn open, or none) is UNEXPECTED_BOUNDARY naming the turn", () => {
    const session = new Session({ clock: () => 0 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("step/end", { turn: 1, step: 1 });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 2, step: 1 });
    session.append("step/end", { turn: 2, step: 1 });
    session.append("turn/end", { turn: 1, reason: "completed" });
    const problems = findLogProblems(session.events);
    expect(problems.map((p) => `${p.code}@${p.index}`)).toEqual(["UNEXPECTED_BOUNDARY@0", "UNEXPECTED_BOUNDARY@3"]);
    expect(problems[1]?.message).toMatch(/^event #3: step\/start .*\bturn 2\b/);
  });

  it("turn/end and step/end close what they end: closing it again is UNEXPECTED_BOUNDARY", () => {
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("step/end", { turn: 1, step: 1 });
    session.append("step/end", { turn: 1, step: 1 });
    session.append("step/start", { turn: 1, step: 2 });
    session.append("turn/end", { turn: 1, reason: "completed" });
    session.append("step/end", { turn: 1, step: 2 });
    session.append("turn/end", { turn: 1, reason: "completed" });
    expect(codes(session.events)).toEqual(["UNEXPECTED_BOUNDARY@3", "OPEN_STEP@4", "UNEXPECTED_BOUNDARY@6", "UNEXPECTED_BOUNDARY@7"]);
    expect(findLogProblems(session.events)[3]?.message).toMatch(/^event #7: turn\/end .*\bturn 1\b.*not open/);
  });

  it("each message starts with its event and names the turn, step or tool call to look at", async () => {
    const torn = (await calculatorLog()).slice(0, 6);
    const tornMessages = findLogProblems(torn).map((p) => p.message);
    [/^event #0: .*\bturn 1\b/, /^event #3: .*\bstep 1\b/, /^event #5: .*\bcall_00_a\b.*no result/].forEach((part, i) => {
      expect(tornMessages[i]).toMatch(part);
    });
    expect(tornMessages).toHaveLength(3);
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("turn/start", { turn: 2 });
    session.append("tool/result", { call_id: "x", content: "1", is_error: false });
    session.append("tool/call", { call_id: "y", name: "calculator", arguments: "{}" });
    session.append("tool/result", { call_id: "y", content: "1", is_error: false });
    session.append("tool/result", { call_id: "y", content: "1", is_error: false });
    const messages = findLogProblems(session.events).map((p) => p.message);
    [
      /^event #0: .*\bturn 1\b.*\bturn 2\b/,
      /^event #1: .*\bturn 2\b/,
      /^event #2: .*\bx\b.*never made/,
      /^event #5: .*second.*\by$/,
    ].forEach((part, i) => {
      expect(messages[i]).toMatch(part);
    });
    expect(messages).toHaveLength(4);
  });
});

describe("checkLogStructure (④ and the timeline page): one story per log, never clean where --load refuses to repair", () => {
  type Entry = readonly [type: string, data: EventData<string>];
  const header = { header: { model: "m", system: "s", tools: [] }, reason: "initial" } as const;
  const call = { id: "call_1", name: "calculator", arguments: "{}" };
  const opening = (turn: number): Entry[] => [
    ["turn/start", { turn }],
    ["user/message", { content: "q" }],
    ["request/header", header],
  ];
  const answer = (turn: number, step: number): Entry[] => [
    ["step/start", { turn, step }],
    ["assistant/message", { content: "a", tool_calls: [] }],
    ["step/end", { turn, step }],
  ];
  const callStep = (step: number, result = true): Entry[] => [
    ["step/start", { turn: 1, step }],
    ["assistant/message", { content: "", tool_calls: [call] }],
    ["tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }],
    ...(result ? [["tool/result", { call_id: call.id, content: "7", is_error: false }] as Entry] : []),
    ["step/end", { turn: 1, step }],
  ];
  const end = (turn: number): Entry => ["turn/end", { turn, reason: "completed" }];
  const logOf = (entries: readonly Entry[]) => {
    const session = new Session({ clock: () => 0 });
    for (const [type, data] of entries) session.append(type, data);
    return session.events;
  };

  it.each([
    [
      "a skipped turn number",
      [...opening(1), ...answer(1, 1), end(1), ...opening(3), ...answer(3, 1), end(3)],
      7,
      /^turn\/start says turn 3, but it is turn 2/,
    ],
    [
      "a skipped step number",
      [...opening(1), ...callStep(1), ...answer(1, 3), end(1)],
      8,
      /^step\/start says turn 1 step 3, but the next is turn 1 step 2/,
    ],
    [
      "tool events outside a step",
      [
        ...opening(1),
        ...answer(1, 1),
        ["tool/call", { call_id: "x", name: "calculator", arguments: "{}" }],
        ["tool/result", { call_id: "x", content: "1", is_error: false }],
        end(1),
      ],
      6,
      /^tool\/call outside any step/,
    ],
    [
      "a result answering an earlier step's call",
      [
        ...opening(1),
        ...callStep(1, false),
        ...answer(1, 2).slice(0, 1),
        ["tool/result", { call_id: call.id, content: "7", is_error: false }],
        ...answer(1, 2).slice(1),
        end(1),
      ],
      6,
      /^step\/end while call call_1 still has no result/,
    ],
  ] as const)("%s: findLogProblems alone finds nothing; checkLogStructure names the event repair refuses", (_, entries, index, why) => {
    const log = logOf(entries as readonly Entry[]);
    expect(findLogProblems(log), "findLogProblems does not check the loop's order: that is why ④ runs both").toEqual([]);
    const refused = (() => {
      try {
        closingEvents(log);
      } catch (error) {
        return error;
      }
      return expect.fail("--load's repair should refuse this log");
    })();
    expect(refused).toBeInstanceOf(RepairError);
    expect((refused as RepairError).index).toBe(index);
    const problems = checkLogStructure(log);
    expect(problems.map((p) => `${p.code}@${p.index}`)).toEqual([`NOT_LOOP_ORDER@${index}`]);
    expect(problems[0]?.message.slice(`event #${index}: `.length)).toMatch(why);
    expect(problems[0]?.message).toMatch(/\(the agent loop never writes it there, so --load refuses to repair this log\)$/);
    expect(problemsOf(deriveTimeline(log)), "the page tells the same story").toEqual(problems);
  });

  it("adds nothing where findLogProblems already names the event, or where the log is the loop's own (a crash's prefix too)", async () => {
    const log = await calculatorLog();
    for (let length = 0; length <= log.length; length++) {
      expect(checkLogStructure(log.slice(0, length))).toEqual(findLogProblems(log.slice(0, length)));
    }
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/end", { turn: 1, step: 1 });
    expect(checkLogStructure(session.events).map((p) => `${p.code}@${p.index}`)).toEqual(["OPEN_TURN@0", "UNEXPECTED_BOUNDARY@1"]);
  });
});
