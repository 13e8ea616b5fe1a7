// Step p3 — 练习3: redaction over an append-only log. A `log/redact` event masks an earlier event in
// every derived view (the model's messages, the export), the raw event never changes, and a replay
// of the same log masks the same way.
// These tests build sessions with the chapter's Session (not your exercises/…/session.ts), so the
// book's 练习 can be done before, after or without your own steps 05.1–05.5.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import type { SessionEvent } from "../../chapters/05-session-log/events.ts";
import type { Message } from "../../chapters/common/messages.ts";
import {
  deriveRedactedMessages,
  exportTranscript,
  redact,
  RedactionError,
  redactedArguments,
  redactionMarker,
  redactionSchemas,
  type RedactionRule,
} from "./redaction.ts";
import { chapterRunArb, input, sessionOf, storedCopy, type EventInput } from "./practice-runs.ts";
import { thrownAs } from "./thrown.ts";

const schemas = redactionSchemas;
const secret = "sk-live-0123456789";
const call = { id: "call_00_calc", name: "calculator", arguments: `{"expression":"1+2*3","note":"${secret}"}` };

/** The book's §5.7 run, except that the user pasted a key into the prompt and it spread. */
const leakyRun: readonly EventInput[] = [
  input("turn/start", { turn: 1 }), // #0
  input("user/message", { content: `我的 key 是 ${secret}，顺便算 1+2*3` }), // #1
  input("request/header", {
    header: { model: "deepseek-flash", system: "你会用计算器。", tools: [] },
    reason: "initial",
  }), // #2
  input("step/start", { turn: 1, step: 1 }), // #3
  input("assistant/message", { content: "", reasoning_content: `用户给了 ${secret}`, tool_calls: [call] }), // #4
  input("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }), // #5
  input("tool/result", { call_id: call.id, content: `7 (note: ${secret})`, is_error: false }), // #6
  input("step/end", { turn: 1, step: 1 }), // #7
  input("step/start", { turn: 1, step: 2 }), // #8
  input("assistant/message", { content: "1+2*3 = 7", reasoning_content: null, tool_calls: [] }), // #9
  input("step/end", { turn: 1, step: 2 }), // #10
  input("turn/end", { turn: 1, reason: "completed" }), // #11
];

function leakySession(): Session {
  return sessionOf(leakyRun, { schemas });
}

const marker = redactionMarker("pasted API key");
const maskedArgs = redactedArguments("pasted API key");

/** Asserts `act` throws a RedactionError with this rule, naming the target id. `who` threw it, in Chinese and in English. */
function expectRefusal(act: () => unknown, code: RedactionRule, targetId: number, [who, whoEn] = ["redact", "redact"]): void {
  const error = thrownAs(
    RedactionError,
    act,
    `${who}：这个遮蔽必须抛 RedactionError / ${whoEn} must throw a RedactionError for this redaction`,
  );
  expect(error.code, "违反的规则 / the rule that was broken").toBe(code);
  expect(error.targetId).toBe(targetId);
  expect(error.message, "消息点出目标 id 和规则 / the message names the target id and the rule").toContain(`#${targetId}`);
  expect(error.message).toContain(code);
}

describe("p3 redact() 先检查目标再追加（练习3） / redact() checks the target before appending", () => {
  test("它追加一条 log/redact 事件，写明目标和原因 / it appends one log/redact event naming the target and the reason", () => {
    const session = leakySession();
    const event = redact(session, 1, "pasted API key");
    expect(event, "redact 返回已提交的事件 / redact returns the committed event").toBe(session.events.at(-1));
    expect(event).toMatchObject({ id: 12, type: "log/redact", data: { target_id: 1, reason: "pasted API key" } });
  });

  test.each([99, 12, -1, 1.5])(
    "遮蔽不存在的 id $0 是 UNKNOWN_TARGET，什么都不追加 / redacting id $0, which no event has, is UNKNOWN_TARGET and appends nothing",
    (id) => {
      const session = leakySession();
      expectRefusal(() => redact(session, id, "x"), "UNKNOWN_TARGET", id);
      expect(session.events, "被拒绝的遮蔽不改变日志 / a refused redaction leaves the log as it was").toHaveLength(leakyRun.length);
    },
  );

  test.each([
    [0, "turn/start"],
    [2, "request/header"],
    [3, "step/start"],
    [7, "step/end"],
    [11, "turn/end"],
  ])(
    "事件 #$0（$1）是记录的骨架：NOT_REDACTABLE，什么都不追加 / event #$0 ($1) is the record's skeleton: NOT_REDACTABLE, nothing appended",
    (id) => {
      const session = leakySession();
      expectRefusal(() => redact(session, id, "x"), "NOT_REDACTABLE", id);
      expect(session.events).toHaveLength(leakyRun.length);
    },
  );

  test("遮蔽本身不能再被遮蔽（NOT_REDACTABLE）：删除的记录要留下 / a redaction cannot itself be redacted (NOT_REDACTABLE): the record of a removal stays", () => {
    const session = leakySession();
    const first = redact(session, 1, "pasted API key");
    expectRefusal(() => redact(session, first.id, "x"), "NOT_REDACTABLE", first.id);
    expect(session.events).toHaveLength(leakyRun.length + 1);
  });
});

describe("p3 给模型的消息里，被遮蔽的内容换成遮蔽标记（练习3） / redacted content is masked in the model's messages", () => {
  test("没有遮蔽时，消息就是章节的投影 / without redactions the messages are the chapter's projection", () => {
    const session = leakySession();
    expect(deriveRedactedMessages(session.events)).toEqual(session.deriveMessages());
  });

  test("被遮蔽的用户消息留在原位，显示遮蔽标记 / a redacted user message keeps its place and shows the marker", () => {
    const session = leakySession();
    redact(session, 1, "pasted API key");
    const [first, ...rest] = deriveRedactedMessages(session.events);
    expect(first).toEqual({ role: "user", content: marker });
    expect(rest, "其他消息不动 / the other messages are untouched").toEqual(session.deriveMessages().slice(1));
  });

  test("被遮蔽的工具结果保留 tool_call_id，仍然回答它的调用 / a redacted tool result keeps its tool_call_id, so it still answers its call", () => {
    const session = leakySession();
    redact(session, 6, "pasted API key");
    const messages = deriveRedactedMessages(session.events);
    expect(messages[2]).toEqual({ role: "tool", content: marker, tool_call_id: call.id });
    expect(messages[1], "它回答的调用还在 / the call it answers is still there").toMatchObject({ tool_calls: [{ id: call.id }] });
  });

  test("被遮蔽的 assistant 消息保留调用的 id 和 name；正文、思考内容和参数被遮蔽 / a redacted assistant message keeps its call ids and names; content, reasoning and arguments are masked", () => {
    const session = leakySession();
    redact(session, 4, "pasted API key");
    const messages = deriveRedactedMessages(session.events);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: marker,
      reasoning_content: marker,
      tool_calls: [{ id: call.id, name: call.name, arguments: maskedArgs }],
    });
    expect(
      JSON.parse(maskedArgs),
      "遮蔽后的参数仍是 JSON 文本，API 要求如此 / masked arguments are still JSON text, as the API requires",
    ).toEqual({
      redacted: "pasted API key",
    });
    expect(messages[2], "它的工具结果仍然和它配对 / its tool result still pairs with it").toMatchObject({
      role: "tool",
      tool_call_id: call.id,
    });
  });

  test("遮蔽不增减消息：为 null 的 content 和空的思考内容保持原样 / masking never adds or drops a message: null content and empty reasoning stay as they are", () => {
    const session = sessionOf(
      [
        input("assistant/message", { content: null, reasoning_content: "", tool_calls: [] }), // dropped by the projection
        input("assistant/message", { content: null, reasoning_content: "thinking", tool_calls: [] }),
      ],
      { schemas },
    );
    redact(session, 0, "r");
    redact(session, 1, "r");
    expect(deriveRedactedMessages(session.events)).toEqual([
      { role: "assistant", content: null, reasoning_content: redactionMarker("r"), tool_calls: [] },
    ]);
  });

  test("被遮蔽的 tool/call 的参数，在发起这个调用的 assistant 消息里也要遮蔽 / a redacted tool/call's arguments are masked in the assistant message that asked for the call, too", () => {
    const session = leakySession();
    redact(session, 5, "pasted API key");
    const messages = deriveRedactedMessages(session.events);
    const plain = session.deriveMessages();
    expect(
      messages[1],
      "tool/call 不是消息，但它的参数也在 assistant 消息的 tool_calls 里 id 相同的那一项里：在那里遮蔽 / tool/call is not a message, but its arguments ride in the assistant message's tool_calls entry with the same id: mask them there",
    ).toEqual({ ...plain[1], tool_calls: [{ id: call.id, name: call.name, arguments: maskedArgs }] });
    expect(JSON.stringify(messages), "被遮蔽的参数绝不发给模型 / the model is never sent the redacted arguments").not.toContain(
      call.arguments,
    );
    expect([messages[0], ...messages.slice(2)], "其他每条消息保持原样 / every other message as it was").toEqual([
      plain[0],
      ...plain.slice(2),
    ]);
  });

  test("只遮蔽 tool_calls 里这个调用 id 的那一项：回复里的其他调用保留参数 / only the tool_calls entry with that call id is masked: the reply's other calls keep their arguments", () => {
    const other = { id: "call_01_other", name: "calculator", arguments: '{"expression":"2+2"}' };
    const session = sessionOf(
      [
        input("user/message", { content: "两道题" }), // #0
        input("assistant/message", { content: "", reasoning_content: "两次调用", tool_calls: [call, other] }), // #1
        input("tool/call", { call_id: call.id, name: call.name, arguments: call.arguments }), // #2
        input("tool/result", { call_id: call.id, content: "7", is_error: false }), // #3
        input("tool/call", { call_id: other.id, name: other.name, arguments: other.arguments }), // #4
        input("tool/result", { call_id: other.id, content: "4", is_error: false }), // #5
      ],
      { schemas },
    );
    redact(session, 2, "pasted API key");
    expect(deriveRedactedMessages(session.events)[1]).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: "两次调用",
      tool_calls: [{ ...call, arguments: maskedArgs }, other],
    });
  });

  test("遮蔽了两次的事件显示后一次的原因 / an event redacted twice shows the later reason", () => {
    const session = leakySession();
    redact(session, 1, "first reason");
    redact(session, 1, "pasted API key");
    expect(deriveRedactedMessages(session.events)[0]).toEqual({ role: "user", content: marker });
  });

  test("原始事件永远不变：日志里还是原来的文字 / the raw events never change: the log still holds the original text", () => {
    const session = leakySession();
    const before = storedCopy(session.events);
    for (const id of [1, 4, 5, 6]) redact(session, id, "pasted API key");
    deriveRedactedMessages(session.events);
    exportTranscript(session.events);
    expect(storedCopy(session.events).slice(0, leakyRun.length), "原始事件和之前深度相等 / raw events are deep-equal to before").toEqual(
      before,
    );
    expect(session.events[1]?.data, "遮蔽作用于视图，不作用于记录 / redaction masks views, not the record").toEqual({
      content: leakyRun[1]?.data.content,
    });
  });
});

describe("p3 给界面或审计看的导出（练习3） / the export for a UI or an auditor", () => {
  test("每条事件都列出来，被遮蔽的显示遮蔽后的样子，并带上遮蔽它的那次遮蔽 / every event is listed, masked where redacted, with the redaction that masked it", () => {
    const session = leakySession();
    const redaction = redact(session, 1, "pasted API key");
    const transcript = exportTranscript(session.events);
    expect(transcript, "每条事件一项，遮蔽事件也算 / one entry per event, redactions included").toHaveLength(session.events.length);
    expect(transcript[1]).toEqual({
      id: 1,
      type: "user/message",
      ts: session.events[1]?.ts,
      data: { content: marker },
      redaction: { by: redaction.id, reason: "pasted API key" },
    });
    expect(transcript[12], "遮蔽本身就是审计记录 / the redaction itself is the audit trail").toEqual({
      id: 12,
      type: "log/redact",
      ts: redaction.ts,
      data: { target_id: 1, reason: "pasted API key" },
      redaction: null,
    });
    for (const id of [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) {
      const raw = session.events[id]!;
      expect(transcript[id], `事件 #${id} 没被遮蔽：照记录的样子显示 / event #${id} is not redacted: shown as logged`).toEqual({
        ...raw,
        data: raw.data,
        redaction: null,
      });
    }
  });

  test("导出里，被遮蔽的 tool/call 两处都遮蔽，各自显示遮蔽它的那次遮蔽 / a redacted tool/call is masked in both places in the export, each showing the redaction that masked it", () => {
    const session = leakySession();
    const redaction = redact(session, 5, "pasted API key");
    const transcript = exportTranscript(session.events);
    const masking = { by: redaction.id, reason: "pasted API key" };
    expect(transcript[5]).toEqual({
      ...session.events[5],
      data: { call_id: call.id, name: call.name, arguments: maskedArgs },
      redaction: masking,
    });
    expect(
      transcript[4],
      "发起这个调用的 assistant 消息：只有这个调用的参数变 / the assistant message that asked for the call: only that call's arguments change",
    ).toEqual({
      ...session.events[4],
      data: { ...session.events[4]?.data, tool_calls: [{ ...call, arguments: maskedArgs }] },
      redaction: masking,
    });
  });

  test("被遮蔽的 assistant 消息，在重复记录它的调用参数的 tool/call 事件里也要遮蔽 / a redacted assistant message masks its calls' arguments in the tool/call events that repeat them, too", () => {
    const session = leakySession();
    const redaction = redact(session, 4, "pasted API key");
    const transcript = exportTranscript(session.events);
    expect(
      transcript[5],
      "tool/call 记的参数和回复的 tool_calls 那一项相同：遮蔽回复时，那里也要遮蔽 / the tool/call logs the same arguments as the reply's tool_calls entry: redacting the reply masks them there too",
    ).toEqual({
      ...session.events[5],
      data: { call_id: call.id, name: call.name, arguments: maskedArgs },
      redaction: { by: redaction.id, reason: "pasted API key" },
    });
    expect(JSON.stringify(transcript[5]), "导出绝不显示被遮蔽的参数 / the export never shows the redacted arguments").not.toContain(secret);
  });

  test("导出和消息里哪里都找不到被遮蔽的文字 / no redacted text survives anywhere in the export or the messages", () => {
    const session = leakySession();
    for (const id of [1, 4, 5, 6]) redact(session, id, "pasted API key");
    expect(JSON.stringify(exportTranscript(session.events))).not.toContain(secret);
    expect(JSON.stringify(deriveRedactedMessages(session.events))).not.toContain(secret);
    expect(JSON.stringify(session.events), "……而原始日志里还有 / …while the raw log still has it").toContain(secret);
  });
});

describe("p3 重放，以及从存储的日志里读到的遮蔽（练习3） / replay, and redactions read from a stored log", () => {
  test("经过 JSON 往返和 Session.fromLog，遮蔽照样生效 / a JSON round trip through Session.fromLog reproduces the masking", () => {
    const session = leakySession();
    for (const id of [1, 6]) redact(session, id, "pasted API key");
    const replayed = Session.fromLog(storedCopy(session.events), { schemas });
    expect(deriveRedactedMessages(replayed.events)).toEqual(deriveRedactedMessages(session.events));
    expect(exportTranscript(replayed.events)).toEqual(exportTranscript(session.events));
  });

  /** A log written by some other program: redactions appended directly, unchecked. */
  function storedLogWith(redaction: { at: number; target_id: number }): Session {
    const session = new Session({ schemas });
    leakyRun.forEach(({ type, data }, index) => {
      if (index === redaction.at) session.append("log/redact", { target_id: redaction.target_id, reason: "r" });
      session.append(type, data);
    });
    return Session.fromLog(storedCopy(session.events), { schemas });
  }

  test.each([
    { at: 2, target_id: 5, code: "TARGET_NOT_EARLIER" as const, whyZh: "目标在遮蔽之后", why: "a target after the redaction" },
    { at: 2, target_id: 2, code: "TARGET_NOT_EARLIER" as const, whyZh: "遮蔽的目标是它自己", why: "a redaction targeting itself" },
    { at: 2, target_id: 999, code: "UNKNOWN_TARGET" as const, whyZh: "目标 id 没有对应的事件", why: "an id no event has" },
    { at: 2, target_id: 0, code: "NOT_REDACTABLE" as const, whyZh: "目标是轮次边界", why: "a turn boundary" },
  ])(
    "存储的日志里有一条遮蔽 $whyZh（$code）：两种视图都拒绝 / a stored log with $why ($code) is refused by both views",
    ({ at, target_id, code }) => {
      const stored = storedLogWith({ at, target_id });
      expectRefusal(() => deriveRedactedMessages(stored.events), code, target_id, [
        "deriveRedactedMessages（要重新检查每条存储的遮蔽）",
        "deriveRedactedMessages (re-check every stored redaction)",
      ]);
      expectRefusal(() => exportTranscript(stored.events), code, target_id, [
        "exportTranscript（要重新检查每条存储的遮蔽）",
        "exportTranscript (re-check every stored redaction)",
      ]);
      try {
        deriveRedactedMessages(stored.events);
      } catch (error) {
        expect((error as RedactionError).redactionId, "错误也点出那条遮蔽 / the error names the redaction too").toBe(at);
      }
    },
  );
});

/** A redaction to make after the run's event number `after`, of one of the redactable events so far. */
const plansArb = fc.array(fc.record({ after: fc.nat(), pick: fc.nat(), reason: fc.string({ minLength: 1, maxLength: 8 }) }), {
  maxLength: 6,
});
const redactable = new Set(["user/message", "assistant/message", "tool/call", "tool/result"]);

describe("p3 随机运行上的属性测试（练习3） / properties over random runs", () => {
  test("随机的合法遮蔽：原始事件不变，重放照样遮蔽，消息不增不减 / for random valid redactions: raw events unchanged, replay reproduces the masking, no message added or lost", () => {
    fc.assert(
      fc.property(chapterRunArb, plansArb, (run, plans) => {
        const session = new Session({ schemas });
        const redactions: { readonly target: SessionEvent; readonly reason: string }[] = [];
        run.forEach(({ type, data }, index) => {
          session.append(type, data);
          for (const plan of plans.filter(({ after }) => after % run.length === index)) {
            const candidates = session.events.filter((event) => redactable.has(event.type));
            const target = candidates[plan.pick % candidates.length];
            if (target === undefined) continue;
            redact(session, target.id, plan.reason);
            redactions.push({ target, reason: plan.reason });
          }
        });
        const lastReason = expectedReasons(session.events, redactions);
        const before = storedCopy(session.events);
        const messages = deriveRedactedMessages(session.events);
        const transcript = exportTranscript(session.events);
        expect(storedCopy(session.events), "计算视图不改变任何原始事件 / computing the views changes no raw event").toEqual(before);

        const replayed = Session.fromLog(storedCopy(session.events), { schemas });
        expect(deriveRedactedMessages(replayed.events), "重放后遮蔽得一模一样 / replay masks the same way").toEqual(messages);
        expect(exportTranscript(replayed.events)).toEqual(transcript);

        const plain = session.deriveMessages();
        expect(
          messages.map(shape),
          "同样的消息、同样的角色、同样的调用 id：只遮蔽文字 / same messages, same roles, same call ids: only text is masked",
        ).toEqual(plain.map(shape));
        for (const entry of transcript) {
          const reason = lastReason.get(entry.id);
          expect(
            entry.redaction?.reason,
            `事件 #${entry.id}：redaction.reason 必须是最近一次遮蔽的原因 / event #${entry.id}: redaction.reason must be the latest redaction's reason`,
          ).toBe(reason);
          if (reason === undefined) expect(entry.data).toEqual(session.events[entry.id]?.data);
        }
      }),
      { numRuns: 100 },
    );
  });
});

/**
 * Event id → the reason of the latest redaction that masks it, over the whole log. The arguments of
 * a call are logged twice, in the asking message and in the tool/call: redacting either masks both,
 * even a tool/call appended after the redaction of its message.
 */
function expectedReasons(
  events: readonly SessionEvent[],
  redactions: readonly { readonly target: SessionEvent; readonly reason: string }[],
): Map<number, string> {
  const reasons = new Map<number, string>();
  for (const { target, reason } of redactions) {
    reasons.set(target.id, reason);
    const asking = target.type === "tool/call" ? askingMessage(events, target) : undefined;
    if (asking !== undefined) reasons.set(asking.id, reason);
    if (target.type !== "assistant/message") continue;
    for (const call of events.filter((event) => event.type === "tool/call")) {
      if (askingMessage(events, call) === target) reasons.set(call.id, reason);
    }
  }
  return reasons;
}

/** The latest assistant/message before `call` (a tool/call) whose tool_calls carry its call id. */
function askingMessage(events: readonly SessionEvent[], call: SessionEvent): SessionEvent | undefined {
  const asks = (event: SessionEvent) =>
    event.type === "assistant/message" &&
    event.id < call.id &&
    (event.data["tool_calls"] as { id: string }[]).some((entry) => entry.id === call.data["call_id"]);
  return events.findLast(asks);
}

/** What masking must keep: the role and how results pair with calls. */
function shape(message: Message): JsonObject {
  if (message.role === "assistant") return { role: message.role, calls: message.tool_calls.map((c) => `${c.id}:${c.name}`) };
  if (message.role === "tool") return { role: message.role, answers: message.tool_call_id };
  return { role: message.role };
}
