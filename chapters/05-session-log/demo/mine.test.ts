// What the demo says about the learner's files under --mine, in process: the resolve hook itself is
// tested as a child process (scripts/learner/mine.test.ts); here the chapter only hears which files are whose,
// from WORKBOOK_YOUR_FILES in the environment it is given, as scripts/learner/mine.ts says it.
import { describe, expect, test } from "vitest";
import { DeepSeekError } from "../../common/deepseek-errors.ts";
import { replayDifference, YOUR_FILES, yourFilesBanner, yourFilesIn, yourFilesSentIt, type YourFile } from "./mine.ts";
import { AgentRunError } from "../loop-types.ts";
import { Session } from "../session.ts";

const file = (name: string, steps: string[], notDone?: YourFile["notDone"]): YourFile => ({
  file: name,
  steps,
  path: `/repo/exercises/05-session-log/${name}`,
  ...(notDone === undefined ? {} : { notDone }),
});
/** The environment of a run whose preload found `files`. */
const runOn = (...files: YourFile[]) => ({ [YOUR_FILES]: JSON.stringify(files) });

describe("--mine, as the demo tells it", () => {
  test("the banner: yours first, then each answer with its steps grouped by why, Chinese then English", () => {
    const env = runOn(
      file("json.ts", ["05.1"]),
      file(
        "session.ts",
        ["05.2", "05.4"],
        [
          { step: "05.2", why: "stub" },
          { step: "05.4", why: "stub" },
        ],
      ),
      file("projection.ts", ["05.3"], [{ step: "05.3", why: "waiting", waitsOn: ["05.2"] }]),
    );
    expect(yourFilesBanner(env, "npm run demo -- --mine")).toEqual([
      "你的：json.ts；答案：session.ts（练习步骤 05.2、05.4 还是桩）、projection.ts（练习步骤 05.3 的测试在等练习步骤 05.2）",
      "Yours: json.ts; the answers: session.ts (steps 05.2, 05.4: still the stub), projection.ts (step 05.3: waiting for step 05.2)",
    ]);
  });

  test("a run whose environment has no WORKBOOK_YOUR_FILES was started without the hook: --mine is a usage error", () => {
    expect(yourFilesBanner({}, "npm run demo -- --mine")).toBe(
      "--mine 要在加载章节代码之前换上你的文件，请这样运行 / --mine swaps your files in before the chapter loads; run it as: npm run demo -- --mine",
    );
    expect(yourFilesIn({})).toBeUndefined();
  });

  test("a WORKBOOK_YOUR_FILES that is not a list of files is refused, naming the field", () => {
    expect(() => yourFilesIn({ [YOUR_FILES]: JSON.stringify([{ file: "json.ts", steps: ["05.1"] }]) })).toThrow(/"path"/);
    expect(() =>
      yourFilesIn({ [YOUR_FILES]: JSON.stringify([{ ...file("json.ts", ["05.1"]), notDone: [{ step: "05.1", why: "lazy" }] }]) }),
    ).toThrow(/"notDone",\s*0,\s*"why"/);
  });

  test("live: DeepSeek refusing a request over reasoning_content names your projection and says what went missing", () => {
    const env = runOn(file("projection.ts", ["05.3"]), file("agent-loop.ts", ["05.5"], [{ step: "05.5", why: "stub" }]));
    const refused = new DeepSeekError(
      "400 The `reasoning_content` in the thinking mode must be passed back to the API.",
      "bad_request",
      400,
    );
    const failure = new AgentRunError("turn 1 failed in step 2", new Session(), { cause: refused });
    const lines = yourFilesSentIt(undefined, failure, env);
    expect(lines[0]).toBe(
      "发出的 assistant 消息和答案的不一样，差在 reasoning_content：DeepSeek 的思考模式要求每条带工具调用的回复把它原样发回（所以 5.4 节的投影保留它）",
    );
    expect(lines[2]).toMatch(/^这里跑的是你的代码：projection\.ts（练习步骤 05\.3）。/);
    expect(lines.join("\n")).not.toContain("agent-loop.ts"); // still the answer: not yours to suspect
  });

  test("a failure that is not about the request (no balance, say) does not point at your files", () => {
    const env = runOn(file("projection.ts", ["05.3"]));
    const failure = new AgentRunError("turn 1 failed", new Session(), { cause: new DeepSeekError("402", "insufficient_balance", 402) });
    expect(yourFilesSentIt(undefined, failure, env)).toEqual([]);
  });

  test("④'s difference: the message counts, or the first message that differs with both versions", () => {
    const user = { role: "user", content: "1+2*3 等于几？" } as const;
    expect(replayDifference([user], [])).toEqual([
      "消息条数不同：原始派生 1 条，重放派生 0 条",
      "(message counts differ: 1 derived, 0 replayed)",
    ]);
    expect(replayDifference([user], [{ ...user, content: "?" }])).toEqual([
      "第一个不同的是消息 #0 / the first message that differs is #0:",
      '  原始 / derived:  {"role":"user","content":"1+2*3 等于几？"}',
      '  重放 / replayed: {"role":"user","content":"?"}',
    ]);
    expect(replayDifference([user], [user])).toEqual([]);
  });
});
