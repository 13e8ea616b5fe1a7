// The demo's --save side (05.7): the writer attached to the session, and what the run does when the
// file it saves to is swapped under it. Another program may rename a file over the log while the run
// writes it (`cp w.jsonl t && mv t w.jsonl`, an editor's safe save), move it, or delete it: the writer
// finds out before its next write, or when it stops (log-writer.ts, FILE_REPLACED). The session is
// still whole in memory, so nothing of the run need be lost: the whole log goes to a new file beside
// the old name (`w.saved-1.jsonl`), the run goes on writing there, and the demo says where and why.
// What now has the old name is left as it is: it is not this run's.
import { closeSync, openSync } from "node:fs";
import path from "node:path";
import { nameBeside } from "../../common/atomic-write.ts";
import { explainSystemError, isSystemError } from "../../common/system-errors.ts";
import { visible } from "../../common/text.ts";
import { explainLogFileError } from "../disk/explain-log-file.ts";
import { LogFileError, LogWriteError } from "../disk/log-file-types.ts";
import { attachLogFile } from "../disk/log-file.ts";
import type { Session } from "../session.ts";

export interface Saving {
  /** After the writer stopped because its file was replaced: goes on in a new file beside it. False when it cannot (said why). */
  readonly moveOn: (error: LogWriteError) => boolean;
  /** Stops writing and returns the file that holds the log (the new one, if it moved). Harmless twice. */
  readonly stop: () => string;
}

/**
 * Attaches a writer for `file` (05.7) and says so; undefined, after saying why, when the file cannot be
 * written. `goesOn`: the run goes on with the log it loaded from `file`, in that file.
 */
export function startSaving(session: Session, file: string, goesOn: boolean, out: (line: string) => void): Saving | undefined {
  const first = attach(session, file, goesOn, out);
  if (first === undefined) return undefined;
  out(`每条事件一记下就写入 ${file} / Saving to ${file}: each event is written (and fsync'd) the moment it is logged`);
  let saved = file;
  let stopWriter = first;
  const moveOn = (error: LogWriteError, ending = false): boolean => {
    if (error.code !== "FILE_REPLACED") return false;
    // On a line of its own: the run may be in the middle of a streamed reply.
    out(
      `\n${saved} 在运行中被换掉了（别的程序把另一个文件改名到这里、把它移走或删掉了），它现在的内容不是这次运行写的，没有动它 / ` +
        `${saved} was replaced during the run (another program renamed a file over it, moved it or deleted it); what it holds now is not this run's, and is left as it is`,
    );
    const moved = saveBeside(session, saved, out);
    if (moved === undefined) return false;
    const count = session.events.length;
    const [zh, en] = ending ? ["", ""] : ["，之后的事件接着写在那里", ", and the run goes on writing there"];
    out(
      `这个会话的全部 ${count} 条事件另存到 ${moved.file}${zh} / The whole session, ${count} events, is saved to ${moved.file} instead${en}`,
    );
    saved = moved.file;
    stopWriter = moved.stop;
    return true;
  };
  const stop = () => {
    try {
      stopWriter();
    } catch (error) {
      // Replaced after the last write: "Saved" would be said of a file that holds something else.
      if (!(error instanceof LogWriteError && moveOn(error, true))) throw error;
      stopWriter();
    }
    return saved;
  };
  return { moveOn, stop };
}

/** Writes the whole session to a new file beside `file` (`NAME.saved-N.jsonl`) and keeps writing there; undefined after saying why not. */
function saveBeside(session: Session, file: string, out: (line: string) => void) {
  const stem = path.basename(file, path.extname(file));
  for (let n = 1; ; n++) {
    const beside = nameBeside(file, "", stem, `.saved-${n}.jsonl`); // as long as the old name may be
    try {
      closeSync(openSync(beside, "wx")); // a name no one else has: "x" refuses one that exists
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      if (!isSystemError(error)) throw error;
      out(explainSystemError(error, ["无法另存到", "Cannot save instead to"], beside));
      return undefined;
    }
    const stop = attach(session, beside, false, out);
    return stop === undefined ? undefined : { file: beside, stop };
  }
}

/** The writer for `file`; undefined after saying why it cannot be. */
function attach(session: Session, file: string, goesOn: boolean, out: (line: string) => void): (() => void) | undefined {
  try {
    return attachLogFile(session, file);
  } catch (error) {
    if (isSystemError(error)) {
      out(explainSystemError(error, ["无法保存到", "Cannot save to"], file));
      return undefined;
    }
    if (!(error instanceof LogFileError)) throw error;
    out(visible(explainLogFileError(error, ["无法保存到", "Cannot save to"])));
    if (error.code === "LOCKED") {
      out("  一份日志同一时刻只有一个写入者：等另一个运行结束（被杀掉的运行，锁过一会儿自动失效），或换一个文件");
      out("  (one log, one writer: wait for the other run to end — a killed run's lock expires shortly — or choose another file)");
    } else if (error.code !== "NOT_THIS_LOG") {
      return undefined;
    } else if (goesOn) {
      // The log read back, but its bytes are not the writer's own (a torn line, CRLF line ends, a JSON
      // array, another layout): nothing in a log is edited, so the conversation goes on in a new file.
      out(
        "  日志里已有的内容不改写（撕裂的行、CRLF 行尾、JSON 数组都原样留着），请在新文件里继续 / Nothing in a log is edited (a torn line, CRLF line ends, a JSON array stay as they are): go on in a new file:",
      );
      out(`    npm run demo -- --load ${file} --save new.jsonl --continue`);
    } else {
      out("  --save 开始一份新日志：换一个文件，或者接着这份日志 / --save starts a new log: choose another file, or go on with that log:");
      out(`    npm run demo -- --load ${file} --continue`);
    }
    return undefined;
  }
}
