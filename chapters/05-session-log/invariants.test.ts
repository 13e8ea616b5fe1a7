import { describe, expect, it } from "vitest";
import { calculator } from "../common/calculator.ts";
import type { ChatClient } from "../common/deepseek.ts";
import type { AssistantMessage } from "../common/messages.ts";
import { runAgent } from "./agent-loop.ts";
import { findLogProblems } from "./invariants.ts";
import { Session } from "./session.ts";
import type { SessionEvent } from "./events.ts";

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

  it("each problem is said in Chinese too, with the same event, turn, step and tool call", async () => {
    const torn = (await calculatorLog()).slice(0, 6);
    expect(findLogProblems(torn).map((p) => p.zh)).toEqual([
      "事件 #0：第 1 轮一直没有结束",
      "事件 #3：第 1 步一直没有结束",
      "事件 #5：工具调用 call_00_a 没有结果",
    ]);
    const session = new Session({ clock: () => 0 });
    session.append("turn/start", { turn: 1 });
    session.append("step/start", { turn: 1, step: 1 });
    session.append("step/start", { turn: 2, step: 2 });
    session.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: { kind: "text", text: "a" } });
    session.append("tool/result", { call_id: "x", content: "1", is_error: false });
    session.append("turn/end", { turn: 1, reason: "completed" });
    session.append("step/end", { turn: 1, step: 1 });
    session.append("turn/end", { turn: 1, reason: "completed" });
    session.append("turn/start", { turn: 2 });
    session.append("turn/start", { turn: 3 });
    session.append("tool/call", { call_id: "y", name: "calculator", arguments: "{}" });
    session.append("tool/result", { call_id: "y", content: "1", is_error: false });
    session.append("tool/result", { call_id: "y", content: "1", is_error: false });
    expect(findLogProblems(session.events).map((p) => p.zh)).toEqual([
      "事件 #1：第 1 步还没有结束，第 2 步就开始了",
      "事件 #2：step/start 写在了它所属的第 2 轮之外",
      "事件 #2：第 2 步还没有结束，它所在的这一轮就结束了",
      "事件 #3：第 1 轮第 1 步的分片，但进行中的不是这一步",
      "事件 #4：工具调用 x 的结果，但这个调用从来没有发出过",
      "事件 #6：第 1 轮第 1 步的 step/end，但这一步并不在进行中",
      "事件 #7：第 1 轮的 turn/end，但这一轮并不在进行中",
      "事件 #8：第 2 轮还没有结束，第 3 轮就开始了",
      "事件 #9：第 3 轮一直没有结束",
      "事件 #12：工具调用 y 的第二个结果",
    ]);
  });
});
