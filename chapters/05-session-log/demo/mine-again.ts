// `npx tsx chapters/05-session-log/demo.ts --mine`, the command the course gives, starts without the resolve
// hook that swaps the learner's files in (`npm run demo` preloads it: package.json). Rather than run the
// answers, or refuse, the program starts itself again with the hook preloaded, on the same terminal, and
// ends as that run ends. The chapter still imports nothing of scripts/: the hook is a file it names.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Env } from "../../common/settings.ts";
import { root } from "../../common/root.ts";
import { YOUR_FILES } from "./mine.ts";

const PRELOAD = path.join(root, "scripts/learner/mine-preload.ts");
/** Set in the second run: if the hook is missing there too, that run says so instead of starting a third. */
const AGAIN = "WORKBOOK_MINE_AGAIN";

/** Whether this is a `--mine` run started without the hook, to be started again with it. */
export function needsTheHook(argv: readonly string[], env: Env): boolean {
  return argv.includes("--mine") && !argv.includes("--help") && env[YOUR_FILES] === undefined && env[AGAIN] === undefined;
}

/** Runs `script argv` again in a child process with the hook preloaded; resolves with its exit code. */
export function runAgainWithTheHook(script: string, argv: readonly string[]): Promise<number> {
  // execArgv keeps how this process was started (tsx's loader); the hook is loaded after it.
  const flags = [...process.execArgv, "--import", pathToFileURL(PRELOAD).href];
  const child = spawn(process.execPath, [...flags, script, ...argv], { stdio: "inherit", env: { ...process.env, [AGAIN]: "1" } });
  // Ctrl-C reaches the child from the terminal itself (one process group), once, as the demo expects:
  // here it is only ignored. A signal sent to this process alone is passed on.
  const ignore = () => {};
  const passOn = (signal: NodeJS.Signals) => void child.kill(signal);
  process.on("SIGINT", ignore);
  for (const signal of ["SIGTERM", "SIGHUP"] as const) process.on(signal, passOn);
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      process.off("SIGINT", ignore);
      for (const name of ["SIGTERM", "SIGHUP"] as const) process.off(name, passOn);
      // Ended by a signal: the code a shell reports for it (128 + its number).
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}
