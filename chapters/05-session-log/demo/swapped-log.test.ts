// A log swapped under a live writer: another program renames a file over it (`cp w.jsonl t && mv t
// w.jsonl`, as an editor's safe save does), moves it or deletes it while a run writes it. The writer
// finds out before its next write and when it stops; the demo then saves the whole session to a new
// file beside it, goes on writing there, and says where and why, so nothing of the run is lost and
// "Saved" is never said of a file that holds something else. The swaps are real renames by a second
// process (sh), during a real streamed run held halfway by the stand-in, or after the last write.
import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { findLogProblems } from "../invariants.ts";
import { readLogFile } from "../disk/log-file.ts";
import { LogWriteError } from "../disk/log-file-types.ts";
import { attachLogFile } from "../disk/log-writer.ts";
import { Session } from "../session.ts";
import { startDemo, startInProcess, startsPrograms } from "../testing/demo-testing.ts";
import { openSession, savedNote } from "./disk.ts";

const KEY = "sk-swapped-log-key-4d5e6f7a8b9c";
/** A second process renames a copy over `file`, as the issue did: afterwards the name leads to a new file with the same bytes. */
function swap(file: string): void {
  execFileSync("sh", ["-c", 'cp "$1" "$1.t" && mv "$1.t" "$1"', "sh", file]);
}

/** What the demo says when `file` was swapped under its writer and the log went to `saved` (`goesOn`: while the run goes on). */
const replaced = (file: string, saved: string, count: number, goesOn: boolean) => [
  `\n${file} 在运行中被换掉了（别的程序把另一个文件改名到这里、把它移走或删掉了），它现在的内容不是这次运行写的，没有动它 / ` +
    `${file} was replaced during the run (another program renamed a file over it, moved it or deleted it); what it holds now is not this run's, and is left as it is`,
  `这个会话的全部 ${count} 条事件另存到 ${saved}${goesOn ? "，之后的事件接着写在那里" : ""} / ` +
    `The whole session, ${count} events, is saved to ${saved} instead${goesOn ? ", and the run goes on writing there" : ""}`,
];

describe("the writer checks that the name still leads to its file", () => {
  test("before each write: a file renamed over it, moved away or deleted stops the writer with FILE_REPLACED, and nothing more goes to the old file", ({
    dir,
  }) => {
    for (const [how, change] of [
      ["renamed over", swap],
      ["moved away", (file: string) => execFileSync("mv", [file, `${file}.moved`])],
      ["deleted", (file: string) => rmSync(file)],
    ] as const) {
      const file = path.join(dir, `${how.replace(" ", "-")}.jsonl`);
      const failures: unknown[] = [];
      const session = new Session({ onListenerError: (error) => failures.push(error) });
      const stop = attachLogFile(session, file);
      session.append("turn/start", { turn: 1 });
      change(file);
      session.append("user/message", { content: "after the swap" });
      expect(failures, how).toHaveLength(1);
      const error = failures[0] as LogWriteError;
      expect(error, how).toBeInstanceOf(LogWriteError);
      expect(error.code, how).toBe("FILE_REPLACED");
      expect(error.message).toContain("the name no longer leads to the file this writer holds open");
      expect(error).toMatchObject({ written: 1, firstLost: 1 });
      expect(() => stop(), `${how}: stopped already`).not.toThrow();
      if (how === "renamed over") expect(readLogFile(file).session.events, "the copy is left as it was").toHaveLength(1);
      if (how === "moved away") expect(readLogFile(`${file}.moved`).session.events, "the moved file got no line after").toHaveLength(1);
    }
  });

  test("when it stops: a file renamed over it after the last write makes stop() throw FILE_REPLACED, not return as if saved", ({ dir }) => {
    const file = path.join(dir, "w.jsonl");
    const session = new Session();
    const stop = attachLogFile(session, file);
    session.append("turn/start", { turn: 1 });
    swap(file);
    const error = thrownAs(LogWriteError, () => stop());
    expect(error).toMatchObject({ code: "FILE_REPLACED", written: 1 });
  });
});

describe("the demo saves the whole session beside it, and says so", () => {
  test("swapped after the last write: --save's note names the new file holding every event, never the swapped one", ({ dir }) => {
    const file = path.join(dir, "w.jsonl");
    const said: string[] = [];
    const plan = { load: undefined, save: file, prompt: undefined, recording: undefined };
    const opened = openSession(plan, { out: (line) => said.push(line) });
    if (opened === undefined) throw new Error(`openSession refused: ${said.join("\n")}`);
    opened.session.append("turn/start", { turn: 1 });
    opened.session.append("user/message", { content: "q" });
    swap(file);
    const held = readFileSync(file);
    const saved = path.join(dir, "w.saved-1.jsonl");
    expect(savedNote(opened)).toEqual([
      `已保存：${saved} 里有 2 条事件，读回来用： / Saved: ${saved} holds 2 events; read it back with:`,
      `  npm run demo -- --load ${saved}`,
    ]);
    expect(said.slice(-2)).toEqual(replaced(file, saved, 2, false));
    expect(readLogFile(saved).session.events).toEqual(opened.session.events);
    expect(readFileSync(file), "the swapped-in file is left as it is").toEqual(held);
    expect(opened.stop(), "stopping again changes nothing").toBe(saved);
  });

  describe("a real streamed run", () => {
    let standIn: StandIn | undefined;
    afterEach(async () => standIn?.close());

    test("`cp w.jsonl t && mv t w.jsonl` mid-stream: the run goes on, exit 0, every event in w.saved-1.jsonl, and w.jsonl left as the copy", async ({
      dir,
    }) => {
      const replies = loadFixture(fixturePath("calculator-streamed")).exchanges.map((exchange) => exchange.response);
      standIn = await startStandIn({ apiKey: KEY, replies, holdAfter: 6 });
      const file = path.join(dir, "w.jsonl");
      // The demo's main in this process: the swap is the other program's (swap's cp and mv), and the
      // writer's lock and file handles are the same in process as in a program of its own.
      const demo = startInProcess(["--save", file], { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL });
      await standIn.holding(); // the first reply is halfway: its turn is open in the file
      await demo.printed("Saving to");
      swap(file);
      const copy = readFileSync(file);
      standIn.release();
      expect(await demo.exited).toBe(0);
      const output = demo.stdout();
      const saved = path.join(dir, "w.saved-1.jsonl");
      const { session, torn } = readLogFile(saved);
      const count = session.events.length;
      expect(output).toContain(`Saved: ${saved} holds ${count} events`);
      expect(output, "never said of the swapped file").not.toContain(`Saved: ${file}`);
      const movedAt = /这个会话的全部 (\d+) 条事件另存到/.exec(output)?.[1];
      expect(output).toContain(replaced(file, saved, Number(movedAt), true).join("\n"));
      expect(Number(movedAt), "moved halfway: more events came after").toBeLessThan(count);
      expect(output).toContain(`  #${count - 1} turn/end`); // ② ends with the event the file ends with
      expect(torn).toBeUndefined();
      expect(findLogProblems(session.events), "the whole run: both steps, the turn closed").toEqual([]);
      expect(session.events.at(-1)?.data).toMatchObject({ turn: 1, reason: "completed" });
      expect(readFileSync(file), "w.jsonl is the copy the other program put there, untouched").toEqual(copy);
    });

    test("when no file beside it can be made either (the user nobody, its folder made read-only mid-run): the run stops, exit 1, saying why both times", {
      ...startsPrograms,
    }, async ({ dir }) => {
      const replies = loadFixture(fixturePath("calculator-streamed")).exchanges.map((exchange) => exchange.response);
      standIn = await startStandIn({ apiKey: KEY, replies, holdAfter: 6 });
      chmodSync(dir, 0o777);
      const file = path.join(dir, "w.jsonl");
      const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
      const demo = startDemo(["--save", file], { env, nobody: true });
      await standIn.holding();
      await demo.printed("Saving to");
      swap(file); // root may still rename in the folder below
      chmodSync(dir, 0o555);
      standIn.release();
      expect(await demo.exited).toEqual({ code: 1, signal: null });
      const output = demo.stdout();
      const beside = path.join(dir, "w.saved-1.jsonl");
      expect(output).toContain(
        `${replaced(file, beside, 0, false)[0]}\n没有权限（EACCES），无法另存到 ${beside} / Cannot save instead to ${beside}: permission denied (EACCES)`,
      );
      expect(output).toContain(
        `${file} 在运行中被换掉了，另存到旁边的新文件也没有成功（原因见上）。这次运行的事件都在上面的 ② 里。之后没有再调用模型。`,
      );
      expect(output).toContain("the name no longer leads to the file this writer holds open");
      expect(standIn.requests, "no model call after the log was lost").toHaveLength(1);
      expect(output).not.toContain("Saved:");
    });
  });
});
