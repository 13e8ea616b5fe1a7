// Every learner command reads its command line through the one flag table (chapters/common/flags.ts):
// each takes --help, and a flag it does not have gets the same bilingual usage error and exit code 2.
import { describe, expect, test } from "vitest";
import { compareCommand } from "./compare.ts";
import { hintCommand } from "./hint.ts";
import { FlagsAnswer, readArgs } from "../command.ts";
import { COMMAND as progress } from "./progress.ts";
import { resetCommand } from "./reset.ts";
import { COMMAND as testChapter } from "../maintainer/test-chapter.ts";
import { readWatchArgs } from "./watch.ts";

/** What the command answered instead of running: the exit code and the text printed. */
function answerOf(run: () => unknown): { exitCode: number; text: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof FlagsAnswer) return { exitCode: error.exitCode, text: error.lines.join("\n") };
    throw error;
  }
  return expect.unreachable("the command ran instead of answering from its flag table");
}

const stateFile = "/nonexistent/hints.json"; // --help and a wrong flag never reach the state file
const commands: [string, (argv: string[]) => unknown, string][] = [
  ["progress", (argv) => readArgs(argv, progress), "npm run progress"],
  ["hint", (argv) => hintCommand(argv, { stateFile }), "--reset"],
  ["compare", (argv) => compareCommand(argv), "--helpers"],
  ["reset", (argv) => resetCommand(argv), "npm run reset -- <练习步骤 / step>"],
  ["watch", (argv) => readWatchArgs(argv), "npm run watch -- <练习步骤 / step>"],
  ["test:chapter", (argv) => readArgs(argv, testChapter), "-t, --test-name <name>"],
];

describe("learner commands: --help and wrong flags, through one flag table", () => {
  test.each(commands)("npm run %s -- --help lists its usage and flags, in Chinese and English", (_name, run, shows) => {
    const { exitCode, text } = answerOf(() => run(["--help"]));
    expect(exitCode).toBe(0);
    expect(text).toContain("用法 / Usage:");
    expect(text).toContain(shows);
    expect(text).toMatch(/--help +列出这些选项 \/ list these flags/);
  });

  test.each(commands)("npm run %s -- --nope is a usage error in both languages, with the usage, exit code 2", (_name, run) => {
    const { exitCode, text } = answerOf(() => run(["--nope"]));
    expect(exitCode).toBe(2);
    const [said, ...rest] = text.split("\n");
    expect(said, "one sentence in each language, not Node's advice on arguments starting with '-'").toBe(
      "用法错误：没有 --nope 这个选项，可用的选项见下 / Usage error: Unknown option '--nope'",
    );
    expect(rest[0]).toBe("用法 / Usage:");
  });
});
