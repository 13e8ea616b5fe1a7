// The record script end to end, as a maintainer runs it, against the loopback stand-in instead of
// DeepSeek: it must write a usable fixture and never the key.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { fixturePath, loadFixture } from "../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../fixtures/standin.ts";
import { findScenario } from "../fixtures/scenarios.ts";
import { replayScenario } from "../fixtures/test-helpers.ts";
import { recordedMeta } from "./record.ts";
import { root } from "./steps.ts";

const KEY = "sk-record-test-5f4e3d2c1b0a9988";
const tsx = path.join(root, "node_modules/.bin/tsx");

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the script in its own process (async, so the stand-in in this process can answer it). */
function record(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DEEPSEEK_")));
  return new Promise((resolve) => {
    execFile(tsx, ["scripts/record.ts", ...args], { cwd: root, env: { ...clean, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const repliesOf = (...names: string[]) =>
  names.flatMap((name) => loadFixture(fixturePath(name)).exchanges.map((exchange) => exchange.response));

let standIn: StandIn | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "record-test-"));
  dirs.push(dir);
  return dir;
}

// Each test starts a tsx process, which takes seconds on a busy machine.
describe("npm run record", { timeout: 60_000 }, () => {
  test("records a scenario as provenance recorded, without key or auth headers, and the file replays", async () => {
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("calculator") });
    const out = tempDir();
    const run = await record(["calculator", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain("ok     calculator: wrote");
    const file = path.join(out, "calculator.json");
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(KEY);
    expect(text.toLowerCase()).not.toMatch(/authorization|cookie|x-stainless|user-agent/);
    const fixture = loadFixture(file);
    expect(fixture.meta).toMatchObject({ provenance: "recorded", sdk_version: "6.49.0", base_url: standIn.baseURL, model: "deepseek-flash" });
    expect(fixture.exchanges).toHaveLength(2);
    // The stand-in would have answered 400 had reasoning_content not been sent back.
    expect(standIn.remaining()).toBe(0);
    const replayed = await replayScenario("calculator", { fixture });
    expect(replayed.mismatch).toBeUndefined();
    expect(replayed.session.events).toHaveLength(12);
  });

  test("--all records every recordable scenario (401 with a deliberately invalid key) and skips the rest, saying why", async () => {
    standIn = await startStandIn({
      apiKey: KEY,
      replies: repliesOf("calculator", "direct-answer", "two-tool-calls", "tool-error", "max-steps"),
    });
    const out = tempDir();
    const run = await record(["--all", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(
      ["auth-error", "calculator", "direct-answer", "max-steps", "tool-error", "two-tool-calls"].map((n) => `${n}.json`),
    );
    for (const name of ["unknown-tool", "invalid-json-arguments", "insufficient-balance", "rate-limit-then-success", "server-error"]) {
      expect(run.stdout).toContain(`skip   ${name}: cannot be recorded live`);
    }
    const auth = readFileSync(path.join(out, "auth-error.json"), "utf8");
    expect(auth).toContain("Authentication Fails, Your api key: ****0000 is invalid");
    expect(auth).not.toContain("sk-workbook-deliberately-invalid");
  });

  test("without DEEPSEEK_API_KEY it exits 1 naming the variable, and writes nothing", async () => {
    const out = tempDir();
    const run = await record(["--all", "--out", out], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DEEPSEEK_API_KEY is not set");
    expect(run.stderr).toContain("npm run demo -- --offline");
    expect(readdirSync(out)).toEqual([]);
  });

  test("a live run that does not end the way the scenario needs is reported and not written", async () => {
    // The stand-in answers the max-steps scenario with a direct answer: the budget is never used up.
    standIn = await startStandIn({ apiKey: KEY, replies: repliesOf("direct-answer") });
    const out = tempDir();
    const run = await record(["max-steps", "--out", out], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('FAILED max-steps: the live run ended with "completed", but the scenario needs "max_steps"; nothing written');
    expect(readdirSync(out)).toEqual([]);
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
    expect(meta).toMatchObject({ base_url: saved, provenance: "recorded", model: "deepseek-flash", scenario: "calculator" });
    expect(JSON.stringify(meta)).not.toMatch(/learner|pa55word|sk-in-the-query/);
  });
});
