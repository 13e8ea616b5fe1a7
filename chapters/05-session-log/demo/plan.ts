// What `npm run demo` is asked to do, worked out from its flags before anything runs: the plan of the
// run, or the exit code once the flag table has answered (--help) or a usage error has been said. A
// mistake in the flags is said now, not after a run it would waste.
import { readFlags, type Command, type Flags } from "../../common/flags.ts";
import type { Env } from "../../common/settings.ts";
import { SYSTEM_ERROR_EXIT } from "../../common/system-errors.ts";
import { visible } from "../../common/text.ts";
import { DISK_FLAGS, planDisk, type DiskPlan } from "./disk.ts";
import { mineOpening } from "./mine.ts";
import { refuseOutput } from "./output-file.ts";
import { cannotWritePage } from "./page.ts";
import { goesLive, type Recording } from "./setup.ts";

/** The demo's command line: one line per flag, which parseArgs reads and `--help` lists. */
const COMMAND = {
  usage: ["npm run demo -- [flags]"],
  flags: {
    offline: { type: "boolean", help: "设置了 DEEPSEEK_API_KEY 也离线回放 / replay even with DEEPSEEK_API_KEY set" },
    "no-stream": {
      type: "boolean",
      help: "不用流式：每步一次完整调用，日志正是书里的 12 条事件 / no streaming: the book's exact 12 events",
    },
    html: { type: "string", value: "<file>", help: "把时间线页面写到 <file> / write the run's timeline page to <file>" },
    ...DISK_FLAGS,
    mine: { type: "boolean", help: "已完成的练习步骤用你的文件代替答案 / run your own files for the steps you have done" },
  },
} as const satisfies Command<Flags>;

export interface DemoIO {
  readonly out: (line: string) => void;
  /** Receives a usage error; `out` when not given. */
  readonly err?: (line: string) => void;
  readonly env: Env;
  readonly color?: boolean;
  /** Prints streamed text where the cursor is (a terminal); without it, ① gathers it into lines for `out`. */
  readonly write?: (text: string) => void;
  /** Ctrl-C: stops the run (runAgent's signal); the log it leaves is still printed, and the exit code is 130. */
  readonly signal?: AbortSignal;
  /** How long an offline replay of a stream may take (REPLAY_MS; tests pass 0: all at once). */
  readonly replayMs?: number;
}

export interface DemoPlan {
  readonly argv: readonly string[];
  readonly offline: boolean;
  /** Whether the model's replies are streamed (no --no-stream). */
  readonly stream: boolean;
  /** Where the log comes from and goes, and the question of the turn to run (demo/disk.ts). */
  readonly disk: DiskPlan;
  /** Offline: the recording to replay, the book's 5.7 run unless the disk plan says otherwise. */
  readonly recording: string | Recording;
  /** The timeline page to write (--html). */
  readonly page: string | undefined;
  /** The first lines of a --mine run: which files are yours (demo/mine.ts). */
  readonly mine: readonly string[];
}

/** The book's 5.7 run, streamed (offline: fixtures/data/calculator-streamed.json) or not (calculator.json). */
export const scenarioName = (stream: boolean) => (stream ? "calculator-streamed" : "calculator");

/** The plan; or, after saying why there is none, the exit code (0 after --help). */
export function planDemo(argv: readonly string[], io: DemoIO): DemoPlan | number {
  // What reaches the terminal from a log, a model or a file is shown, never obeyed (text.ts, visible).
  const err = (line: string) => (io.err ?? io.out)(visible(line, { lines: true }));
  const args = readFlags(argv, COMMAND, { out: io.out, err });
  if (typeof args === "number") return args;
  const offline = args.values.offline === true;
  const stream = args.values["no-stream"] !== true;
  const page = args.values.html;
  const disk = planDisk(args.values, !goesLive(offline, io.env), stream);
  // A page is derived from the log: it may replace an earlier page, never the log (output-file.ts).
  const refused = typeof disk === "string" ? disk : refuseOutput("--html", page, [disk.load, disk.save]);
  if (typeof disk === "string" || refused !== undefined) {
    err(`用法错误 / Usage error: ${refused}`);
    return 2;
  }
  // `npm run demo --mine` (no --) leaves --mine to npm: said, not run on the answers instead.
  const mine = mineOpening(args.values.mine === true, io.env, "npm run demo -- --mine", stream && disk.prompt !== undefined);
  if (typeof mine === "string") {
    (io.err ?? io.out)(`用法错误 / Usage error: ${mine}`);
    return 2;
  }
  const unwritable = page === undefined ? undefined : cannotWritePage(page);
  if (unwritable !== undefined) {
    err(unwritable);
    return SYSTEM_ERROR_EXIT;
  }
  return { argv, offline, stream, disk, recording: disk.recording ?? scenarioName(stream), page, mine };
}
