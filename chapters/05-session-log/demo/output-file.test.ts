// A page never takes the place of the log it was made from, whatever name leads to it, and a page is
// written whole or not at all. Each case is made for real: symbolic links (a chain of them, a linked
// folder, one made while the run goes on) and a file system that refuses writes past a size
// (`prlimit --fsize`, as a full disk refuses them), under `demo --html` and `view --out` as processes.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { fixturePath, loadFixture } from "../../../fixtures/fixture.ts";
import { startStandIn, type StandIn } from "../../../fixtures/standin.ts";
import { root } from "../../common/root.ts";
import { readLogFile } from "../disk/log-file.ts";
import { runInProcess } from "../testing/demo-testing.ts";
import { writeTimelinePage } from "../timeline/page.ts";
import { refuseOutput } from "./output-file.ts";

const KEY = "sk-output-file-key-3c4d5e6f7a8b";
let dir = "";
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "output-file-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const REFUSED = "是这次运行读写的日志，页面不能覆盖它";

describe("--html never overwrites the log, by any name", () => {
  test("a chain of links to a log that does not exist yet, or a name through a linked folder: refused before the run (exit 2), nothing written", async () => {
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
    }, async () => {
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

/** `script` as its own process under `prlimit --fsize` (writes past the limit fail with EFBIG, as on a full disk). */
function runLimited(script: string, args: string[]): Promise<{ code: number; output: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DEEPSEEK_")));
  const command = [`--fsize=${FILE_SIZE_LIMIT}`, process.execPath, "--import", "tsx", script, ...args];
  return new Promise((resolve) => {
    execFile("prlimit", command, { cwd: root, env: { ...clean, NO_COLOR: "1" } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stripVTControlCharacters(stdout + stderr) }),
    );
  });
}

describe("a page is written whole or not at all", () => {
  test("a write the disk refuses leaves the earlier page as it was and no half page or temporary file: view --out and demo --html, exit 1", {
    timeout: 90_000,
  }, async () => {
    const viewPage = path.join(dir, "view.html");
    const demoPage = path.join(dir, "demo.html");
    for (const page of [viewPage, demoPage]) writeTimelinePage([], page, { source: "an earlier run" });
    const earlier = { view: readFileSync(viewPage), demo: readFileSync(demoPage) };
    expect(earlier.view.length, "a page larger than the limit, or the test proves nothing").toBeGreaterThan(FILE_SIZE_LIMIT);

    const [view, demo] = await Promise.all([
      runLimited("chapters/05-session-log/demo/view.ts", ["--scenario", "calculator", "--out", viewPage]),
      runLimited("chapters/05-session-log/demo.ts", ["--offline", "--html", demoPage]),
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
