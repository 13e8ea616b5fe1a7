// For the demo's tests: run it in process or as a program, and pick its output apart by section.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { root } from "../../common/root.ts";
import { main } from "../demo.ts";
import type { DemoIO } from "../demo/plan.ts";

export const tsx = path.join(root, "node_modules/.bin/tsx");

/**
 * The timeout of a test that starts programs. A start costs 2–4 s of CPU; at a load of 30 on two
 * cores (other work on the machine) a test starting two or three took over a minute. The timeout is
 * there to end a hang, never to judge speed (that is for the bench scripts).
 */
export const startsPrograms = { timeout: 300_000 };

/**
 * How to run a workbook script as a program in its own node process, with tsx's loader: the program
 * `tsx script` runs, without the tsx CLI's own parent process (about 0.7 s of CPU a start). Tests that
 * are about the command a learner types (`tsx demo.ts`) run `tsx` itself.
 */
export function nodeWithTsx(script: string, args: readonly string[] = []): [string, string[]] {
  return [process.execPath, ["--import", "tsx", script, ...args]];
}

/**
 * Runs `main` in this process; `lines` are what it printed, one entry per line, usage errors included.
 * An offline stream is replayed all at once (replayMs 0), so the tests do not wait on its pacing.
 */
export async function runInProcess(
  argv: string[],
  env: Record<string, string> = {},
  options: Pick<DemoIO, "color" | "write" | "signal"> = {},
) {
  const lines: string[] = [];
  const print = (line: string) => lines.push(...line.split("\n"));
  const code = await main(argv, { out: print, err: print, env, replayMs: 0, ...options });
  return { code, lines, text: lines.join("\n") };
}

/**
 * Runs `tsx demo.ts` as a learner does. Colour is forced on so a run is the same on a terminal, in a
 * pipe and under CI=true (which also turns picocolors on); stdout is returned without escape codes.
 */
export function spawnDemo(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DEEPSEEK_")));
  const options = { cwd: root, env: { ...clean, FORCE_COLOR: "1", ...env } };
  return new Promise((resolve) => {
    execFile(tsx, ["chapters/05-session-log/demo.ts", ...args], options, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: stripVTControlCharacters(stdout), stderr }),
    );
  });
}

/** `command` run as the user nobody (uid and gid 65534, no other groups), for faults that root never meets (permissions). */
export function asNobody([command, args]: [string, string[]]): [string, string[]] {
  return ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", command, ...args]];
}

/**
 * The demo as its own node process (not through tsx's CLI, which would relay or swallow signals), its
 * output read as it comes: `printed(text)` resolves once the output holds `text`, escape codes aside.
 * `nobody`: run it as the user nobody (asNobody).
 */
export function startDemo(args: string[], env: Record<string, string>, { nobody = false } = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DEEPSEEK_")));
  const program = nodeWithTsx("chapters/05-session-log/demo.ts", args);
  const child = spawn(...(nobody ? asNobody(program) : program), {
    cwd: root,
    env: { ...clean, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    for (const waiter of waiting.filter((w) => stripVTControlCharacters(stdout).includes(w.text))) waiter.resolve();
  });
  const exited = once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null }));
  const printed = (text: string) =>
    new Promise<void>((resolve) => (stripVTControlCharacters(stdout).includes(text) ? resolve() : waiting.push({ text, resolve })));
  return { child, exited, printed, stdout: () => stripVTControlCharacters(stdout) };
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

/**
 * A server on 127.0.0.1 that hands each request's Authorization header to `answer`, or never answers
 * when there is no `answer`. For in-process live runs that need a reply the stand-in does not give.
 */
export async function localServer(answer?: (authorization: string, response: ServerResponse) => void) {
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
