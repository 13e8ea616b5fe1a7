// Offline, the demo's disk runs replay one two-turn recording, streamed or not as the run is: `--save`
// replays its turn 1 and `--load --continue` its turn 2 (calculator-follow-up-streamed.json, or
// calculator-follow-up.json with --no-stream). Both have the same replies, so a log saved either way goes
// on either way. Turn 2 goes on from turn 1's conversation only: a loaded log that holds another one is
// found before anything is written to it.
import { isDeepStrictEqual } from "node:util";
import { toWire } from "../../common/deepseek.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { userMessagesIn } from "../../../fixtures/scenarios.ts";
import type { SessionLog } from "../session-types.ts";
import type { Recording } from "./setup.ts";

/** Turn `turn` of the two-turn recording. A request's user messages say which turn it belongs to. */
export function followUpTurn(turn: 1 | 2, stream: boolean): Recording {
  const name = stream ? "calculator-follow-up-streamed" : "calculator-follow-up";
  const whole = loadFixture(fixturePath(name));
  return {
    file: `fixtures/data/${name}.json`,
    part: [`第 ${turn} 轮`, `turn ${turn}`],
    fixture: { ...whole, exchanges: whole.exchanges.filter((exchange) => userMessagesIn(exchange) === turn) },
  };
}

/**
 * Whether `log` holds the conversation the recorded turn goes on from: the messages its first request
 * sent, between the system prompt and the new question. A live run's log, a repaired crash's (no final
 * answer) or another question's holds other messages, and the replay would refuse the first request.
 */
export function goesOnFrom(recording: Recording, log: SessionLog): boolean {
  const sent = recording.fixture.exchanges[0]?.request.body.messages;
  return Array.isArray(sent) && isDeepStrictEqual(log.deriveMessages().map(toWire), sent.slice(1, -1));
}

/** Why `file` cannot go on offline, and what to do instead; said before anything is written to it. */
export function cannotGoOn(file: string, { file: recorded }: Recording): string[] {
  return [
    `无法离线继续 ${file} 里的对话：--continue 回放 ${recorded} 的第 2 轮，它接着该录制的第 1 轮（离线 --save 写下的那段对话），而这份日志里是另一段对话（在线运行的、修复过的崩溃，或者问了别的问题）。文件没有改动。`,
    `(Cannot go on offline from ${file}: --continue replays turn 2 of ${recorded}, which goes on from its turn 1 (what an offline --save writes), and this log holds another conversation (a live run, a repaired crash, or another question). The file is unchanged.)`,
    "  要接着这段对话，设置 DEEPSEEK_API_KEY 后在线问你自己的问题 / To go on with it, set DEEPSEEK_API_KEY and ask your own question live:",
    `    npm run demo -- --load ${file} --ask "…"`,
    "  要离线试一试，先离线保存一份新日志，再对它用 --continue / To try --continue offline, save a new log offline first:",
    "    npm run demo -- --offline --save new.jsonl",
  ];
}
