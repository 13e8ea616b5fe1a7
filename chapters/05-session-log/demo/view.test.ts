import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replayScenario } from "../testing/scenario-replay.ts";
import { embeddedLog } from "../testing/page-testing.ts";
import { LARGE_PAGE_EVENTS } from "../timeline/page.ts";
import { UsageError } from "../../common/program.ts";
import { viewCommand } from "./view.ts";
import { runInProcess } from "../testing/demo-testing.ts";
import { accountLines, accountOfLog } from "../disk/log-account.ts";
import { readLogFile } from "../disk/log-file.ts";
import { TURN_FINISHED } from "../disk/log-file-types.ts";
import { Session } from "../session.ts";

const dir = mkdtempSync(path.join(tmpdir(), "view-"));

async function view(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await viewCommand(argv, { out: (line) => lines.push(line), env: {}, outDir: dir });
  return lines;
}

describe("npm run view -- --scenario NAME", () => {
  it("replays the scenario offline, writes one page and prints its path with the counts", async () => {
    const lines = await view("--scenario", "calculator");
    const file = path.join(dir, "timeline-calculator.html");
    expect(lines).toEqual([`时间线页面 / Timeline page: ${file} (12 events, 4 messages)`]);
    const log = embeddedLog(readFileSync(file, "utf8")) as { type: string }[];
    expect(log.map((event) => event.type)).toEqual((await replayScenario("calculator")).session.events.map((event) => event.type));
  });

  it("--out chooses the file; a turn that failed still gets its page, and the terminal says why", async () => {
    const out = path.join(dir, "nested", "auth.html");
    const lines = await view("--scenario", "auth-error", "--out", out);
    expect(lines[0]).toMatch(/^这一轮出错结束 \/ The turn ended with an error \(shown on the page\): turn 1 failed in step 1: .*401/);
    expect(lines[1]).toContain(`${out} (6 events, 1 messages)`);
  });

  it("an unknown scenario is a usage error that lists the known ones", async () => {
    await expect(view("--scenario", "nope")).rejects.toBeInstanceOf(UsageError);
    await expect(view("--scenario", "nope")).rejects.toThrow(/unknown scenario "nope"; known: calculator, direct-answer/);
  });
});

describe("a large log", () => {
  it("says in the terminal that its page is large, before anyone opens it", async () => {
    const events = Array.from({ length: LARGE_PAGE_EVENTS }, (_, id) => ({ id, type: "user/message", ts: 0, data: { content: "hi" } }));
    const file = path.join(dir, "large.json");
    writeFileSync(file, JSON.stringify(events));
    const lines = await view("--load", file, "--out", path.join(dir, "large.html"));
    expect(lines.at(-1)).toBe(
      "页面较大：20,000 条事件，浏览器要几秒才能打开 / A large page: 20,000 events; the browser takes a few seconds to open it",
    );
    expect(await view("--scenario", "calculator"), "a small page: no note").toHaveLength(1);
  });
});

describe("the command line", () => {
  it("an unknown flag is a usage error in both languages, followed by the usage; exit code 2", async () => {
    const lines: string[] = [];
    const code = await viewCommand(["--colour"], { out: (line) => lines.push(line), env: {}, outDir: dir });
    expect(code).toBe(2);
    expect(lines[0]).toBe("用法错误：没有 --colour 这个选项，可用的选项见下 / Usage error: Unknown option '--colour'");
    expect(lines).toContain("  npm run view -- --live [--scenario NAME] [--port N]");
  });

  it("npm run view --mine (the -- forgotten, npm keeps --mine as npm_config_mine) is a usage error saying what to type, and writes no page", async () => {
    const out = path.join(dir, "not-written.html");
    const run = viewCommand(["--out", out], { out: () => {}, env: { npm_config_mine: "true" }, outDir: dir });
    await expect(run).rejects.toThrow(
      "--mine 被 npm 拿走了（少了 --），这次会跑答案而不是你的文件，请这样运行 / npm took --mine for itself (the -- is missing), so the answers would run, not your files; type: npm run view -- --mine",
    );
    expect(existsSync(out)).toBe(false);
  });

  it("--help lists every flag, each in Chinese and English, and writes no page", async () => {
    const lines = await view("--help");
    expect(lines[0]).toBe("用法 / Usage:");
    for (const flag of ["--scenario <name>", "--load <file>", "--out <file>", "--live", "--port <n>"]) {
      expect(
        lines.some((line) => line.startsWith(`  ${flag} `) && line.includes(" / ")),
        flag,
      ).toBe(true);
    }
  });
});

describe("npm run view -- --load FILE", () => {
  it("a page never overwrites the log it loads: --load F --out F is a usage error (exit 2), the log as it was", async () => {
    const file = path.join(dir, "keep.jsonl");
    writeFileSync(file, `${JSON.stringify(new Session().append("turn/start", { turn: 1 }))}\n`);
    const before = readFileSync(file);
    const said: string[] = [];
    const code = await viewCommand(["--load", file, "--out", file], { out: (line) => said.push(line), env: {} });
    expect(code).toBe(2);
    expect(said.join("\n")).toContain("用法错误 / Usage error: --out");
    expect(readFileSync(file)).toEqual(before);
  });

  it("draws a saved log (a JSON array of events) exactly as it was saved", async () => {
    const { events } = (await replayScenario("tool-error")).session;
    const file = path.join(dir, "saved.json");
    writeFileSync(file, JSON.stringify(events));
    const lines = await view("--load", file);
    expect(lines.at(-1)).toContain("timeline-saved.html");
    expect(embeddedLog(readFileSync(path.join(dir, "timeline-saved.html"), "utf8"))).toEqual(JSON.parse(JSON.stringify(events)));
  });

  it("reads the JSONL that `demo --save` writes, and says so when a torn last line was dropped", async () => {
    const { events } = (await replayScenario("calculator")).session;
    const file = path.join(dir, "saved.jsonl");
    const lines = events.map((event) => `${JSON.stringify(event)}\n`).join("");
    writeFileSync(file, `${lines}{"id":12,"type":"turn/st`); // a crash in the middle of writing event #12
    const said = await view("--load", file);
    expect(said.at(-1)).toContain("timeline-saved.html (12 events, 4 messages)");
    expect(said).toContain(
      "  (Line 13 is torn (no newline at its end, 24 bytes): a write cut short by a crash; dropped, every event before it kept)",
    );
    const page = readFileSync(path.join(dir, "timeline-saved.html"), "utf8");
    expect(page).toContain("Line 13 is torn (no newline at its end, 24 bytes)");
    expect(embeddedLog(page)).toEqual(JSON.parse(JSON.stringify(events)));
  });

  it("a log that breaks a replay rule is refused, naming the file, the event and the rule", async () => {
    const file = path.join(dir, "gap.json");
    writeFileSync(
      file,
      JSON.stringify([
        { id: 0, type: "turn/start", ts: 1, data: { turn: 1 } },
        { id: 2, type: "turn/end", ts: 2, data: { turn: 1, reason: "completed" } },
      ]),
    );
    await expect(view("--load", file)).rejects.toThrow(
      `无法读入 ${file}：重放失败，第 1 个事件 id 为 2（应为 1，id 从 0 起连续编号，没有空缺） / ` +
        `Cannot load ${file}: replay failed at event #1: id is 2, expected 1`,
    );
  });

  it("a missing file, or one that is not JSON, is a usage error naming it", async () => {
    const notJson = path.join(dir, "torn.json");
    writeFileSync(notJson, '[{"id": 0,');
    await expect(view("--load", notJson)).rejects.toThrow(
      new RegExp(`^无法读入 ${notJson}：.*不是合法的 JSON 文本.* / Cannot load ${notJson}: .*JSON`),
    );
    await expect(view("--load", path.join(dir, "missing.json"))).rejects.toThrow(
      /Cannot load .*missing\.json: it does not exist .*\(ENOENT\)$/,
    );
  });
});

describe("one story per log: demo --load and view --load tell the same account of a file", () => {
  it("a saved run whose turn/end was torn: both say what was torn and what repair appends, the turn/end whole, and the page says it too", async () => {
    const { events } = (await replayScenario("calculator")).session;
    const file = path.join(dir, "cut.jsonl");
    const text = events.map((event) => `${JSON.stringify(event)}\n`).join("");
    writeFileSync(file, text.slice(0, -30)); // the last line, turn/end, cut 30 bytes short
    const account = accountLines(accountOfLog(file, readLogFile(file), { repairTo: "memory" }));
    const closing = `    #11 turn/end ${JSON.stringify({ turn: 1, reason: "completed", message: TURN_FINISHED })}`;
    expect(account).toContain(closing); // whole, where ② cuts data at 40 characters
    const tornBytes = Buffer.byteLength(`${JSON.stringify(events.at(-1))}\n`) - 30;
    expect(account).toContain(`  第 12 行被撕裂（没有换行结尾，${tornBytes} 字节）：崩溃打断的写入，已丢弃，之前的事件全部保留`);
    const viewSaid = await view("--load", file);
    const demoSaid = (await runInProcess(["--load", file])).lines;
    for (const line of account) {
      expect(viewSaid, "view --load").toContain(line);
      expect(demoSaid, "demo --load").toContain(line);
    }
    const page = readFileSync(path.join(dir, "timeline-cut.html"), "utf8");
    const escaped = closing.trim().replace(/["']/g, (c) => `&#${c.charCodeAt(0)};`);
    expect(page).toContain(`<code>${escaped}</code>`);
    expect(page).toContain("第 12 行被撕裂");
    expect(page).toContain("Repair: the last turn&#39;s final answer was logged and only its end was lost");
  });
});

describe("view --load of a crashed log shows what it says", () => {
  it("the repair the account says was appended in memory is on the page's log, and not in the file", async () => {
    const { events } = (await replayScenario("calculator")).session;
    const file = path.join(dir, "crashed.jsonl");
    writeFileSync(
      file,
      events
        .map((event) => `${JSON.stringify(event)}\n`)
        .join("")
        .slice(0, -30),
    ); // turn/end cut short
    const lines = await view("--load", file);
    expect(lines).toContain(
      "  最后一轮的最终回答已经记下，只丢了结尾，记为 completed；修复追加 1 条事件（只在内存里，文件不变，继续对话时才写入）：",
    );
    const log = embeddedLog(readFileSync(path.join(dir, "timeline-crashed.html"), "utf8")) as { id: number; type: string; data: unknown }[];
    expect(log.at(-1)).toEqual({ ...log.at(-1), id: 11, type: "turn/end", data: { turn: 1, reason: "completed", message: TURN_FINISHED } });
    expect(readLogFile(file).session.events, "the file is left as it was").toHaveLength(11);
  });
});

describe("arguments", () => {
  it("refuses options that do not go together, a bad --port and an unknown option, saying what is allowed", async () => {
    await expect(view("--load", "x.json", "--scenario", "calculator")).rejects.toThrow(
      /--load and --scenario do not go together; see npm run view -- --help/,
    );
    await expect(view("--live", "--port", "http")).rejects.toThrow(/--port must be a number from 0 to 65535/);
    await expect(view("--live", "--load", "x.json")).rejects.toThrow(/--live writes no file and loads none/);
    await expect(view("--scenario", "calculator", "--port", "80")).rejects.toThrow(/--port goes with --live/);
  });
});

describe("view's own usage errors open in Chinese, the English beside", () => {
  it.each([
    [["--scenario", "nope"], '没有叫 "nope" 的场景，可选的场景列在后面 / unknown scenario "nope"; known: calculator,'],
    [
      ["--load", "x.json", "--scenario", "calculator"],
      "--load 和 --scenario 只能用一个，用法见 npm run view -- --help / --load and --scenario",
    ],
    [["--live", "--port", "http"], '--port 要是 0 到 65535 之间的数（0 表示任一空闲端口），收到的是 "http" / --port must be'],
    [
      ["--live", "--load", "x.json"],
      "--live 不写文件也不读日志，不和 --load 或 --out 一起用，用法见 npm run view -- --help / --live writes no file",
    ],
    [["--scenario", "calculator", "--port", "80"], "--port 只和 --live 一起用，用法见 npm run view -- --help / --port goes with --live"],
  ])("%j", async (argv, said) => {
    const error = await view(...argv).then(
      () => expect.unreachable("no usage error"),
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message.startsWith(said), (error as UsageError).message).toBe(true);
  });
});
