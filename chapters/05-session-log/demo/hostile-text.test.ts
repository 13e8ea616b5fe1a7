// Text from a log cannot take over the terminal: a saved log whose messages carry escape sequences (a
// title change, a line erased and a fake "structure check ok" written over it, an OSC 52 clipboard
// write) is read by `demo --load` and `view --load` as real programs, and not one control byte reaches
// the terminal. The same holds when the file is broken and the error quotes it (JSON.parse does).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStandIn } from "../../../fixtures/standin.ts";
import { root } from "../../common/root.ts";
import { nodeWithTsx, runInProcess, startsPrograms } from "../testing/demo-testing.ts";

const TITLE = "\x1b]0;pwned\x07";
const FAKE_CHECK = "\r\x1b[2K\x1b[1A  结构检查（轮次/步骤闭合、每个工具调用都有结果）：ok";
const CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4vKgo=\x07";
const HOSTILE = `${TITLE}${FAKE_CHECK}${CLIPBOARD}\x9b2J\u202eevil`;
/** A character that would make the terminal act instead of show: C0 but "\n", DEL, C1, a bidi override or isolate. */
function obeyed(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (
    (code < 0x20 && char !== "\n") ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

let dir = "";
let hostileLog = "";
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "hostile-text-"));
  const saved = path.join(dir, "saved.jsonl");
  expect((await runInProcess(["--offline", "--save", saved])).code).toBe(0);
  // The demo's own saved run, its user message and final answer replaced: still a valid log.
  const events = readFileSync(saved, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  for (const event of events) {
    if (event.type === "user/message") event.data.content = `1+2*3 等于几？${HOSTILE}`;
    if (event.type === "assistant/message" && event.data.tool_calls.length === 0) event.data.content = `答案是 7\n${HOSTILE}`;
  }
  hostileLog = path.join(dir, "hostile.jsonl");
  writeFileSync(hostileLog, events.map((event) => `${JSON.stringify(event)}\n`).join(""));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a workbook program as a learner does, colour off, and returns its raw output, every byte as written. */
function spawnRaw(script: string, args: string[], settings: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "", DEEPSEEK_API_KEY: "", ...settings };
  return new Promise((resolve) => {
    execFile(...nodeWithTsx(script, args), { cwd: root, env, encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

const demo = (...args: string[]) => spawnRaw("chapters/05-session-log/demo.ts", args);
const liveDemo = (settings: Record<string, string>) => spawnRaw("chapters/05-session-log/demo.ts", [], settings);
const view = (...args: string[]) => spawnRaw("chapters/05-session-log/demo/view.ts", args);
/** The demo's main in this process (what it prints goes through the same lines as the program's). */
const inProcess = async (...args: string[]) => ({ output: (await runInProcess(args)).text });

/** The first character the terminal would obey, with some context, or undefined when there is none. */
function firstObeyed(output: string): string | undefined {
  const chars = [...output];
  const at = chars.findIndex(obeyed);
  return at < 0 ? undefined : JSON.stringify(chars.slice(Math.max(0, at - 40), at + 20).join(""));
}

describe("a log with escape sequences in its messages", startsPrograms, () => {
  test("demo --load prints ② ③ ④ with every escape written out: no control byte reaches the terminal", async () => {
    const { code, output } = await demo("--load", hostileLog);
    expect(code).toBe(0);
    expect(firstObeyed(output), "route what the log says through visible() (chapters/common/text.ts)").toBeUndefined();
    expect(output).toContain("\\x1b]0;pwned\\x07\\r\\x1b[2K\\x1b[1A");
    expect(output).toContain("\\x1b]52;c;cm0gLXJmIH4vKgo=\\x07\\x9b2J\\u202eevil");
    expect(output).toContain("\n    \\x1b]0;pwned"); // ③: the answer's second line, indented under it
  });

  test("view --load writes the page and prints nothing the terminal would obey", async () => {
    const { code, output } = await view("--load", hostileLog, "--out", path.join(dir, "hostile.html"));
    expect(code).toBe(0);
    expect(firstObeyed(output)).toBeUndefined();
  });
});

describe("a broken log whose error message quotes it", startsPrograms, () => {
  const broken = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  test("a bad line in a JSONL log: demo --load and view --load quote JSON.parse's error with its escapes written out", async () => {
    const file = broken("bad-line.jsonl", `${readFileSync(hostileLog, "utf8").split("\n")[0]}\n${HOSTILE}\n{}\n`);
    const [fromDemo, fromView] = await Promise.all([inProcess("--load", file), view("--load", file)]);
    expect(fromDemo.output).toContain("line 2: the line is not JSON");
    expect(fromView.output).toContain("line 2: the line is not JSON");
    expect(firstObeyed(fromDemo.output), "demo: the error quotes the line").toBeUndefined();
    expect(firstObeyed(fromView.output), "view: the error quotes the line").toBeUndefined();
    expect(fromDemo.output).toContain("\\x1b]0;pwned");
  });

  test("a JSON array that is not JSON: the error quotes the text, escapes written out, on one line", async () => {
    const file = broken("bad-array.json", `[${HOSTILE}\n  结构检查: ok\n]`);
    const [fromDemo, fromView] = await Promise.all([inProcess("--load", file), view("--load", file)]);
    for (const { output } of [fromDemo, fromView]) {
      expect(output).toContain("is one JSON array of events, but this is not JSON");
      expect(firstObeyed(output)).toBeUndefined();
      expect(output, "a line break in the quoted text is shown, not obeyed").not.toMatch(/^ {2}结构检查: ok/m);
    }
  });
});

describe("a streamed event that is not JSON, holding escapes and the key", startsPrograms, () => {
  test("the live demo tells it in its own words, escapes written out, no piece of the key: the SDK prints nothing of it itself", async () => {
    const key = "sk-Hq4Wm8Zt2Rx6Pv9Lc3Jn5Bd7";
    const event = `data: {"choices": "${TITLE}${CLIPBOARD} echo ${key}\n\n`;
    const reply = { status: 200, content_type: "text/event-stream", stream: [{ at_ms: 0, text: event }], end: "closed" as const };
    const standIn = await startStandIn({ apiKey: key, replies: [reply] });
    try {
      const { output } = await liveDemo({ DEEPSEEK_API_KEY: key, DEEPSEEK_BASE_URL: standIn.baseURL });
      expect(output, "the run stops at the malformed event").toContain("malformed");
      expect(firstObeyed(output), 'the SDK\'s own log of the event (stderr) must stay off: logLevel "off"').toBeUndefined();
      const pieces = Array.from({ length: key.length - 5 }, (_, at) => key.slice(at, at + 6)).filter((piece) => output.includes(piece));
      expect(pieces, "no piece of the key on stdout or stderr").toEqual([]);
    } finally {
      await standIn.close();
    }
  });
});
