// Command-line flags, read by node:util's parseArgs from one table that also writes `--help`: adding
// a flag is one line, and a flag that does not exist gets the usage, not a stack trace.
import { parseArgs } from "node:util";

/** One flag: parseArgs's type, what its value is (for `--help`), and one line of help (中文 / English). */
export interface Flag {
  readonly type: "boolean" | "string";
  /** How `--help` shows a string flag's value, e.g. `<file>`. */
  readonly value?: string;
  /** A one-letter form, as vitest's `-t` (parseArgs reads it too). */
  readonly short?: string;
  readonly help: string;
}

export type Flags = Readonly<Record<string, Flag>>;

/** What parseArgs gives for `F`: text for a string flag, true for a boolean one; absent when not given. */
export type FlagValues<F extends Flags> = {
  readonly [K in keyof F]?: F[K]["type"] extends "string" ? string : boolean;
};

export interface Command<F extends Flags> {
  /** How the command is typed, one line per form: `npm run demo -- [flags]`. */
  readonly usage: readonly string[];
  readonly flags: F;
  /** Whether it takes arguments besides flags (scenario names, say). */
  readonly positionals?: boolean;
}

type Printer = (line: string) => void;

const HELP: Flag = { type: "boolean", help: "列出这些选项 / list these flags" };

/**
 * parseArgs's errors (by `code`) in Chinese, naming what was typed (parseArgs quotes it first in its
 * English message, which goes beside); each says what to do.
 */
const USAGE_ERRORS: Readonly<Record<string, (typed: string, english: string) => string>> = {
  ERR_PARSE_ARGS_UNKNOWN_OPTION: (typed) => `没有 ${typed} 这个选项，可用的选项见下`,
  ERR_PARSE_ARGS_INVALID_OPTION_VALUE: (typed, english) => wrongValue(typed.split(" ")[0] ?? typed, english),
  ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL: (typed) => `这个命令不接受 ${typed} 这样的参数，只接受下面的选项`,
};

/** One parseArgs code covers three mistakes; its English message says which, and so does the Chinese. */
function wrongValue(flag: string, english: string): string {
  if (english.includes("argument missing")) return `选项 ${flag} 后面缺了它的值，见下`;
  if (english.includes("does not take an argument")) return `选项 ${flag} 不带值：去掉 = 和它后面的部分`;
  if (english.includes("ambiguous"))
    return `选项 ${flag} 后面紧跟着另一个选项，是不是忘了写 ${flag} 的值？值本身以 - 开头时写成 ${flag}=-值`;
  return `选项 ${flag} 的值不对，见下`;
}

/**
 * The values and arguments given, or the exit code to end with: 0 after `--help` (the usage on
 * `out`), 2 after a usage error (the error and the usage on `err`).
 */
export function readFlags<F extends Flags>(
  argv: readonly string[],
  command: Command<F>,
  print: { readonly out: Printer; readonly err: Printer },
): { values: FlagValues<F>; positionals: string[] } | number {
  try {
    const options: Flags = { ...command.flags, help: HELP };
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: command.positionals ?? false,
    });
    // `--save=` or `--save ""` gives an empty value: no file, no question, no port is named by it.
    const empty = Object.keys(values).find((name) => values[name] === "");
    if (empty !== undefined) return usageError(`--${empty} 的值是空的`, `--${empty} needs a value, not an empty one`, command, print.err);
    // parseArgs checked each value against its flag's type, which is what FlagValues<F> says.
    if (values.help !== true) return { values: values as FlagValues<F>, positionals };
    for (const line of usage(command)) print.out(line);
    return 0;
  } catch (error) {
    const said = usageErrorSaid(error);
    if (said === undefined) throw error;
    return usageError(said.zh, said.en, command, print.err);
  }
}

/** Says what is wrong with the command line, then how it is used; 2 is the exit code for that. */
function usageError<F extends Flags>(zh: string, en: string, command: Command<F>, err: Printer): number {
  err(`用法错误：${zh} / Usage error: ${en}`);
  for (const line of usage(command)) err(line);
  return 2;
}

/** parseArgs throws a TypeError with a `code` for a bad command line; anything else is a real error. */
function usageErrorSaid(error: unknown): { zh: string; en: string } | undefined {
  const code = error instanceof TypeError && "code" in error ? String(error.code) : "";
  const say = USAGE_ERRORS[code];
  if (say === undefined) return undefined;
  const { message } = error as TypeError;
  const typed = /'([^']*)'/u.exec(message)?.[1] ?? "";
  // A command that takes arguments gets Node's advice on arguments starting with '-' too: the learner
  // meant a flag, so one sentence, as every command without arguments says it.
  const en = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? `Unknown option '${typed}'` : message;
  return { zh: say(typed, message), en };
}

/** The usage lines and one line per flag, `--help` last. */
export function usage<F extends Flags>(command: Command<F>): string[] {
  const rows = Object.entries({ ...command.flags, help: HELP }).map(([name, flag]) => ({
    name: `${flag.short === undefined ? "" : `-${flag.short}, `}--${name}${flag.type === "string" ? ` ${flag.value ?? "<value>"}` : ""}`,
    help: flag.help,
  }));
  const width = Math.max(...rows.map((row) => row.name.length));
  return ["用法 / Usage:", ...command.usage.map((line) => `  ${line}`), ...rows.map((row) => `  ${row.name.padEnd(width)}  ${row.help}`)];
}
