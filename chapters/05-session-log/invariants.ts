// Beyond 5.6: the book notes that a fuller replay would also check that turns and steps are closed
// and that every tool call got its result. `fromLog` cannot demand that — a log cut short by a crash
// is still a true record and must load — so these checks are a separate report, not a rejection.
// findLogProblems does not check the order the agent loop writes in; `--load` does, before it repairs
// (disk/loop-order.ts). One story per log: checkLogStructure, what ④ and the timeline page show, runs
// both, so neither calls clean a log the loader then refuses.
import { whereTheLoopStopped } from "./disk/loop-order.ts";
import { isEventOfType } from "./events.ts";
import type { SessionEvent } from "./events.ts";

export type LogProblemCode =
  | "OPEN_TURN"
  | "OPEN_STEP"
  | "UNEXPECTED_BOUNDARY"
  | "UNANSWERED_TOOL_CALL"
  | "ORPHAN_TOOL_RESULT"
  | "DUPLICATE_TOOL_RESULT"
  | "STRAY_CHUNK"
  | "BAD_CHUNK_IDS"
  | "NOT_LOOP_ORDER";

export interface LogProblem {
  /** The event the problem is about (for something never closed: where it was opened). */
  readonly index: number;
  readonly code: LogProblemCode;
  /** What is wrong, in English: "event #3: step 1 never ended". */
  readonly message: string;
  /** The same in Chinese, every detail with it: "事件 #3：第 1 步一直没有结束". */
  readonly zh: string;
}

/** [中文, English]. */
type Said = readonly [zh: string, en: string];

/** Lists every structural problem in a log, by event index; an empty list means well-formed. */
export function findLogProblems(events: readonly SessionEvent[]): LogProblem[] {
  const problems: LogProblem[] = [];
  const report = (index: number, code: LogProblemCode, [zh, en]: Said): void => {
    problems.push({ index, code, message: `event #${index}: ${en}`, zh: `事件 #${index}：${zh}` });
  };

  let openTurn: SessionEvent<"turn/start"> | undefined;
  let openStep: SessionEvent<"step/start"> | undefined;
  const pendingCalls = new Map<string, number>(); // call_id → index of its tool/call
  const answeredCalls = new Set<string>();
  let stepChunks = new Map<number, number>(); // id of each chunk event in the open step → its attempt

  for (const event of events) {
    if (isEventOfType(event, "turn/start")) {
      if (openTurn) {
        const [was, now] = [openTurn.data.turn, event.data.turn];
        report(openTurn.id, "OPEN_TURN", [
          `第 ${was} 轮还没有结束，第 ${now} 轮就开始了`,
          `turn ${was} never ended before turn ${now} began`,
        ]);
      }
      openTurn = event;
    } else if (isEventOfType(event, "turn/end")) {
      if (openStep) {
        const { step } = openStep.data;
        report(openStep.id, "OPEN_STEP", [
          `第 ${step} 步还没有结束，它所在的这一轮就结束了`,
          `step ${step} never ended before its turn did`,
        ]);
      }
      if (openTurn?.data.turn !== event.data.turn) {
        const { turn } = event.data;
        report(event.id, "UNEXPECTED_BOUNDARY", [
          `第 ${turn} 轮的 turn/end，但这一轮并不在进行中`,
          `turn/end for turn ${turn}, which is not open`,
        ]);
      }
      openTurn = undefined;
      openStep = undefined;
      stepChunks = new Map();
    } else if (isEventOfType(event, "step/start")) {
      if (openStep) {
        const [was, now] = [openStep.data.step, event.data.step];
        report(openStep.id, "OPEN_STEP", [
          `第 ${was} 步还没有结束，第 ${now} 步就开始了`,
          `step ${was} never ended before step ${now} began`,
        ]);
      }
      if (openTurn?.data.turn !== event.data.turn) {
        const { turn } = event.data;
        report(event.id, "UNEXPECTED_BOUNDARY", [`step/start 写在了它所属的第 ${turn} 轮之外`, `step/start outside its turn ${turn}`]);
      }
      openStep = event;
      stepChunks = new Map();
    } else if (isEventOfType(event, "step/end")) {
      const closesOpenStep = openStep?.data.turn === event.data.turn && openStep.data.step === event.data.step;
      if (!closesOpenStep) {
        const { turn, step } = event.data;
        report(event.id, "UNEXPECTED_BOUNDARY", [
          `第 ${turn} 轮第 ${step} 步的 step/end，但这一步并不在进行中`,
          `step/end for turn ${turn} step ${step}, which is not open`,
        ]);
      }
      openStep = undefined;
    } else if (isEventOfType(event, "assistant/chunk")) {
      const { turn, step, attempt } = event.data;
      if (openStep?.data.turn === turn && openStep.data.step === step) stepChunks.set(event.id, attempt);
      else
        report(event.id, "STRAY_CHUNK", [
          `第 ${turn} 轮第 ${step} 步的分片，但进行中的不是这一步`,
          `a chunk of turn ${turn} step ${step}, which is not the open step`,
        ]);
    } else if (isEventOfType(event, "assistant/message") && event.data.chunk_ids !== undefined) {
      const problem = chunkIdsProblem(event.data.chunk_ids, stepChunks);
      if (problem !== undefined) report(event.id, "BAD_CHUNK_IDS", [`assistant/message ${problem[0]}`, `assistant/message ${problem[1]}`]);
    } else if (isEventOfType(event, "tool/call")) {
      pendingCalls.set(event.data.call_id, event.id);
    } else if (isEventOfType(event, "tool/result")) {
      // A call waiting for its result comes first: a later turn may reuse an id a model gave before.
      const id = event.data.call_id;
      if (pendingCalls.delete(id)) answeredCalls.add(id);
      else if (answeredCalls.has(id))
        report(event.id, "DUPLICATE_TOOL_RESULT", [`工具调用 ${id} 的第二个结果`, `a second result for tool call ${id}`]);
      else
        report(event.id, "ORPHAN_TOOL_RESULT", [
          `工具调用 ${id} 的结果，但这个调用从来没有发出过`,
          `result for tool call ${id}, which was never made`,
        ]);
    }
  }
  for (const [id, index] of pendingCalls)
    report(index, "UNANSWERED_TOOL_CALL", [`工具调用 ${id} 没有结果`, `tool call ${id} has no result`]);
  if (openStep) report(openStep.id, "OPEN_STEP", [`第 ${openStep.data.step} 步一直没有结束`, `step ${openStep.data.step} never ended`]);
  if (openTurn) report(openTurn.id, "OPEN_TURN", [`第 ${openTurn.data.turn} 轮一直没有结束`, `turn ${openTurn.data.turn} never ended`]);
  return problems.sort((a, b) => a.index - b.index);
}

/**
 * findLogProblems, and the loader's own check: the first event the agent loop could not have written
 * where it stands (a skipped turn or step number, a tool event outside a step, a result answering an
 * earlier step's call), unless a problem above already names that event.
 */
export function checkLogStructure(events: readonly SessionEvent[]): LogProblem[] {
  const problems = findLogProblems(events);
  const stop = whereTheLoopStopped(events);
  if (stop.fits || problems.some((problem) => problem.index === stop.index)) return problems;
  const misfit: LogProblem = {
    index: stop.index,
    code: "NOT_LOOP_ORDER",
    message: `event #${stop.index}: ${stop.why} (the agent loop never writes it there, so --load refuses to repair this log)`,
    // loop-order.ts says why in English only; the Chinese names the event and what follows from it.
    zh: `事件 #${stop.index}：${events[stop.index]?.type} 不可能是智能体循环写在这里的，所以 --load 不修复这份日志（${stop.why}）`,
  };
  return [...problems, misfit].sort((a, b) => a.index - b.index);
}

/**
 * A streamed message cites every chunk of one attempt of its own step, in order, all logged before it
 * (a retried call's message never cites an earlier attempt's chunks). Says what is wrong, if anything.
 */
function chunkIdsProblem(cited: readonly number[], stepChunks: ReadonlyMap<number, number>): Said | undefined {
  const first = cited[0];
  const attempt = first === undefined ? undefined : stepChunks.get(first);
  const ids = `[${cited.join(", ")}]`;
  if (attempt === undefined)
    return [`引用的分片 ${ids} 不是它这一步里更早的分片`, `cites chunks ${ids}, which are not earlier chunks of its step`];
  const expected = [...stepChunks].filter(([, a]) => a === attempt).map(([id]) => id);
  if (expected.join() === cited.join()) return undefined;
  const logged = `[${expected.join(", ")}]`;
  return [
    `引用了分片 ${ids}，但它这一步的第 ${attempt} 次尝试记下的是 ${logged}`,
    `cites chunks ${ids}, but attempt ${attempt} of its step logged ${logged}`,
  ];
}
