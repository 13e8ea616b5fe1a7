// The Chinese half of a writer's refusal or stop carries every detail its English half has: the counts it
// found in a file that is not its session's log, and how far the file got when a write failed.
import { describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { Session } from "../session.ts";
import { file, line, said } from "../testing/log-errors.ts";
import { explainLogFileError } from "./explain-log-file.ts";
import { LogWriteError } from "./log-file-types.ts";
import { attachLogFile } from "./log-file.ts";

describe("a writer refused a file that is not its session's log: the counts it found", () => {
  const logOf = (count: number) => {
    const session = new Session({ clock: () => 1 });
    for (let turn = 1; turn <= count; turn++) session.append("turn/start", { turn });
    return session;
  };
  const saved = (dir: string, name: string, count: number) =>
    file(
      dir,
      name,
      logOf(count)
        .events.map((event) => `${JSON.stringify(event)}\n`)
        .join(""),
    );
  const save = ["无法保存到", "Cannot save to"] as const;

  test("events in a file, and a session that has none yet", ({ dir }) => {
    const some = saved(dir, "some.jsonl", 1);
    const { zh, en } = said(() => attachLogFile(new Session(), some), save);
    expect(zh).toBe(`无法保存到 ${some}：这个会话还没有事件，文件里却已经有了，不往里追加`);
    expect(en).toBe(`Cannot save to ${some}: refusing to append: the file holds events, and this session has none yet`);
  });

  test("more events than the session's", ({ dir }) => {
    const more = saved(dir, "more.jsonl", 3);
    expect(said(() => attachLogFile(logOf(2), more), save).zh).toBe(`无法保存到 ${more}：文件里的事件比这个会话的 2 条还多，不往里追加`);
  });

  test("only the first of the session's events", ({ dir }) => {
    const fewer = saved(dir, "fewer.jsonl", 2);
    const { zh, en } = said(() => attachLogFile(logOf(3), fewer), save);
    expect(zh).toBe(`无法保存到 ${fewer}：文件里只有这个会话 3 条事件中的前 2 条，不往里追加`);
    expect(en).toContain("the file holds only 2 of this session's 3 events");
  });

  test("the first line that differs, and the event it should hold", ({ dir }) => {
    const other = file(dir, "other.jsonl", line(0, "turn/start", { turn: 1 }) + line(1, "user/message", { content: "另一个会话" }));
    const session = logOf(1);
    session.append("user/message", { content: "这个会话" });
    const { zh, en } = said(() => attachLogFile(session, other), save);
    expect(zh).toBe(`无法保存到 ${other}：文件第 2 行不是这个会话的事件 #1（另一份日志，或一行撕裂的行），不往里追加`);
    expect(en).toContain("line 2 of the file is not event #1 of this session");
  });
});

describe("a writer that stopped: why, and how far the file got", () => {
  test("WRITE_FAILED names the system's reason and code, the first event lost and the events kept", () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
    const error = new LogWriteError("WRITE_FAILED", "run.jsonl", 7, 7, "event #7 and every event after it were not written", {
      cause: full,
    });
    expect(explainLogFileError(error, ["无法保存到", "Cannot save to"])).toBe(
      "无法保存到 run.jsonl：写入失败：磁盘已满（ENOSPC），之后的事件都不再写入；文件里已有的事件每条都完整。" +
        "事件 #7 及之后的事件都没有写入，文件里是完整的前 7 条事件 / Cannot save to run.jsonl: event #7 and every event after it were not written",
    );
  });
});
