// The chapter demo offline, on the streamed calculator fixture (and with --no-stream on the book's own):
// the book's four sections, its first lines, its flags, and `tsx demo.ts` run as a program. Live runs:
// live.test.ts; what it says when something fails: explain.test.ts.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { once } from "node:events";
import { describe, expect, test } from "vitest";
import { root } from "../../common/root.ts";
import { compactJson } from "./format.ts";
import { ROUND_TRIP } from "../../../fixtures/test-helpers.ts";
import { embeddedLog } from "../testing/page-testing.ts";
import { eventLines, messageLines, runInProcess, section, spawnDemo, startsPrograms, tsx } from "../testing/demo-testing.ts";

const KEY = "sk-demo-test-key-7a6b5c4d3e2f";
const SECTIONS = ["=== ① 订阅者视角 / Subscriber view ===", "=== ② ", "=== ③ ", "=== ④ "];

describe("offline (no key, or --offline)", () => {
  // The plain offline run (no flags, no key) is the same every time: the tests that only read what it
  // printed share one run. A test that passes options or flags makes its own.
  let plainRun: ReturnType<typeof runInProcess> | undefined;
  const plain = () => {
    plainRun ??= runInProcess([]);
    return plainRun;
  };

  test("the first line says, in Chinese and in English, that it replays the synthetic streamed calculator fixture", async () => {
    const { lines } = await plain();
    expect(lines[0]).toMatch(/^离线回放 fixtures\/data\/calculator-streamed\.json 中按 DeepSeek 文档手写的流量（synthetic，不是真实录制）/);
    expect(lines[0]).toMatch(/ \/ Offline replay of fixtures\/data\/calculator-streamed\.json \(synthetic: .*not recorded\)$/);
  });

  test("the second line says how to go live, in both languages, with the command last on the line", async () => {
    const { lines } = await plain();
    expect(lines[1]).toBe(
      "要调用真实模型，请设置 DEEPSEEK_API_KEY 再运行 / To call the live model, set DEEPSEEK_API_KEY and run: npm run demo",
    );
  });

  test("--no-stream prints the book's sections ①–④: 12 subscriber lines, 12 events, 4 messages, and a replay that is deep-equal", async () => {
    const { code, lines, text } = await runInProcess(["--no-stream"]);
    expect(lines[0]).toMatch(/^离线回放 fixtures\/data\/calculator\.json /);
    expect(code).toBe(0);
    for (const heading of SECTIONS) expect(text).toContain(heading);
    expect(section(lines, "=== ①").filter((line) => line.includes("看到新事件"))).toHaveLength(12);
    const events = eventLines(lines);
    expect(events).toHaveLength(12);
    expect(events[0]).toBe('  #0   turn/start         {"turn":1}');
    expect(events[11]).toBe('  #11  turn/end           {"turn":1,"reason":"completed"}');
    expect(messageLines(lines)).toEqual([
      "  [user] 1+2*3 等于几？",
      '  [assistant → 请求工具] calculator({"expression": "1+2*3"})',
      "  [tool → 结果] 7",
      "  [assistant] 根据计算，**1 + 2 × 3 = 7**。",
    ]);
    expect(text).toContain("重放派生 4 条消息，与原始派生逐字段一致：true");
    expect(text).toContain("rebuilt by Session.fromLog: 12 events");
    expect(text).not.toContain("assistant/chunk");
  });

  test("streamed, ② is the book's 12 event lines plus one line per run of chunks, saying how many and what they carried", async () => {
    const { code, lines, text } = await plain();
    expect(code).toBe(0);
    const log = section(lines, "=== ②").filter((line) => line.startsWith("  #"));
    expect(eventLines(lines).map((line) => line.split(/\s+/)[2])).toEqual(ROUND_TRIP);
    expect(log.filter((line) => line.includes("assistant/chunk"))).toEqual([
      "  #4–#54 assistant/chunk ×51 (reasoning 55 chars, tool_call calculator 23 chars, finish tool_calls, usage)",
      "  #60–#107 assistant/chunk ×48 (reasoning 31 chars, text 68 chars, finish stop, usage)",
    ]);
    // Each run sits where it was logged: after its step/start, before the message it built.
    expect(log[4]).toMatch(/^ {2}#4–#54 /);
    expect(log[5]).toMatch(/^ {2}#55 +assistant\/message /);
    expect(text).toContain("重放派生 4 条消息，与原始派生逐字段一致：true");
    expect(text).toContain("every tool call answered: ok; the turn ended: completed");
  });

  test("streamed, ① shows the reasoning and the answer as they arrive, each under its own label, then one line per run of chunks", async () => {
    const { lines } = await plain();
    const seen = section(lines, "=== ①");
    expect(seen.filter((line) => line.includes("看到新事件"))).toHaveLength(12);
    expect(seen.slice(4, 8)).toEqual([
      "    思考 / reasoning ┃ 用户问 1+2*3 等于几。按运算顺序应先乘后加，不过系统要求用 calculator 工具计算，那就调用它。",
      '    调用工具 / tool call calculator ┃ {"expression": "1+2*3"}',
      "  [订阅者 / subscriber] 看到 #4–#54 assistant/chunk ×51 (reasoning 55 chars, tool_call calculator 23 chars, finish tool_calls, usage)",
      "  [订阅者 / subscriber] 看到新事件 #55 assistant/message",
    ]);
    const answer = seen.findIndex((line) => line.startsWith("    回答 / answer ┃ "));
    expect(seen.slice(answer - 1, answer + 3)).toEqual([
      "    思考 / reasoning ┃ 计算器返回 7，和先乘后加的结果一致。回答时顺便说明运算顺序。",
      "    回答 / answer ┃ 根据计算，**1 + 2 × 3 = 7**。",
      "      ",
      "      这里需要注意运算顺序：先算乘法（2 × 3 = 6），再算加法（1 + 6 = 7）。",
    ]);
  });

  test("Ctrl-C as the first reasoning arrives (offline): exit 130, and the log it leaves is printed, closed as interrupted, and passes the check", async () => {
    const ctrlC = new AbortController();
    const write = (text: string) => (text.includes("reasoning ┃") ? undefined : ctrlC.abort(new Error("Ctrl-C")));
    const { code, lines, text } = await runInProcess([], {}, { write, signal: ctrlC.signal });
    expect(code).toBe(130);
    expect(eventLines(lines).at(-1)).toMatch(/turn\/end +\{"turn":1,"reason":"interrupted","message":"Ctrl-C"\}/);
    expect(text).toContain('"interrupted":true');
    expect(text, "the replay's unused exchange is no failure here").not.toContain("离线回放失败");
    expect(text).toContain("every tool call answered: ok; the turn ended: interrupted");
    expect(text).toContain("Interrupted (nothing was being saved");
  });

  test("in colour, the reasoning is dim and the answer is not, so the two never look alike", async () => {
    const { lines: seen } = await runInProcess([], {}, { color: true });
    const dim = "\u001b[2m";
    expect(seen.find((line) => line.includes("思考 / reasoning ┃"))).toContain(`┃ ${dim}`);
    expect(seen.find((line) => line.includes("回答 / answer ┃"))).not.toContain(dim);
  });

  test("a multi-line answer goes on below its first line, indented further, so ③ has one entry per message", async () => {
    const { lines } = await plain();
    const answer = section(lines, "=== ③").slice(3);
    expect(answer).toEqual([
      "  [assistant] 根据计算，**1 + 2 × 3 = 7**。",
      "",
      "    这里需要注意运算顺序：先算乘法（2 × 3 = 6），再算加法（1 + 6 = 7）。",
      "",
    ]);
  });

  test("the structure check reports how the turn ended", async () => {
    const { text } = await plain();
    expect(text).toContain("结构检查（轮次/步骤闭合、每个工具调用都有结果）：ok；轮次结束原因：completed");
    expect(text).toContain("(structure check — turns and steps closed, every tool call answered: ok; the turn ended: completed)");
  });

  test("--offline replays even when a key is set, says how to go live, and never prints the key", async () => {
    const { code, lines, text } = await runInProcess(["--offline"], { DEEPSEEK_API_KEY: KEY });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^离线回放/);
    expect(lines[1], "the key is already set: going live only needs --offline dropped").toBe(
      "要调用真实模型，去掉 --offline 再运行 / To call the live model, run without --offline: npm run demo",
    );
    expect(text).not.toContain(KEY);
  });

  test("a blank DEEPSEEK_API_KEY (only spaces or a line break) means offline", async () => {
    // If it were taken for a key, the run would go to this closed port and fail.
    const { code, lines } = await runInProcess([], {
      DEEPSEEK_API_KEY: " \r\n",
      DEEPSEEK_BASE_URL: "http://127.0.0.1:9",
    });
    expect(lines[0]).toMatch(/^离线回放 /);
    expect(code).toBe(0);
  });

  test("without a key, the other settings are not read: a wrong one does not stop the offline replay", async () => {
    const { code, lines } = await runInProcess([], {
      DEEPSEEK_BASE_URL: "ftp://nowhere.test",
      DEEPSEEK_TIMEOUT_MS: "soon",
    });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^离线回放 /);
  });

  test("long strings in the event log are shortened so each event stays on one line", () => {
    expect(compactJson({ content: "x".repeat(100) })).toBe(`{"content":"${"x".repeat(31)}…"}`);
    expect(compactJson({ text: "a\nb" })).toBe('{"text":"a⏎b"}');
    expect(compactJson({ list: Array.from({ length: 100 }, (_, i) => i) }, 20)).toHaveLength(20);
  });
});

describe("flags", () => {
  test("--help lists every flag in both languages and exits 0 without running anything", async () => {
    const { code, lines } = await runInProcess(["--help"]);
    expect(code).toBe(0);
    expect(lines[0]).toBe("用法 / Usage:");
    expect(lines.join("\n")).toMatch(/--offline +设置了 DEEPSEEK_API_KEY 也离线回放 \/ replay even with DEEPSEEK_API_KEY set/);
    expect(lines.join("\n")).toMatch(
      /--no-stream +不用流式：每步一次完整调用，日志正是书里的 12 条事件 \/ no streaming: the book's exact 12 events/,
    );
    expect(lines.join("\n")).not.toContain("=== ①");
  });

  test("--html FILE writes the run's timeline page, carrying the run's whole log", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "demo-html-")), "run.html");
    const { code, lines } = await runInProcess(["--html", file]);
    expect(code).toBe(0);
    expect(lines.at(-1), "the demo says where the page is").toBe(`  时间线页面 / timeline page: ${file}`);
    const log = embeddedLog(readFileSync(file, "utf8")) as { type: string }[];
    expect(log.filter((event) => event.type !== "assistant/chunk").map((event) => event.type)).toEqual(ROUND_TRIP);
    expect(log.filter((event) => event.type === "assistant/chunk")).toHaveLength(99);
  });

  test.each([
    [["--ofline"], "用法错误：没有 --ofline 这个选项，可用的选项见下 / Usage error: Unknown option '--ofline'"],
    [
      ["--offline=yes"],
      "用法错误：选项 --offline 不带值：去掉 = 和它后面的部分 / Usage error: Option '--offline' does not take an argument",
    ],
    [["calculator"], "用法错误：这个命令不接受 calculator 这样的参数，只接受下面的选项 / Usage error: Unexpected argument 'calculator'"],
  ])("%j is a usage error: exit 2, the error in both languages, then the usage", async (argv, said) => {
    const { code, lines } = await runInProcess(argv);
    expect(code).toBe(2);
    expect(lines[0]).toContain(said);
    expect(lines[1]).toBe("用法 / Usage:");
  });
});

describe("as a program", startsPrograms, () => {
  test("`tsx demo.ts --offline` runs and exits 0", async () => {
    const run = await spawnDemo(["--offline"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("deep-equal to the original: true");
    expect(eventLines(run.stdout.split("\n"))).toHaveLength(12);
  });

  test("a usage error goes to stderr, not stdout, with exit 2", async () => {
    const run = await spawnDemo(["--nope"], {});
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Unknown option '--nope'");
  });

  test("a reader closing the pipe early (`npm run demo | head`) ends it quietly with exit 0", async () => {
    const child = spawn(tsx, ["chapters/05-session-log/demo.ts", "--offline"], { cwd: root });
    child.stdout.destroy(); // closed before the first line is written, so every write meets EPIPE
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "close")) as [number | null];
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("② shortens what a streamed message cites", () => {
  test("chunk_ids are shown as ranges of ids, not hundreds of numbers", () => {
    expect(compactJson({ chunk_ids: [4, 5, 6, 7, 9, 12, 13] })).toBe('{"chunk_ids":"#4–#7,#9,#12–#13"}');
  });
});
