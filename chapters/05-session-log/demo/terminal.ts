// The demo started from a terminal: Ctrl-C stops the run through runAgent's signal (a second Ctrl-C
// exits at once), a reader that stops reading ends it quietly, a file of yours that throws under --mine
// is told in a sentence, and `tsx demo.ts --mine` without the resolve hook starts again with it.
import pc from "picocolors";
import { visible } from "../../common/text.ts";
import { interruptedNote } from "./disk.ts";
import { tellYourThrow } from "./mine.ts";
import { needsTheHook, runAgainWithTheHook } from "./mine-again.ts";
import type { DemoIO } from "./plan.ts";
import { endQuietlyWhenPipeCloses } from "./setup.ts";

/** Runs `main` on this process's arguments and terminal, and sets the exit code it resolves with. */
export async function runFromTerminal(main: (argv: readonly string[], io: DemoIO) => Promise<number>): Promise<void> {
  const argv = process.argv.slice(2);
  if (needsTheHook(argv, process.env)) {
    process.exitCode = await runAgainWithTheHook(process.argv[1] ?? "", argv);
    return;
  }
  endQuietlyWhenPipeCloses();
  // Ctrl-C closes the turn as "interrupted". A second one does not wait: every event logged so far is
  // already in the --save file.
  const ctrlC = new AbortController();
  process.once("SIGINT", () => {
    ctrlC.abort(new Error("Ctrl-C"));
    process.once("SIGINT", () => {
      for (const line of ["", ...interruptedNote(argv)]) console.log(visible(line));
      process.exit(130);
    });
  });
  const write = (text: string) => void process.stdout.write(text);
  const io = { out: console.log, err: console.error, write, env: process.env, color: pc.isColorSupported, signal: ctrlC.signal };
  // --mine: your code throwing is told like any other failure, with the file and its step, not a stack trace.
  process.exitCode = await main(argv, io).catch((error: unknown) => tellYourThrow(error, io.out, io.env));
}
