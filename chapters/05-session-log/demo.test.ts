// The chapter demo: offline on the calculator fixture (in process, and as `tsx demo.ts`), and live
// against the loopback stand-in, including a bad key.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, test } from "vitest";
import { DeepSeekConfigError, DeepSeekError } from "../common/deepseek.ts";
import { fixturePath, loadFixture } from "../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../fixtures/standin.ts";
import { root } from "../../scripts/steps.ts";
import { AgentRunError } from "./loop-types.ts";
import { compactJson, explain, explainSetting, main } from "./demo.ts";
import { Session } from "./session.ts";

const KEY = "sk-demo-test-key-7a6b5c4d3e2f";
const SECTIONS = ["=== ① 订阅者视角 / Subscriber view ===", "=== ② ", "=== ③ ", "=== ④ "];

async function runInProcess(argv: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = await main(argv, { out: (line) => lines.push(...line.split("\n")), env });
  return { code, lines, text: lines.join("\n") };
}

/** The lines of the section whose heading starts with `marker`, up to the next heading. */
function section(lines: readonly string[], marker: string): string[] {
  const start = lines.findIndex((line) => line.startsWith(marker));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line.startsWith("=== "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const eventLines = (lines: readonly string[]) => section(lines, "=== ②").filter((line) => /^ {2}#\d+ /.test(line));
const messageLines = (lines: readonly string[]) =>
  section(lines, "=== ③").filter((line) => /^ {2}\[(user|assistant|tool)/.test(line));

/**
 * A server on 127.0.0.1 that hands each request's Authorization header to `answer`, or never answers
 * when there is no `answer`. For in-process live runs that need a reply the stand-in does not give.
 */
async function localServer(answer?: (authorization: string, response: ServerResponse) => void) {
  const server = createServer((request, response) => {
    request.resume(); // read the body, or the client may wait on a full socket
    answer?.(request.headers.authorization ?? "", response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => {
    server.closeAllConnections(); // a request left hanging on purpose must not keep close() waiting
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { baseURL: `http://127.0.0.1:${port}`, close };
}

// Colour is forced on so a run is the same on a terminal, in a pipe and under CI=true (which also turns
// picocolors on); the assertions then read the text a learner sees, without the escape codes.
function spawnDemo(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DEEPSEEK_")));
  const tsx = path.join(root, "node_modules/.bin/tsx");
  const options = { cwd: root, env: { ...clean, FORCE_COLOR: "1", ...env } };
  return new Promise((resolve) => {
    execFile(tsx, ["chapters/05-session-log/demo.ts", ...args], options, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: stripVTControlCharacters(stdout), stderr }),
    );
  });
}

describe("offline (no key, or --offline)", () => {
  test("says first that it replays the synthetic calculator fixture, and how to go live", async () => {
    const { lines } = await runInProcess([]);
    expect(lines[0]).toMatch(/^离线回放 \/ Offline replay of fixtures\/data\/calculator\.json \(synthetic: .*not recorded\)/);
    expect(lines[0]).toContain("set DEEPSEEK_API_KEY");
  });

  test("prints sections ①–④: 12 subscriber lines, 12 events, 4 messages, and a replay that is deep-equal", async () => {
    const { code, lines, text } = await runInProcess([]);
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
    expect(text).toContain("重放派生 4 条消息，与原始派生逐字段一致: true");
    expect(text).toContain("rebuilt by Session.fromLog: 12 events");
    expect(text).toContain("turns and steps closed, every tool call answered: ok");
  });

  test("--offline replays even when a key is set, and the key is never printed", async () => {
    const { code, lines, text } = await runInProcess(["--offline"], { DEEPSEEK_API_KEY: KEY });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^离线回放/);
    expect(lines[0], "the key is already set: going live only needs --offline dropped").toContain(
      "To call the live model, run npm run demo without --offline.",
    );
    expect(text).not.toContain(KEY);
  });

  test("a blank DEEPSEEK_API_KEY (only spaces or a line break) means offline", async () => {
    // If it were taken for a key, the run would go to this closed port and fail.
    const { code, lines } = await runInProcess([], { DEEPSEEK_API_KEY: " \r\n", DEEPSEEK_BASE_URL: "http://127.0.0.1:9" });
    expect(lines[0]).toMatch(/^离线回放 \/ Offline replay/);
    expect(code).toBe(0);
  });

  test("a key shorter than 8 characters does not redact ordinary words in the output", async () => {
    const { code, text } = await runInProcess(["--offline"], { DEEPSEEK_API_KEY: "e" });
    expect(code).toBe(0);
    expect(text).toContain("Offline replay");
    expect(text).not.toContain("[redacted]");
  });

  test("long strings in the event log are shortened so each event stays on one line", () => {
    expect(compactJson({ content: "x".repeat(100) })).toBe(`{"content":"${"x".repeat(31)}…"}`);
    expect(compactJson({ text: "a\nb" })).toBe('{"text":"a⏎b"}');
    expect(compactJson({ list: Array.from({ length: 100 }, (_, i) => i) }, 20)).toHaveLength(20);
  });

  test("`tsx demo.ts --offline` runs as a program and exits 0", { timeout: 60_000 }, async () => {
    const run = await spawnDemo(["--offline"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("deep-equal to the original: true");
    expect(eventLines(run.stdout.split("\n"))).toHaveLength(12);
  });

  test("a reader closing the pipe early (`npm run demo | head`) ends it quietly with exit 0", { timeout: 60_000 }, async () => {
    const child = spawn(path.join(root, "node_modules/.bin/tsx"), ["chapters/05-session-log/demo.ts", "--offline"], { cwd: root });
    child.stdout.destroy(); // closed before the first line is written, so every write meets EPIPE
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "close")) as [number | null];
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("live, against the loopback stand-in", { timeout: 60_000 }, () => {
  let standIn: StandIn | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });
  const replies = () => loadFixture(fixturePath("calculator")).exchanges.map((exchange) => exchange.response);

  test("with a key it calls DEEPSEEK_BASE_URL and prints the same four sections", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: replies() });
    const run = await spawnDemo([], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe(`在线 / Live: calling deepseek-flash at ${standIn.baseURL} (npm run demo -- --offline replays a recording instead)`);
    expect(eventLines(lines)).toHaveLength(12);
    expect(messageLines(lines)).toHaveLength(4);
    expect(run.stdout).toContain("deep-equal to the original: true");
    expect(standIn.remaining()).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
  });

  test("a wrong key exits 1 after printing the log so far and one explanation, never the key", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: replies() });
    const wrongKey = "sk-demo-wrong-key-000000-k3y9";
    const run = await spawnDemo([], { DEEPSEEK_API_KEY: wrongKey, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n");
    expect(eventLines(lines).map((line) => line.split(/\s+/)[2])).toEqual([
      "turn/start", "user/message", "request/header", "step/start", "step/end", "turn/end",
    ]);
    expect(eventLines(lines)[5]).toContain('"reason":"error"');
    const explanation = section(lines, "=== 运行失败 / The run failed ===").join("\n");
    expect(explanation).toContain("DeepSeek refused the API key (401). Check that DEEPSEEK_API_KEY is complete");
    expect(explanation, "DeepSeek's masked echo of the key is scrubbed too").toContain("Your api key: **** is invalid");
    expect(run.stdout).not.toContain("k3y9");
    expect(run.stdout).not.toContain("=== ③");
    expect(`${run.stdout}${run.stderr}`).not.toContain(wrongKey);
  });
});

describe("live, with a key or DEEPSEEK_BASE_URL that needs care", { timeout: 20_000 }, () => {
  let server: Awaited<ReturnType<typeof localServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test("a base URL with user:password@ or a query string is refused before any request, and neither is printed", async () => {
    const baseURL = "http://learner:pa55word@127.0.0.1:9/v1?api_key=sk-in-the-query";
    const { code, lines, text } = await runInProcess([], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: baseURL });
    expect(code).toBe(1);
    expect(lines).toContain("=== 设置有误 / A setting is wrong ===");
    expect(text).toContain("A setting is wrong, so nothing was sent. DEEPSEEK_BASE_URL (http://127.0.0.1:9/v1) has user:password@ in it; fetch refuses");
    expect(text, "not a network failure: nothing was sent").not.toContain("could not reach DeepSeek");
    expect(text).not.toMatch(/learner|pa55word|sk-in-the-query/);
  });

  test.each([
    ["a trailing \\r", `${KEY}\r`],
    ["spaces around it", ` ${KEY} `],
  ])("a key read with %s is trimmed: a 401 echoing the key the server got never prints it", async (_, raw) => {
    server = await localServer((authorization, response) => {
      const message = `Authentication Fails, you sent ${authorization.replace(/^Bearer /, "")}`;
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message, type: "authentication_error", param: null, code: null } }));
    });
    const { code, text } = await runInProcess([], { DEEPSEEK_API_KEY: raw, DEEPSEEK_BASE_URL: server.baseURL });
    expect(code).toBe(1);
    expect(text).toContain("DeepSeek refused the API key (401)");
    expect(text).not.toContain(KEY);
  });

  test("a DeepSeek that never answers ends, after DEEPSEEK_TIMEOUT_MS and the SDK's retries, with the timeout explanation", async () => {
    server = await localServer();
    const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: server.baseURL, DEEPSEEK_TIMEOUT_MS: "50" };
    const { code, lines } = await runInProcess([], env);
    expect(code).toBe(1);
    const explanation = section(lines, "=== 运行失败 / The run failed ===").join("\n");
    expect(explanation).toContain("DeepSeek did not answer in time (thinking mode can take long)");
    expect(explanation).toContain(`(no answer from DeepSeek at ${server.baseURL} within 50 ms (3 tries))`);
  });

  test.each(["2m", "0x10", "1e3", "0"])(
    "a DEEPSEEK_TIMEOUT_MS of %j is refused with the setting named (digits only, above 0)",
    async (timeout) => {
      const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: "http://127.0.0.1:9", DEEPSEEK_TIMEOUT_MS: timeout };
      const { code, text } = await runInProcess([], env);
      expect(code).toBe(1);
      expect(text).toContain("DEEPSEEK_TIMEOUT_MS must be a whole number of milliseconds above 0, such as 120000");
    },
  );
});

describe("explain: one paragraph per kind of failure", () => {
  const failure = (error: DeepSeekError) => new AgentRunError("turn 1 failed", new Session(), { cause: error });

  test("402 tells the learner to top up", () => {
    const text = explain(failure(new DeepSeekError("DeepSeek API error 402 (unknown_error): Insufficient Balance", "insufficient_balance", 402))).join(" ");
    expect(text).toContain("The DeepSeek account has no balance left (402). Top it up");
    expect(text).toContain("npm run demo -- --offline");
  });

  test("a network failure points at the connection and DEEPSEEK_BASE_URL", () => {
    const text = explain(failure(new DeepSeekError("could not reach DeepSeek at https://api.deepseek.com: Connection error.", "network"))).join(" ");
    expect(text).toContain("Could not reach DeepSeek. Check the network, any proxy, and DEEPSEEK_BASE_URL");
  });

  test("429 after retries says to wait", () => {
    const text = explain(failure(new DeepSeekError("DeepSeek API error 429: Rate limit", "rate_limit", 429))).join(" ");
    expect(text).toContain("Too many requests (429)");
  });

  test("a timeout says thinking mode can be slow and names DEEPSEEK_TIMEOUT_MS", () => {
    const lines = explain(failure(new DeepSeekError("no answer from DeepSeek at https://api.deepseek.com within 120000 ms (3 tries)", "timeout")));
    expect(lines[0], "Chinese first").toContain("DEEPSEEK_TIMEOUT_MS（毫秒）");
    expect(lines[1]).toContain("DeepSeek did not answer in time (thinking mode can take long)");
    expect(lines[1]).toContain("(no answer from DeepSeek at https://api.deepseek.com within 120000 ms (3 tries))");
  });

  test("a malformed reply says the 200 was not in the documented shape and points at a proxy", () => {
    const said = "DeepSeek's reply is malformed: choices[0].message should be an object, but is null";
    const lines = explain(failure(new DeepSeekError(said, "bad_reply")));
    expect(lines[0], "Chinese first").toContain("回复的结构不对");
    expect(lines[1]).toContain("DeepSeek answered 200, but the reply is not in the documented shape");
    expect(lines[1]).toContain(said);
  });

  test("a refused setting: nothing was sent, the client's message, and the offline command", () => {
    const lines = explainSetting(new DeepSeekConfigError("DEEPSEEK_BASE_URL is not a valid URL; it should look like https://api.deepseek.com"));
    expect(lines[1]).toBe(
      "A setting is wrong, so nothing was sent. DEEPSEEK_BASE_URL is not a valid URL; it should look like https://api.deepseek.com. Fix it, or run offline: npm run demo -- --offline.",
    );
  });
});
