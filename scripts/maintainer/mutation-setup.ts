// Setup for the mutation run only (vitest.mutation.config.ts): skips the tests, inside files that also
// test in process, whose every check is on a program they start. A mutant lives in the test process; a
// child process loads the file as written (and, in Stryker's sandbox, as instrumented), so such a test
// cannot kill it. Whole files of such tests are left out by the config's `startsPrograms` instead.
import { beforeEach } from "vitest";

/** Each test's name, as written in its file (the file beside it, for whoever renames one). */
export const PROGRAM_TESTS: ReadonlySet<string> = new Set([
  // chapters/05-session-log/demo/demo.test.ts
  "`tsx demo.ts --offline` runs and exits 0",
  "a usage error goes to stderr, not stdout, with exit 2",
  "a reader closing the pipe early (`npm run demo | head`) ends it quietly with exit 0",
  // chapters/05-session-log/demo/disk.test.ts
  "offline, --ask with a question of your own is refused: only the follow-up question was recorded",
  "SIGKILL during a --save run leaves a file that loads; --load repairs the open step and turn",
  "live, --load --ask goes on with the repaired conversation: the model is sent the loaded messages and the new question",
  // chapters/05-session-log/demo/live.test.ts
  "Ctrl-C mid-stream stops the run through runAgent's signal: exit 130, the turn ends interrupted, the saved log passes findLogProblems",
  // chapters/05-session-log/disk/not-a-file.test.ts
  "a FIFO and a link to /dev/zero, each in a real process: one sentence, exit 1, no model call, no lock folder",
  // chapters/05-session-log/disk/lock-identity.test.ts
  "while a live run writes d/w.jsonl, --load --continue through a symbolic link, a hard link, or a hard link in another folder (another process, another TMPDIR, another user) is refused and the file is unchanged",
  // chapters/05-session-log/disk/large-log.test.ts
  "demo --load of a 20 MiB log lives in a 128 MB heap: no second copy of the log as one JSON text",
  // chapters/05-session-log/disk/loaded-log-memory.test.ts
  "readLogFile of a streamed run's log keeps under 180 bytes an event, weighed after a full collection (each chunk its own object: 208)",
  "in a 256 MB heap (a seventh: about 41 MiB), 34 MiB of lines whose chunks repeat load; the same with every chunk new is refused in the sentence",
  "while replay runs, the reader holds one slot a line beyond the session (its entries), not two: under 18 bytes a line of 120,000",
  "③ makes each message's entry as it prints it: at its first entry the heap holds under 0.5 MB more than at its heading (all of them: 1.6 MB)",
  "while ④ holds its new session, the heap holds under a quarter more than the loaded log (a parsed copy would double it)",
  // chapters/05-session-log/disk/packed-row-limits.test.ts
  "8 MB holding one row of 2,000,000 chunks, read in a 256 MB heap: refused by its line in a sentence, no V8 out-of-memory stack",
  // chapters/05-session-log/disk/packed-rows.test.ts
  "a process killed mid-reply (SIGKILL) loses only the chunks still waiting for their group: fewer than CHUNK_GROUP",
  // chapters/05-session-log/demo/swapped-log.test.ts
  "when no file beside it can be made either (the user nobody, its folder made read-only mid-run): the run stops, exit 1, saying why both times",
  // scripts/maintainer/system-errors.test.ts
  "as a real process: --save into a missing folder prints the sentence and exits 1, no stack trace",
  "as a real process: --live --port on a port in use prints the sentence and exits 1, no stack trace",
  "--out through a file is said before any call is made (and paid for): exit 1",
]);

// Destructured: vitest reads a hook's parameters to know which fixtures (temp-folder.ts's dir) it needs,
// and refuses a plain parameter in a file whose tests use one.
beforeEach(({ task, skip }) => {
  if (PROGRAM_TESTS.has(task.name)) skip();
});
