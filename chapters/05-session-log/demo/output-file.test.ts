// A page never takes the place of the log it was made from, whatever name leads to it, nor of anything
// that is not a regular file, and a page is written whole or not at all. Each case is made for real:
// symbolic links (a chain of them, a linked folder, one made while the run goes on), a FIFO, a unix
// socket and a device node (mknod, in the test's own folder: never the machine's /dev/null), a file
// system that refuses writes past a size (`prlimit --fsize`, as a full disk refuses them), a 250-byte
// name, and a read-only folder as the user nobody, under `demo --html` and `view --out`.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { test } from "../../common/temp-folder.ts";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { readLogFile } from "../disk/log-file.ts";
import { DEMO, runInProcess, runProgram, startsPrograms, VIEW } from "../testing/demo-testing.ts";
import { writeTimelinePage } from "../timeline/page.ts";
import { refuseOutput } from "./output-file.ts";

const KEY = "sk-output-file-key-3c4d5e6f7a8b";
const REFUSED = "是这次运行读写的日志，页面不能覆盖它";

describe("--html never overwrites the log, by any name", () => {
  test("a chain of links to a log that does not exist yet, or a name through a linked folder: refused before the run (exit 2), nothing written", async ({
    dir,
  }) => {
    const log = path.join(dir, "log.jsonl");
    symlinkSync("log.jsonl", path.join(dir, "ln1"));
    symlinkSync("ln1", path.join(dir, "ln2")); // ln2 → ln1 → log.jsonl, which --save is about to make
    symlinkSync(".", path.join(dir, "dl")); // dl/log.jsonl is log.jsonl
    for (const page of [path.join(dir, "ln2"), path.join(dir, "dl", "log.jsonl")]) {
      const { code, text } = await runInProcess(["--save", log, "--html", page]);
      expect(code, `${page}: ${text}`).toBe(2);
      expect(text).toContain(`--html ${page} ${REFUSED}`);
      expect(existsSync(log), `${page}: refused before the run, so no log was written either`).toBe(false);
    }
  });

  describe("asked again right before the page is written", () => {
    let standIn: StandIn | undefined;
    afterEach(async () => standIn?.close());

    test("a link to the log made while the run goes on is refused then, and the log is left as the run wrote it", {
      timeout: 60_000,
    }, async ({ dir }) => {
      const first = loadFixture(fixturePath("calculator")).exchanges[0]!.response;
      standIn = await startStandIn({ apiKey: KEY, replies: [first], hangWhenDone: true });
      const log = path.join(dir, "run.jsonl");
      const page = path.join(dir, "page.html"); // nothing there when the run starts: the flag is accepted
      const ctrlC = new AbortController();
      const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
      const run = runInProcess(["--no-stream", "--save", log, "--html", page], env, { signal: ctrlC.signal });
      await standIn.received(2); // the run waits on its second model call
      symlinkSync(log, page); // someone (or something) points the page's name at the log meanwhile
      ctrlC.abort(new Error("Ctrl-C"));
      const { code, text } = await run;
      expect(code).toBe(130);
      expect(text).toContain(`--html ${page} ${REFUSED}`);
      const { session, torn } = readLogFile(log);
      expect(torn).toBeUndefined();
      expect(session.events.at(-1)?.type, "the log as the run left it, closed by Ctrl-C").toBe("turn/end");
    });
  });
});

// ── a page is written whole or not at all ─────────────────────────────────────────────────────────

/** Where a page of the calculator run is cut short: a page is about 40 KB, the element carrying its log well past this. */
const FILE_SIZE_LIMIT = 3000;

describe("a page is written whole or not at all", () => {
  test("a write the disk refuses leaves the earlier page as it was and no half page or temporary file: view --out and demo --html, exit 1", {
    timeout: 90_000,
  }, async ({ dir }) => {
    const viewPage = path.join(dir, "view.html");
    const demoPage = path.join(dir, "demo.html");
    for (const page of [viewPage, demoPage]) writeTimelinePage([], page, { source: "an earlier run" });
    const earlier = { view: readFileSync(viewPage), demo: readFileSync(demoPage) };
    expect(earlier.view.length, "a page larger than the limit, or the test proves nothing").toBeGreaterThan(FILE_SIZE_LIMIT);

    const limited = { fileSizeLimit: FILE_SIZE_LIMIT };
    const [view, demo] = await Promise.all([
      runProgram([VIEW, "--scenario", "calculator", "--out", viewPage], limited),
      runProgram([DEMO, "--offline", "--html", demoPage], limited),
    ]);
    for (const [run, page] of [
      [view, viewPage],
      [demo, demoPage],
    ] as const) {
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain(`Cannot write the timeline page ${page}: the file is larger than allowed (EFBIG)`);
    }
    expect(readFileSync(viewPage), "view --out: the earlier page, untouched").toEqual(earlier.view);
    expect(readFileSync(demoPage), "demo --html: the earlier page, untouched").toEqual(earlier.demo);
    expect(readdirSync(dir).sort(), "no temporary file left beside them").toEqual(["demo.html", "view.html"]);
    // And the next run may still replace it: it is a whole page of ours, not a stranger's file.
    expect(refuseOutput("--out", viewPage, [])).toBeUndefined();
  });
});

// ── a page never replaces what is not a regular file ───────────────────────────────────────────────

const notReplaced = (target: string, [zh, en]: readonly [string, string]) =>
  `这是${zh}，不是普通文件，不会用文件替换它（NOT_A_FILE），无法写入时间线页面 ${target} / ` +
  `Cannot write the timeline page ${target}: it is ${en}, not a regular file, and a file never replaces it (NOT_A_FILE)`;

describe("a page never replaces a FIFO, a socket or a device", () => {
  test("--html onto each, or onto a link to one, and --out onto a device node: refused before the run, one sentence, exit 1, each left as it was", {
    ...startsPrograms,
  }, async ({ dir }) => {
    const fifo = path.join(dir, "pipe.html");
    execFileSync("mkfifo", [fifo]);
    const device = path.join(dir, "null.html");
    execFileSync("mknod", [device, "c", "1", "3"]); // /dev/null's numbers, in a folder of the test's own
    symlinkSync("null.html", path.join(dir, "null-link.html"));
    const socket = path.join(dir, "socket.html");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      for (const [target, kind, is] of [
        [fifo, ["管道（FIFO）", "a pipe (FIFO)"], "isFIFO"],
        [socket, ["套接字", "a socket"], "isSocket"],
        [device, ["设备", "a device"], "isCharacterDevice"],
        [path.join(dir, "null-link.html"), ["设备", "a device"], "isCharacterDevice"],
      ] as const) {
        const { code, text } = await runInProcess(["--offline", "--html", target]);
        expect(code, `${target}: ${text}`).toBe(1);
        expect(text).toContain(notReplaced(target, kind));
        expect(text, "refused before the run").not.toContain("① 订阅者视角");
        expect(statSync(target)[is](), `${target} is left as it was`).toBe(true);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const view = await runProgram([VIEW, "--scenario", "calculator", "--out", device]);
    expect(view.code, view.output).toBe(1);
    expect(view.output).toContain(notReplaced(device, ["设备", "a device"]));
    expect(statSync(device).isCharacterDevice(), "view --out left the device node as it was").toBe(true);
  });

  describe("asked again right before the rename", () => {
    let standIn: StandIn | undefined;
    afterEach(async () => standIn?.close());

    test("a FIFO made at the page's name while the run goes on is not replaced: the sentence, an exit code not 0", {
      timeout: 60_000,
    }, async ({ dir }) => {
      const first = loadFixture(fixturePath("calculator")).exchanges[0]!.response;
      standIn = await startStandIn({ apiKey: KEY, replies: [first], hangWhenDone: true });
      const page = path.join(dir, "page.html"); // nothing there when the run starts: the flag is accepted
      const ctrlC = new AbortController();
      const env = { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: standIn.baseURL };
      const run = runInProcess(["--no-stream", "--html", page], env, { signal: ctrlC.signal });
      await standIn.received(2); // the run waits on its second model call
      execFileSync("mkfifo", [page]);
      ctrlC.abort(new Error("Ctrl-C"));
      const { code, text } = await run;
      expect(code).toBe(130);
      expect(text).toContain(notReplaced(page, ["管道（FIFO）", "a pipe (FIFO)"]));
      expect(statSync(page).isFIFO(), "the FIFO is left as it was").toBe(true);
      expect(readdirSync(dir), "no temporary file left").toEqual(["page.html"]);
    });
  });
});

describe("a page keeps its permissions, and its name may be as long as the system allows", () => {
  test("demo --html over an earlier private page (0600) leaves it 0600", async ({ dir }) => {
    const page = path.join(dir, "private.html");
    writeTimelinePage([], page, { source: "an earlier run" });
    chmodSync(page, 0o600);
    const { code, text } = await runInProcess(["--offline", "--html", page]);
    expect(code, text).toBe(0);
    expect((statSync(page).mode & 0o7777).toString(8), "the conversation it holds stays private").toBe("600");
  });

  test("a page whose name is 250 bytes is written, with no temporary file left", async ({ dir }) => {
    const page = path.join(dir, `${"p".repeat(245)}.html`);
    const { code, text } = await runInProcess(["--offline", "--html", page]);
    expect(code, text).toBe(0);
    expect(text).toContain(`时间线页面 / timeline page: ${page}`);
    expect(readdirSync(dir)).toEqual([path.basename(page)]);
  });
});

describe("a folder the user cannot write is refused before the run", () => {
  test("as the user nobody, an earlier page it may write, in a read-only folder: demo --html and view --out say so before the run, naming the folder, and the page is as it was", {
    ...startsPrograms,
  }, async ({ dir }) => {
    chmodSync(dir, 0o755);
    const folder = path.join(dir, "read-only");
    mkdirSync(folder);
    const page = path.join(folder, "page.html");
    writeTimelinePage([], page, { source: "an earlier run" });
    chmodSync(page, 0o666);
    chmodSync(folder, 0o555);
    const earlier = readFileSync(page);
    const said = `没有权限（EACCES，${folder}），无法写入时间线页面 ${page} / Cannot write the timeline page ${page}: ${folder}: permission denied (EACCES)`;
    const [demo, view] = await Promise.all([
      runProgram([DEMO, "--offline", "--html", page], { nobody: true }),
      runProgram([VIEW, "--scenario", "calculator", "--out", page], { nobody: true }),
    ]);
    for (const [what, { code, output }] of [
      ["demo", demo],
      ["view", view],
    ] as const) {
      expect(code, `${what}: ${output}`).toBe(1);
      expect(output, what).toContain(said);
      expect(output, `${what}: refused before the run`).not.toMatch(/① 订阅者视角|时间线页面 \/ [Tt]imeline page:/);
    }
    expect(readFileSync(page), "the earlier page is as it was").toEqual(earlier);
  });
});
