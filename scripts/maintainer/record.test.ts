// The record script end to end, against the loopback stand-in instead of DeepSeek: it must write a
// usable fixture and never the key. Its `main` runs in this process (a tsx process costs about 2 s of
// CPU), with the exit code it returns and what it prints; one good recording runs it as a program, as a
// maintainer does, for the exit code and what goes to stdout and stderr.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, vi } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { fixturePath, isStreamed, loadFixture, type StreamedResponse } from "../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../fixtures/standin.ts";
import { findScenario } from "../../fixtures/scenarios.ts";
import { replayScenario } from "../../chapters/05-session-log/testing/scenario-replay.ts";
import { runProgram, startsPrograms } from "../../chapters/05-session-log/testing/demo-testing.ts";
import { INVALID_KEY, main, recordedMeta } from "./record.ts";

const KEY = "sk-record-test-5f4e3d2c1b0a9988";

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the script's `main` in this process, with only `env` as its environment; console output is captured. */
async function record(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => void stdout.push(`${parts.join(" ")}\n`));
  const error = vi.spyOn(console, "error").mockImplementation((...parts: unknown[]) => void stderr.push(`${parts.join(" ")}\n`));
  try {
    const code = await main(args, env);
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** Runs the script in its own process (async, so the stand-in in this process can answer it). */
const recordAsProgram = (args: readonly string[], env: Record<string, string>) =>
  runProgram(["scripts/maintainer/record.ts", ...args], { env });

const repliesOf = (...names: string[]) =>
  names.flatMap((name) => loadFixture(fixturePath(name)).exchanges.map((exchange) => exchange.response));

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

/** The output directory `out` (the test's folder) holding the good fixture of `name`, as fixtures/data does. */
function dirWithFixture(out: string, name: string): { out: string; before: Buffer } {
  copyFileSync(fixturePath(name), path.join(out, `${name}.json`));
  return { out, before: readFileSync(path.join(out, `${name}.json`)) };
}

/** A chat completion that answers without a tool call, saying `content`. */
function completion(content: string): string {
  return JSON.stringify({
    id: "echo-0",
    object: "chat.completion",
    created: 1787616001,
    model: "deepseek-flash",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, reasoning_content: "" },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
  });
}

// A test that starts a tsx process takes seconds on a busy machine.
describe("npm run record", startsPrograms, () => {
  test("records a scenario as provenance recorded, without key or auth headers, and the file replays", async ({ dir: out }) => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator") });
    const run = await recordAsProgram(["calculator", "--out", out], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain("ok     calculator: wrote");
    const file = path.join(out, "calculator.json");
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(KEY);
    expect(text.toLowerCase()).not.toMatch(/authorization|cookie|x-stainless|user-agent/);
    const fixture = loadFixture(file);
    expect(fixture.meta).toMatchObject({
      provenance: "recorded",
      sdk_version: "6.49.0",
      base_url: standIn.baseURL,
      model: "deepseek-flash",
    });
    expect(fixture.exchanges).toHaveLength(2);
    // The stand-in would have answered 400 had reasoning_content not been sent back.
    expect(standIn.remaining()).toBe(0);
    const replayed = await replayScenario("calculator", { fixture });
    expect(replayed.mismatch).toBeUndefined();
    expect(replayed.session.events).toHaveLength(12);
  });

  // When each piece arrived is stamped by the recorder (fixtures/fixture.test.ts checks the stamps
  // against a clock it controls); here no wall-clock bound is asserted, so a busy machine cannot fail it.
  test("records a streamed scenario piece by piece, in order, with non-decreasing arrival times, and the file replays", async ({
    dir: out,
  }) => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator-streamed") });
    const run = await record(["calculator-streamed", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const fixture = loadFixture(path.join(out, "calculator-streamed.json"));
    expect(fixture.meta.provenance).toBe("recorded");
    const sent = repliesOf("calculator-streamed") as StreamedResponse[];
    for (const [i, { request, response }] of fixture.exchanges.entries()) {
      expect(request.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      if (!isStreamed(response)) return expect.unreachable("a streamed reply must be recorded as a stream");
      expect(response.end).toBe("closed");
      expect(response.stream.map((piece) => piece.text).join(""), "every byte, in order").toBe(sent[i]!.stream.map((p) => p.text).join(""));
      const times = response.stream.map((piece) => piece.at_ms);
      expect(
        times.every((ms, j) => Number.isInteger(ms) && ms >= (times[j - 1] ?? 0)),
        `arrival times never go back: ${times}`,
      ).toBe(true);
    }
    const replayed = await replayScenario("calculator-streamed", { fixture });
    expect(replayed.mismatch).toBeUndefined();
  });

  test("--all records every recordable scenario (401 with a deliberately invalid key) and skips the rest, saying why", async ({
    dir: out,
  }) => {
    standIn = await startStandIn({
      apiKey: KEY,
      replies: repliesOf(
        "calculator",
        "direct-answer",
        "two-tool-calls",
        "tool-error",
        "max-steps",
        "calculator-follow-up",
        "calculator-streamed",
        "calculator-follow-up-streamed",
        "two-tool-calls-streamed",
      ),
    });
    const run = await record(["--all", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(
      [
        "auth-error",
        "calculator-follow-up-streamed",
        "calculator-follow-up",
        "calculator-streamed",
        "calculator",
        "direct-answer",
        "max-steps",
        "tool-error",
        "two-tool-calls-streamed",
        "two-tool-calls",
      ].map((n) => `${n}.json`),
    );
    const impossible = ["unknown-tool", "invalid-json-arguments", "insufficient-balance", "rate-limit-then-success", "server-error"];
    for (const name of [...impossible, "stream-cut-mid-reasoning", "stream-server-error"]) {
      expect(run.stdout).toContain(`skip   ${name}: cannot be recorded live`);
    }
    const auth = readFileSync(path.join(out, "auth-error.json"), "utf8");
    expect(auth).toContain("Authentication Fails, Your api key: ****0000 is invalid");
    expect(auth).not.toContain("sk-workbook-deliberately-invalid");
  });

  test("without DEEPSEEK_API_KEY it exits 1 naming the variable, and writes nothing", async ({ dir: out }) => {
    const run = await record(["--all", "--out", out], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DEEPSEEK_API_KEY is not set");
    expect(run.stderr).toContain("npm run demo -- --offline");
    expect(readdirSync(out)).toEqual([]);
  });

  test("a live run that does not end the way the scenario needs is reported and not written", async ({ dir: out }) => {
    // The stand-in answers the max-steps scenario with a direct answer: the budget is never used up.
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("direct-answer") });
    const run = await record(["max-steps", "--out", out], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'FAILED max-steps: the live run ended with "completed", but the scenario needs "max_steps"; nothing written',
    );
    expect(readdirSync(out)).toEqual([]);
  });

  test.for<[string, string, string]>([
    ["two-tool-calls", "calculator", "no assistant/message made two tool calls in one reply"],
    ["calculator", "direct-answer", "expected exactly one tool/call, got 0"],
    ["tool-error", "calculator", "no tool/result has is_error: true"],
  ])(
    "a %s run shaped like %s is refused with the reason, and the fixture already there stays byte-identical",
    async ([name, shapedLike, reason], { dir }) => {
      standIn = await startStandIn({ apiKey: KEY, replies: repliesOf(shapedLike) });
      const { out, before } = dirWithFixture(dir, name);
      const run = await record([name, "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`FAILED ${name}: the live run does not have the shape of "${name}": ${reason}; nothing written`);
      expect(readdirSync(out), "no new file, no .tmp left behind").toEqual([`${name}.json`]);
      expect(readFileSync(path.join(out, `${name}.json`)).equals(before), "the old fixture must be untouched").toBe(true);
    },
  );

  test("an auth-error run that got 502s instead of a 401 is refused, and the fixture already there stays byte-identical", async ({
    dir,
  }) => {
    // retry-after-ms keeps the SDK's two retries quick.
    const badGateway = {
      status: 502,
      content_type: "text/html",
      headers: { "retry-after-ms": "1" },
      body: "<html><body>502 Bad Gateway</body></html>",
    };
    // A gateway that fails before any key is checked: the stand-in takes the key the auth-error run sends.
    standIn = await startStandIn({ apiKey: INVALID_KEY, replies: [badGateway, badGateway, badGateway] });
    const { out, before } = dirWithFixture(dir, "auth-error");
    const run = await record(["auth-error", "--out", out], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'FAILED auth-error: the live run does not have the shape of "auth-error": expected the last response to be 401, got 502, 502, 502; nothing written',
    );
    expect(readdirSync(out)).toEqual(["auth-error.json"]);
    expect(readFileSync(path.join(out, "auth-error.json")).equals(before)).toBe(true);
  });

  test("the key is trimmed: a key read with a trailing newline and echoed by the server is still found, and nothing is written", async ({
    dir,
  }) => {
    // fetch strips the newline from the Authorization header, so the server sees (and echoes) the bare key.
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("direct-answer"), echoAuthorization: true });
    const { out, before } = dirWithFixture(dir, "direct-answer");
    const run = await record(["direct-answer", "--out", out], {
      DEEPSEEK_API_KEY: `${KEY}\n`,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the text contains an API key");
    expect(run.stderr + run.stdout).not.toContain(KEY);
    expect(readdirSync(out)).toEqual(["direct-answer.json"]);
    expect(readFileSync(path.join(out, "direct-answer.json")).equals(before)).toBe(true);
  });

  test("a server that echoes only the key's first characters is caught too: no part of the key is written", async ({ dir }) => {
    const echo = { status: 200, content_type: "application/json", body: completion(`Your key starts ${KEY.slice(0, 12)}…`) };
    standIn = await startStandIn({ apiKey: KEY, replies: [echo] });
    const { out, before } = dirWithFixture(dir, "direct-answer");
    const run = await record(["direct-answer", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the text contains an API key (or part of one)");
    expect(readFileSync(path.join(out, "direct-answer.json")).equals(before)).toBe(true);
  });

  test("a DEEPSEEK_API_KEY of only whitespace counts as not set", async ({ dir: out }) => {
    const run = await record(["--all", "--out", out], { DEEPSEEK_API_KEY: " \r\n" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DEEPSEEK_API_KEY is not set. Recording calls the live DeepSeek API");
    expect(run.stdout, "it stops before looking at any scenario").toBe("");
    expect(readdirSync(out)).toEqual([]);
  });

  test("a good run replaces the fixture already there, leaving no .tmp file behind", async ({ dir }) => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("direct-answer") });
    const { out, before } = dirWithFixture(dir, "direct-answer");
    const run = await record(["direct-answer", "--out", out], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(readdirSync(out)).toEqual(["direct-answer.json"]);
    expect(readFileSync(path.join(out, "direct-answer.json")).equals(before), "now recorded, no longer synthetic").toBe(false);
    expect(loadFixture(path.join(out, "direct-answer.json")).meta.provenance).toBe("recorded");
  });

  test("--out through a file is said before any call is made (and paid for): exit 1", async ({ dir }) => {
    standIn = await startStandIn({ apiKey: KEY, replies: [] });
    const out = path.join(dir, "a-file.txt", "fixtures");
    writeFileSync(path.dirname(out), "");
    const run = await record(["calculator", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`路径中的某一段不是文件夹（ENOTDIR），无法写入 fixture ${out}/calculator.json`);
    expect(run.stderr).toContain("Nothing was recorded.");
    expect(standIn.requests, "no model call before the output is known to be writable").toHaveLength(0);
  });

  test("an unknown scenario name exits 2 listing the known ones", async () => {
    const run = await record(["no-such-scenario"], { DEEPSEEK_API_KEY: KEY });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown scenario "no-such-scenario"; known: calculator, direct-answer');
  });
});

describe("recordedMeta: what a recorded file says about where it came from", () => {
  test.each([
    ["user:password@", "https://learner:pa55word@proxy.example.test/v1", "https://proxy.example.test/v1"],
    ["a query string", "https://proxy.example.test/v1?api_key=sk-in-the-query", "https://proxy.example.test/v1"],
    ["both", "http://learner:pa55word@127.0.0.1:8080?api_key=sk-in-the-query", "http://127.0.0.1:8080"],
    ["neither", "https://api.deepseek.com", "https://api.deepseek.com"],
  ])("base_url is saved without %s", (_, baseURL, saved) => {
    const meta = recordedMeta(findScenario("calculator"), "deepseek-flash", baseURL, []);
    expect(meta).toMatchObject({
      base_url: saved,
      provenance: "recorded",
      model: "deepseek-flash",
      scenario: "calculator",
    });
    expect(JSON.stringify(meta)).not.toMatch(/learner|pa55word|sk-in-the-query/);
  });
});
