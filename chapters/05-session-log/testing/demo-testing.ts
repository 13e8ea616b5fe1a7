// For the demo's tests: run it in process or as a program, and pick its output apart by section.
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { root } from "../../common/root.ts";
import { main } from "../demo.ts";
import type { DemoIO } from "../demo/plan.ts";

export const tsx = path.join(root, "node_modules/.bin/tsx");
/** The chapter's programs, as paths from the workbook's root (a test starts them from there). */
export const DEMO = "chapters/05-session-log/demo.ts";
export const VIEW = "chapters/05-session-log/demo/view.ts";

/**
 * The timeout of a test that starts programs. A start costs 1–3 s of CPU; at a load of 30 on two
 * cores (other work on the machine) a test starting two or three took over a minute. The timeout is
 * there to end a hang, never to judge speed (that is for the bench scripts).
 */
export const startsPrograms = { timeout: 300_000 };

/**
 * Runs `main` in this process; `lines` are what it printed, one entry per line, usage errors included
 * (`stdout` and `stderr` keep apart what went to `out` and to `err`). An offline stream is replayed
 * all at once (replayMs 0), so the tests do not wait on its pacing.
 */
export async function runInProcess(
  argv: string[],
  env: Record<string, string> = {},
  options: Pick<DemoIO, "color" | "write" | "signal"> = {},
) {
  const lines: string[] = [];
  const streams = { stdout: [] as string[], stderr: [] as string[] };
  const printTo = (stream: string[]) => (line: string) => {
    lines.push(...line.split("\n"));
    stream.push(line);
  };
  const code = await main(argv, { out: printTo(streams.stdout), err: printTo(streams.stderr), env, replayMs: 0, ...options });
  return { code, lines, text: lines.join("\n"), stdout: streams.stdout.join("\n"), stderr: streams.stderr.join("\n") };
}

/**
 * Starts `main` in this process, printing as the program does (demo/terminal.ts: lines through `out`,
 * streamed text through `write`, both into one stdout), for a run watched while it goes on whose process
 * is not the point: `printed(text)` resolves once stdout holds `text`, `exited` with the exit code.
 */
export function startInProcess(argv: readonly string[], env: Record<string, string> = {}) {
  let stdout = "";
  const waiting: { text: string; resolve: () => void }[] = [];
  const print = (text: string) => {
    stdout += text;
    for (const waiter of waiting.filter((w) => stdout.includes(w.text))) waiter.resolve();
  };
  const exited = main(argv, { out: (line) => print(`${line}\n`), write: print, env });
  const printed = (text: string) => new Promise<void>((resolve) => (stdout.includes(text) ? resolve() : waiting.push({ text, resolve })));
  return { exited, printed, stdout: () => stdout };
}

// ── programs in processes of their own ───────────────────────────────────────────────────────────

/** How a test starts a program, beyond its arguments. */
export interface ProgramOptions {
  /** Added to this process's environment, which is passed on without its DEEPSEEK_ settings. */
  readonly env?: Record<string, string>;
  /** As the user nobody (uid and gid 65534, no other groups), for faults that root never meets (permissions). */
  readonly nobody?: boolean;
  /** Under `prlimit --fsize=N`: writes past N bytes fail with EFBIG, as on a full disk (a pipe is not limited). */
  readonly fileSizeLimit?: number;
  /** A heap of this many MB (`node --max-old-space-size`), for the limits of what fits in memory. */
  readonly heapMb?: number;
}

/**
 * The command line of `node --import tsx NODE_ARGS` (a workbook script and its arguments, or `-e` code):
 * one node process with tsx's loader, without the tsx CLI's own parent (about 0.7 s of CPU a start).
 * Tests about the command a learner types run that command (`tsxDemo`, `npm run`).
 */
export function programCommand(nodeArgs: readonly string[], { nobody = false, fileSizeLimit, heapMb }: ProgramOptions = {}): string[] {
  const heap = heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`];
  const node = [process.execPath, ...heap, "--import", "tsx", ...nodeArgs];
  const limited = fileSizeLimit === undefined ? node : ["prlimit", `--fsize=${fileSizeLimit}`, ...node];
  return nobody ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...limited] : limited;
}

/** Starts `node --import tsx NODE_ARGS` from the workbook's root (programCommand, startProcess). */
export function startProgram(nodeArgs: readonly string[], options: ProgramOptions = {}) {
  const [command = "", ...args] = programCommand(nodeArgs, options);
  return startProcess(command, args, options.env);
}

/**
 * Starts `command args` from the workbook's root, colour off (NO_COLOR: the same output on a terminal,
 * in a pipe and under CI=true), its output read as it comes: `printed(text)` resolves once stdout holds
 * `text`; `exited` once the process has ended and its output is all read. `detached`: in a process group
 * of its own, as a terminal's foreground job is (a signal to the group reaches every process in it).
 */
export function startProcess(command: string, args: readonly string[], env: Record<string, string> = {}, { detached = false } = {}) {
  const options = { cwd: root, env: { ...passedOn(process.env), NO_COLOR: "1", ...env }, detached };
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const seen = { stdout: "", stderr: "", output: "" };
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    seen.stdout += chunk.toString("utf8");
    seen.output += chunk.toString("utf8");
    for (const waiter of waiting.filter((w) => seen.stdout.includes(w.text))) waiter.resolve();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    seen.stderr += chunk.toString("utf8");
    seen.output += chunk.toString("utf8");
  });
  const exited = once(child, "close").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const printed = (text: string) =>
    new Promise<void>((resolve) => (seen.stdout.includes(text) ? resolve() : waiting.push({ text, resolve })));
  return { child, exited, printed, stdout: () => seen.stdout, stderr: () => seen.stderr, output: () => seen.output };
}

/** A started process once it has ended: how, and all it printed (`output`: both streams as they came). */
export async function ended(started: ReturnType<typeof startProcess>) {
  const { code, signal } = await started.exited;
  return { code, signal, stdout: started.stdout(), stderr: started.stderr(), output: started.output() };
}

/** `node --import tsx NODE_ARGS` run to its end (startProgram). */
export const runProgram = (nodeArgs: readonly string[], options: ProgramOptions = {}) => ended(startProgram(nodeArgs, options));

/** The demo in a process of its own (startProgram). */
export const startDemo = (args: readonly string[], options: ProgramOptions = {}) => startProgram([DEMO, ...args], options);

/** readLogFile in a node process with a heap of `mb` MB: prints how many events it read, or the load error's sentence. */
export function readInHeap(file: string, mb: number) {
  const module = (name: string) => JSON.stringify(path.join(root, "chapters/05-session-log/disk", name));
  const script = [
    `import { readLogFile } from ${module("log-file.ts")};`,
    `import { explainLogFileError } from ${module("explain-log-file.ts")};`,
    `try { console.log(readLogFile(${JSON.stringify(file)}).session.events.length, "events"); }`,
    `catch (error) { console.log(explainLogFileError(error, ["无法读入", "Cannot load"])); }`,
  ];
  return runProgram(["--input-type=module", "-e", script.join("\n")], { heapMb: mb });
}

/** `tsx demo.ts ARGS` run to its end, as a learner types it: the tsx CLI and the node process it starts. */
export const tsxDemo = (args: readonly string[], env: Record<string, string> = {}) => ended(startProcess(tsx, [DEMO, ...args], env));

/**
 * This process's environment as a test's program gets it: without DeepSeek's settings (it never sees the
 * maintainer's key) or npm's `--mine` (npm_config_mine, set when the tests themselves run under npm with it).
 */
function passedOn(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("DEEPSEEK_") && name !== "npm_config_mine"));
}

/** The lines of the section whose heading starts with `marker`, up to the next heading. */
export function section(lines: readonly string[], marker: string): string[] {
  const start = lines.findIndex((line) => line.startsWith(marker));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line.startsWith("=== "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

export const eventLines = (lines: readonly string[]) => section(lines, "=== ②").filter((line) => /^ {2}#\d+ /.test(line));
/** ③'s entries: each message's first line (a longer text goes on below it, indented further). */
export const messageLines = (lines: readonly string[]) =>
  section(lines, "=== ③").filter((line) => /^ {2}\[(user|assistant|tool)/.test(line));
