// No part of the API key in any file the workbook writes. A server that echoes the Authorization
// header back into its replies (a careless proxy; here the loopback stand-in) once put the key
// verbatim into the --save log and the --html page. The client now takes it out of every reply before
// anything logs it (scrubReply), so neither file, nor the terminal, holds any piece of it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { runInProcess } from "../testing/demo-testing.ts";
import { sseText, wireChunkOf } from "../../common/deepseek-mock.ts";
import type { StreamChunk } from "../events.ts";

// Mixed case and no words, so that no piece of it turns up anywhere by chance.
const KEY = "sk-Zq9Xw2Vr7Lp4Kt8Hm3Jn6Bc1";
let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

/** Every piece of the key 6 characters long that `text` holds. */
function piecesOfKey(text: string): string[] {
  const pieces = Array.from({ length: KEY.length - 5 }, (_, at) => KEY.slice(at, at + 6));
  return pieces.filter((piece) => text.includes(piece));
}

describe("a server that echoes the key into its replies", () => {
  test("the --save log, the --html page and the terminal hold no piece of the key", async ({ dir }) => {
    const replies = loadFixture(fixturePath("calculator")).exchanges.map((exchange) => exchange.response);
    standIn = await startStandIn({ apiKey: KEY, replies, echoAuthorization: true });
    const log = path.join(dir, "run.jsonl");
    const page = path.join(dir, "run.html");
    const { code, text } = await runInProcess(["--no-stream", "--save", log, "--html", page], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(code).toBe(0);
    expect(standIn.remaining(), "both scripted replies were sent, echo and all").toBe(0);
    const saved = readFileSync(log, "utf8");
    expect(saved, "the echo reached the log, without the key").toContain("(you sent: Bearer [redacted])");
    expect(piecesOfKey(saved), "the --save log").toEqual([]);
    expect(piecesOfKey(readFileSync(page, "utf8")), "the --html page").toEqual([]);
    expect(piecesOfKey(text), "the terminal").toEqual([]);
  });
});

describe("a streamed reply that echoes the key, cut across chunks", () => {
  test("the key in usage, cut in the reasoning, and a ****-masked echo cut in the answer: no file and no terminal line holds any of it", async ({
    dir,
  }) => {
    const tail = KEY.slice(-4);
    const chunks: StreamChunk[] = [
      { kind: "reasoning", text: `你发来的是 ${KEY.slice(0, 9)}` },
      { kind: "reasoning", text: `${KEY.slice(9)}。` },
      // DeepSeek's own echo of a key is masked: ****6Bc1. Cut anywhere, it is still an echo of the key.
      { kind: "text", text: "key: **" },
      { kind: "text", text: `**${tail} 与 ****${tail.slice(0, 2)}` },
      { kind: "text", text: `${tail.slice(2)}。**答案**是 7。` },
      { kind: "usage", usage: { total_tokens: 9, note: `Bearer ${KEY}` } },
      { kind: "finish", reason: "stop" },
    ];
    const reply = { status: 200, content_type: "text/event-stream", stream: [{ at_ms: 0, text: sseText(chunks.map(wireChunkOf)) }] };
    standIn = await startStandIn({ apiKey: KEY, replies: [{ ...reply, end: "closed" }] });
    const log = path.join(dir, "streamed.jsonl");
    const page = path.join(dir, "streamed.html");
    const { code, text } = await runInProcess(["--save", log, "--html", page], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(code, text).toBe(0);
    const saved = readFileSync(log, "utf8");
    for (const [where, said] of [
      ["the --save log", saved],
      ["the --html page", readFileSync(page, "utf8")],
      ["the terminal", text],
    ] as const) {
      expect(piecesOfKey(said), where).toEqual([]);
      expect(said.includes(tail), `${where}: the masked echo's last four characters`).toBe(false);
    }
    expect(text, "the answer is whole, Markdown bold and all").toContain("key: **** 与 ****。**答案**是 7。");
  });
});

describe("a streamed reply that cuts the key across fields", () => {
  test("the key's start ending the reasoning and its rest starting the answer, and again ending a tool call's id and starting the usage chunk after it: no file and no terminal line holds any of it", async ({
    dir,
  }) => {
    const [head, tail] = [KEY.slice(0, 6), KEY.slice(6)];
    const calling: StreamChunk[] = [
      { kind: "reasoning", text: `先算一下。你的 key 是 ${head}` },
      { kind: "text", text: `${tail}，我来算。` },
      { kind: "tool_call", index: 0, id: "call_0", name: "calculator", arguments: '{"expression":"1+2*3"}' },
      // A later fragment of the same call: its id changes nothing in the message, but it is logged.
      { kind: "tool_call", index: 0, id: `call_0_${head}`, arguments: "" },
      // The usage chunk's first string is the name of its first field.
      { kind: "usage", usage: { [tail]: 1, prompt_tokens: 9 } },
      { kind: "finish", reason: "tool_calls" },
    ];
    const answering: StreamChunk[] = [
      { kind: "text", text: "答案是 7。" },
      { kind: "finish", reason: "stop" },
    ];
    const streamed = (chunks: StreamChunk[]) => ({
      status: 200,
      content_type: "text/event-stream",
      stream: [{ at_ms: 0, text: sseText(chunks.map(wireChunkOf)) }],
      end: "closed" as const,
    });
    standIn = await startStandIn({ apiKey: KEY, replies: [streamed(calling), streamed(answering)] });
    const log = path.join(dir, "across-fields.jsonl");
    const page = path.join(dir, "across-fields.html");
    const { code, text } = await runInProcess(["--save", log, "--html", page], {
      DEEPSEEK_API_KEY: KEY,
      DEEPSEEK_BASE_URL: standIn.baseURL,
    });
    expect(code, text).toBe(0);
    expect(standIn.remaining(), "both scripted replies were sent").toBe(0);
    for (const [where, said] of [
      ["the --save log", readFileSync(log, "utf8")],
      ["the --html page", readFileSync(page, "utf8")],
      ["the terminal", text],
    ] as const) {
      expect(piecesOfKey(said), `${where}: scrub the stream's strings joined in arrival order, whatever field each is in`).toEqual([]);
    }
    expect(text, "the answer after the tool call is whole").toContain("答案是 7。");
  });
});
