// Step p4 — 练习4: a new process event, `model/usage`, and a view derived from the log for one
// consumer (a cost dashboard). The view depends on the events alone: the same log gives the same
// view before and after a replay, raw events never change, and the model never sees usage.
// These tests build sessions with the chapter's Session (not your exercises/…/session.ts), so the
// book's 练习 can be done before, after or without your own steps 05.1–05.5.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { EventDataError } from "../../chapters/05-session-log/event-schemas.ts";
import type { JsonObject } from "../../chapters/05-session-log/json-value.ts";
import { ReplayError } from "../../chapters/05-session-log/session-types.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { recordUsage, usageByTurn, usageSchemas, UsageError, type TokenUsage, type TurnUsage } from "./usage-view.ts";
import { chapterRunArb, input, sessionOf, storedCopy, tickingClock, type EventInput } from "./practice-runs.ts";
import { thrownAs } from "./thrown.ts";

const schemas = usageSchemas;

function newSession(): Session {
  return new Session({ clock: tickingClock(), schemas });
}

function usage(prompt: number, completion: number, hits: number): TokenUsage {
  return { prompt_tokens: prompt, completion_tokens: completion, prompt_cache_hit_tokens: hits };
}

/** Two turns: turn 1 makes two model calls (a tool round trip), turn 2 one. Usage after each call. */
function twoTurnSession(): Session {
  const session = newSession();
  const append = (entry: EventInput) => session.append(entry.type, entry.data);
  append(input("turn/start", { turn: 1 }));
  append(input("user/message", { content: "1+2*3 等于几？" }));
  append(input("step/start", { turn: 1, step: 1 }));
  recordUsage(session, usage(1000, 50, 0));
  append(input("assistant/message", { content: "", tool_calls: [{ id: "c1", name: "calculator", arguments: "{}" }] }));
  append(input("tool/result", { call_id: "c1", content: "7", is_error: false }));
  append(input("step/end", { turn: 1, step: 1 }));
  append(input("step/start", { turn: 1, step: 2 }));
  recordUsage(session, usage(1100, 20, 1000));
  append(input("assistant/message", { content: "等于 7。", tool_calls: [] }));
  append(input("step/end", { turn: 1, step: 2 }));
  append(input("turn/end", { turn: 1, reason: "completed" }));
  append(input("turn/start", { turn: 2 }));
  append(input("user/message", { content: "谢谢" }));
  append(input("step/start", { turn: 2, step: 1 }));
  recordUsage(session, usage(1200, 10, 1100));
  append(input("assistant/message", { content: "不客气。", tool_calls: [] }));
  append(input("step/end", { turn: 2, step: 1 }));
  append(input("turn/end", { turn: 2, reason: "completed" }));
  return session;
}

const twoTurnView: TurnUsage[] = [
  { turn: 1, modelCalls: 2, promptTokens: 2100, completionTokens: 70, cacheHitTokens: 1000, cacheMissTokens: 1100 },
  { turn: 2, modelCalls: 1, promptTokens: 1200, completionTokens: 10, cacheHitTokens: 1100, cacheMissTokens: 100 },
];

describe("p4 记录 model/usage（练习4） / recording model/usage", () => {
  test("recordUsage 记下三个计数，以及打开着的那个步骤的轮次和步骤号 / recordUsage logs the three counts with the turn and step of the open step", () => {
    const session = newSession();
    session.append("turn/start", { turn: 2 });
    session.append("step/start", { turn: 2, step: 1 });
    session.append("step/end", { turn: 2, step: 1 });
    session.append("step/start", { turn: 2, step: 2 });
    const event = recordUsage(session, usage(900, 40, 512));
    expect(event, "recordUsage 返回已提交的事件 / recordUsage returns the committed event").toBe(session.events.at(-1));
    expect(event.type).toBe("model/usage");
    expect(
      event.data,
      "第 2 轮第 2 步：还打开着的那个步骤，不是 step/start 事件的个数 / turn 2, step 2: the step still open, not a count of step/start events",
    ).toEqual({
      turn: 2,
      step: 2,
      prompt_tokens: 900,
      completion_tokens: 40,
      prompt_cache_hit_tokens: 512,
    });
  });

  test("不管 API 的 usage 对象还带着什么，只记这三个计数 / only the three counts are logged, whatever else the API's usage object carries", () => {
    const session = newSession();
    session.append("step/start", { turn: 1, step: 1 });
    const fromApi = { ...usage(10, 5, 0), total_tokens: 15, prompt_cache_miss_tokens: 10 };
    expect(Object.keys(recordUsage(session, fromApi).data).sort()).toEqual([
      "completion_tokens",
      "prompt_cache_hit_tokens",
      "prompt_tokens",
      "step",
      "turn",
    ]);
  });

  const noOpenStep: readonly [string, string, readonly EventInput[]][] = [
    ["空日志里", "an empty log", []],
    [
      "最后一个步骤已经结束的日志里",
      "a log whose last step has ended",
      [input("step/start", { turn: 1, step: 1 }), input("step/end", { turn: 1, step: 1 })],
    ],
    [
      "还没开始任何步骤的轮次里",
      "a turn that has not started a step",
      [input("turn/start", { turn: 1 }), input("user/message", { content: "hi" })],
    ],
  ];

  test.each(noOpenStep)(
    "%s没有打开的步骤：UsageError，什么都不追加 / in %s no step is open: UsageError, nothing appended",
    (_zh, _en, entries) => {
      const session = sessionOf(entries, { schemas });
      thrownAs(
        UsageError,
        () => recordUsage(session, usage(1, 1, 0)),
        "没有打开的步骤时 recordUsage 抛 UsageError / recordUsage throws a UsageError when no step is open",
      );
      expect(session.events, "被拒绝的记录不改变日志 / a refused record leaves the log as it was").toHaveLength(entries.length);
    },
  );

  const good = { turn: 1, step: 1, prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 4 };
  const badData: readonly { whyZh: string; why: string; data: JsonObject; field: string }[] = [
    {
      whyZh: "prompt_tokens 为负数",
      why: "negative prompt_tokens",
      data: { ...good, prompt_tokens: -1, prompt_cache_hit_tokens: 0 },
      field: "$.prompt_tokens",
    },
    {
      whyZh: "completion_tokens 是小数",
      why: "fractional completion_tokens",
      data: { ...good, completion_tokens: 1.5 },
      field: "$.completion_tokens",
    },
    { whyZh: "step 为 0（步骤从 1 数起）", why: "step 0 (steps count from 1)", data: { ...good, step: 0 }, field: "$.step" },
    { whyZh: "turn 是字符串", why: "turn as a string", data: { ...good, turn: "1" }, field: "$.turn" },
    {
      whyZh: "缓存命中数多于 prompt 总数",
      why: "more cache hits than prompt tokens",
      data: { ...good, prompt_cache_hit_tokens: 11 },
      field: "$.prompt_cache_hit_tokens",
    },
    {
      whyZh: "多了 total_tokens 键（和章节的 schema 一样严格）",
      why: "an extra total_tokens key (strict, like the chapter's schemas)",
      data: { ...good, total_tokens: 15 },
      field: "$",
    },
  ];

  test.each(badData)("schema 拒绝 $whyZh，位置是 $field / the schema rejects $why, at $field", ({ data, field }) => {
    const type: string = "model/usage";
    const session = newSession();
    const refusal = thrownAs(
      EventDataError,
      () => session.append(type, data),
      "usageSchemas 里的 schema 必须拒绝这个数据 / the schema in usageSchemas must refuse this data",
    );
    expect(refusal.message).toContain(`"model/usage" at ${field}`);
  });

  test("重放也检查存储的用量：缓存命中数多于 prompt 总数就拒绝 / replay checks stored usage too: more cache hits than prompt tokens is refused", () => {
    const stored = storedCopy(twoTurnSession().events) as { type: string; data: JsonObject }[];
    const index = stored.findIndex((event) => event.type === "model/usage");
    stored[index] = { ...stored[index]!, data: { ...stored[index]!.data, prompt_cache_hit_tokens: 5000 } };
    const replay = () => Session.fromLog(stored, { schemas });
    const { message } = thrownAs(ReplayError, replay, "重放时照样用 schema 检查 / replay checks the schemas too");
    expect(message).toContain(`event #${index}`);
    expect(message).toContain(`"model/usage" at $.prompt_cache_hit_tokens`);
  });
});

describe("p4 成本面板的视图（练习4） / the cost dashboard's view", () => {
  test("usageByTurn 按轮累加模型调用，轮次升序 / usageByTurn sums each turn's model calls, turns in ascending order", () => {
    expect(usageByTurn(twoTurnSession().events)).toEqual(twoTurnView);
  });

  test("没有用量的日志没有行 / a log with no usage gives no rows", () => {
    expect(usageByTurn(sessionOf([input("turn/start", { turn: 1 })]).events)).toEqual([]);
  });

  test("从磁盘读回的存储日志给出同样的行：视图从事件算出来，不是记下来的 / a stored log read back from disk gives the same rows: the view is computed from events, not remembered", () => {
    // Written by hand, as another process would have saved it; recordUsage never ran for it here.
    const stored = [
      { id: 0, type: "turn/start", ts: 1, data: { turn: 3 } },
      {
        id: 1,
        type: "model/usage",
        ts: 2,
        data: { turn: 3, step: 1, prompt_tokens: 7, completion_tokens: 3, prompt_cache_hit_tokens: 2 },
      },
      {
        id: 2,
        type: "model/usage",
        ts: 3,
        data: { turn: 3, step: 2, prompt_tokens: 9, completion_tokens: 4, prompt_cache_hit_tokens: 9 },
      },
      {
        id: 3,
        type: "model/usage",
        ts: 4,
        data: { turn: 1, step: 1, prompt_tokens: 5, completion_tokens: 1, prompt_cache_hit_tokens: 0 },
      },
    ];
    expect(
      usageByTurn(Session.fromLog(stored, { schemas }).events),
      "行按轮次排序：这份日志里第 3 轮在第 1 轮前面 / rows sorted by turn: this log has turn 3 before turn 1",
    ).toEqual([
      { turn: 1, modelCalls: 1, promptTokens: 5, completionTokens: 1, cacheHitTokens: 0, cacheMissTokens: 5 },
      { turn: 3, modelCalls: 2, promptTokens: 16, completionTokens: 7, cacheHitTokens: 11, cacheMissTokens: 5 },
    ]);
  });

  test("同一份日志，经过 JSON 往返和 Session.fromLog 前后，视图相同 / the same log gives the same view before and after a JSON round trip through Session.fromLog", () => {
    const session = twoTurnSession();
    const replayed = Session.fromLog(storedCopy(session.events), { schemas });
    expect(usageByTurn(replayed.events)).toEqual(usageByTurn(session.events));
    expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
  });
});

const usageArb: fc.Arbitrary<TokenUsage> = fc
  .nat({ max: 200_000 })
  .chain((prompt) => fc.tuple(fc.constant(prompt), fc.nat({ max: 8_000 }), fc.nat({ max: prompt })))
  .map(([prompt, completion, hits]) => usage(prompt, completion, hits));

describe("p4 随机运行上的属性测试（练习4） / properties over random runs", () => {
  test("每次模型调用后记下用量：视图就是按轮求和，重放后相同；原始事件和消息不变 / usage after every model call: view = sums per turn, same after replay; raw events and messages unchanged", () => {
    fc.assert(
      fc.property(chapterRunArb, fc.array(usageArb, { minLength: 1, maxLength: 6 }), (run, usages) => {
        const session = newSession();
        const expected = new Map<number, TurnUsage>();
        let turn = 0;
        let calls = 0;
        for (const { type, data } of run) {
          session.append(type, data);
          if (type === "step/start") turn = data.turn as number;
          if (type !== "assistant/message") continue;
          // The reply is logged after the call returns; its usage right after it.
          const cost = usages[calls++ % usages.length]!;
          recordUsage(session, cost);
          const row = expected.get(turn) ?? {
            turn,
            modelCalls: 0,
            promptTokens: 0,
            completionTokens: 0,
            cacheHitTokens: 0,
            cacheMissTokens: 0,
          };
          expected.set(turn, {
            turn,
            modelCalls: row.modelCalls + 1,
            promptTokens: row.promptTokens + cost.prompt_tokens,
            completionTokens: row.completionTokens + cost.completion_tokens,
            cacheHitTokens: row.cacheHitTokens + cost.prompt_cache_hit_tokens,
            cacheMissTokens: row.cacheMissTokens + cost.prompt_tokens - cost.prompt_cache_hit_tokens,
          });
        }
        const snapshot = session.events;
        const before = storedCopy(snapshot);
        const view = usageByTurn(session.events);
        expect(view).toEqual([...expected.values()].sort((a, b) => a.turn - b.turn));
        expect(session.events, "读视图不追加任何东西 / reading the view appends nothing").toBe(snapshot);
        expect(storedCopy(session.events), "也不改变任何原始事件 / and changes no raw event").toEqual(before);

        const replayed = Session.fromLog(storedCopy(session.events), { schemas });
        expect(usageByTurn(replayed.events), "同一份日志重放后给出同样的视图 / the same log gives the same view after replay").toEqual(
          view,
        );
        expect(session.deriveMessages(), "用量永远不进模型 / usage never reaches the model").toEqual(sessionOf(run).deriveMessages());
      }),
      { numRuns: 100 },
    );
  });
});
