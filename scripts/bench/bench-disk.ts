// The log on disk with streamed replies (05.7's writer, chunk events from 05.8): how many chunk events
// a second the session takes alone and with the JSONL writer attached (a model sends at most ~200), how
// many bytes a reply streamed as 2,000 chunks takes in the file (packed rows, log-rows.ts, against one
// line per event: goal ≤ 0.5×), and what loading a large log costs — peak memory (max RSS) and time of
// readLogFile, of `demo --load` and of `view --load` (which writes the timeline page), each in its own
// process, on a streamed run's log of LARGE_MIB MiB written one event per line and in packed rows (110
// by default; BENCH_LOG_MIB=477 for the 500 MB figure, BENCH_LOG_MIB=110,477 for both). Goal: ≤ 3× the
// file, and ≤ 1 GB for a 500 MB log; a log too large for the memory a loaded log may have is refused in
// its sentence (log-memory.ts), never left to V8's out-of-memory stack. Run by `npm run bench` (the logs
// are written under TMPDIR: RAM there is quicker).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { attachLogFile } from "../../chapters/05-session-log/disk/log-file.ts";
import { Session } from "../../chapters/05-session-log/session.ts";
import { writeStreamedRunLog } from "../../chapters/05-session-log/testing/large-log.ts";
import { loadNow, median } from "./bench-lib.ts";
import { root } from "../steps.ts";

const CHUNKS = 2_000; // one long reply
const REPLIES = 10;
// Token-sized deltas, as a model streams them: a character or a short word each.
const pieces = ["先", "算", "乘法", "，", " 2 × 3", " = 6", "，再", "加 1", "。", " The", " answer", " is", " 7", "."];

/** Streams REPLIES replies of CHUNKS chunk events each, every reply closed by its assistant/message. */
function streamReplies(session: Session): void {
  for (let reply = 1; reply <= REPLIES; reply++) {
    const first = session.events.length;
    for (let index = 0; index < CHUNKS; index++) {
      const text = pieces[index % pieces.length] as string;
      session.append("assistant/chunk", { turn: 1, step: reply, attempt: 1, chunk: { kind: "text", text } });
    }
    const chunkIds = Array.from({ length: CHUNKS }, (_, index) => first + index);
    session.append("assistant/message", { content: "…", reasoning_content: null, tool_calls: [], chunk_ids: chunkIds });
  }
}

export function diskRows(): [string, string][] {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-disk-"));
  try {
    const total = CHUNKS * REPLIES;
    streamReplies(new Session()); // warm the JIT up, so neither row is mostly compile time
    const alone = median(5, () => streamReplies(new Session()));
    let run = 0;
    const written = median(5, () => {
      const session = new Session();
      const stop = attachLogFile(session, path.join(dir, `run-${++run}.jsonl`));
      streamReplies(session);
      stop();
    });
    const perSecond = (ms: number) => `${Math.round((total / ms) * 1000).toLocaleString("en")} chunks/s`;
    // One reply on its own, the chunk events and the message: the file against one JSON line per event.
    const one = new Session();
    const file = path.join(dir, "one-reply.jsonl");
    const stop = attachLogFile(one, file);
    for (const text of Array.from({ length: CHUNKS }, (_, index) => pieces[index % pieces.length] as string)) {
      one.append("assistant/chunk", { turn: 1, step: 1, attempt: 1, chunk: { kind: "text", text } });
    }
    stop();
    const lines = one.events.reduce((bytes, event) => bytes + Buffer.byteLength(`${JSON.stringify(event)}\n`), 0);
    const payload = one.events.reduce((bytes, event) => bytes + Buffer.byteLength(JSON.stringify(event.data.chunk)), 0);
    const size = statSync(file).size;
    const ratio = size / lines;
    return [
      [`append ${total.toLocaleString("en")} chunk events (${REPLIES} replies), no writer`, perSecond(alone)],
      [`the same with the JSONL writer attached (written in groups of ≤ 64 as packed rows, fsync with each message)`, perSecond(written)],
      [
        `file bytes for one reply of ${CHUNKS.toLocaleString("en")} chunks (packed rows) ÷ one JSON line per chunk — goal ≤ 0.5×`,
        `${ratio.toFixed(2)}× ${ratio <= 0.5 ? "(goal met)" : "(goal NOT met)"} (${size.toLocaleString("en")} of ${lines.toLocaleString("en")} bytes; the chunks' own JSON is ${payload.toLocaleString("en")})`,
      ],
      ...largeLogRows(dir),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const LARGE_MIBS = (process.env.BENCH_LOG_MIB ?? "110").split(",").map(Number);

/** What the programs print when the log is refused for the memory it would take (explain-log-file.ts). */
const REFUSED = "内存放不下这份日志";

/** Peak memory (max RSS, via GNU time) and wall time of `node --import tsx ARGS` from the workbook's root. */
function measured(args: readonly string[], fileBytes: number): string {
  const run = spawnSync("/usr/bin/time", ["-f", "%M %e %x", process.execPath, "--import", "tsx", ...args], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 2 ** 30,
  });
  return run.error === undefined
    ? timeLine(run.stderr, fileBytes, `${run.stdout}${run.stderr}`.includes(REFUSED))
    : "n/a (needs GNU time at /usr/bin/time)";
}

/**
 * `%M %e %x` as "MB max RSS (N× the file), s", with the goal: ≤ 3× the file, and ≤ 1 GB for a 500 MB log;
 * or, for a log refused in its sentence, the peak until then (≤ 1 GB).
 */
function timeLine(stderr: string, fileBytes: number, refused: boolean): string {
  const [kb, seconds, status] = (stderr.trim().split("\n").at(-1) ?? "").split(" ");
  const bytes = Number(kb) * 1024;
  const peak = `${(bytes / 1e6).toFixed(0)} MB max RSS (${(bytes / fileBytes).toFixed(1)}× the file`;
  const time = `${Number(seconds).toFixed(1)} s`;
  if (status === "1" && refused)
    return `refused in its sentence (TOO_LARGE_IN_MEMORY, exit 1): ${peak}, ≤ 1 GB ${bytes <= 1e9 ? "met" : "NOT met"}), ${time}`;
  const met = status === "0" && bytes <= 3 * fileBytes && (fileBytes < 450e6 || bytes <= 1e9);
  return `${peak}, goal ${met ? "met" : "NOT met"}), ${time}${status === "0" ? "" : `, exit ${status}`}`;
}

/** readLogFile, demo --load and view --load of a streamed run's log of each of LARGE_MIBS MiB, plain and packed (log-rows.ts). */
function largeLogRows(dir: string): [string, string][] {
  const rows: [string, string][] = [];
  for (const mib of LARGE_MIBS) {
    for (const packed of [false, true]) {
      const file = path.join(dir, packed ? "large-packed.jsonl" : "large.jsonl");
      const page = path.join(dir, "large.html");
      const events = writeStreamedRunLog(file, mib, { packed });
      const { size } = statSync(file);
      const what = `a ${(size / 1e6).toFixed(0)} MB streamed-run log, ${packed ? "packed rows" : "one event per line"} (${events.toLocaleString("en")} events)`;
      const module = JSON.stringify(path.join(root, "chapters/05-session-log/disk/log-file.ts"));
      // A refusal is said as the programs say it (explain-log-file.ts), so that it is told from a crash.
      const read = [
        `import { readLogFile } from ${module};`,
        `import { explainLogFileError } from ${JSON.stringify(path.join(root, "chapters/05-session-log/disk/explain-log-file.ts"))};`,
        `try { readLogFile(${JSON.stringify(file)}); } catch (error) { console.log(explainLogFileError(error, ["", ""])); process.exitCode = 1; }`,
      ].join("\n");
      rows.push(
        [`readLogFile of ${what}, its own process (${loadNow()})`, measured(["--input-type=module", "-e", read], size)],
        [
          `demo --load of the same, output dropped (${loadNow()})`,
          measured(["chapters/05-session-log/demo.ts", "--offline", "--load", file], size),
        ],
        [
          `view --load of the same, its timeline page written (${loadNow()})`,
          measured(["chapters/05-session-log/demo/view.ts", "--load", file, "--out", page], size),
        ],
      );
      rmSync(file);
      rmSync(page, { force: true });
    }
  }
  return rows;
}
