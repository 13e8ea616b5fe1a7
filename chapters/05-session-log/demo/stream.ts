// ① for a streamed run: what a subscriber sees. A reply arrives as hundreds of chunk events; one line
// each would bury the story, so the subscriber shows their text as it grows instead — the model's
// reasoning dim and labelled, the answer plain — and then one line for the run of chunks, the same
// line ② prints. Every other event gets its own line, as in the book.
import { visible } from "../../common/text.ts";
import type { Colors } from "picocolors/types";
import { formatChunkRun } from "./format.ts";
import { isEventOfType, type SessionEvent, type StreamChunk } from "../events.ts";

export interface SubscriberIO {
  /** Prints whole lines. */
  readonly out: (line: string) => void;
  /** Prints text where the cursor is (a terminal); without it, text is gathered into whole lines for `out`. */
  readonly write?: ((text: string) => void) | undefined;
  readonly c: Colors;
}

const SAW = "[订阅者 / subscriber] 看到新事件";
const INDENT = "    ";

/** The subscriber of section ①: pass it to `session.subscribe`. */
export function subscriberView({ out, write, c }: SubscriberIO): (event: SessionEvent) => void {
  const text = write ?? lineGatherer(out);
  let run: SessionEvent<"assistant/chunk">[] = [];
  /** Which text the current line is showing, if a line is open. */
  let showing: string | undefined;

  const newLine = (label: string) => {
    text(`${showing === undefined ? "" : "\n"}${INDENT}${label} ┃ `);
    showing = label;
  };
  const endRun = () => {
    if (run.length === 0) return;
    if (showing !== undefined) text("\n");
    showing = undefined;
    // The line names what the model sent (a tool's name, a finish reason): shown, never obeyed, like its text.
    out(`  [订阅者 / subscriber] 看到 ${visible(formatChunkRun(run))}`);
    run = [];
  };
  // The model's text is shown, never obeyed (text.ts): only our own colours reach the terminal as codes.
  // A line break it sends goes on under the label, so it can never start a line that passes for ours.
  const seen = (model: string) => indentLines(visible(model, { lines: true }));
  const show = (chunk: StreamChunk) => {
    // Text is shown as it arrives; a new kind of text starts a new labelled line.
    if (chunk.kind === "reasoning" && chunk.text !== "") {
      if (showing !== REASONING) newLine(REASONING);
      text(c.dim(seen(chunk.text)));
    } else if (chunk.kind === "text" && chunk.text !== "") {
      if (showing !== ANSWER) newLine(ANSWER);
      text(seen(chunk.text));
    } else if (chunk.kind === "tool_call") {
      if (chunk.name !== undefined) newLine(`${TOOL_CALL} ${visible(chunk.name)}`);
      text(c.cyan(seen(chunk.arguments)));
    } else if (chunk.kind === "error") {
      newLine(ERROR);
      text(c.red(seen(chunk.message)));
    }
  };

  return (event) => {
    if (isEventOfType(event, "assistant/chunk")) {
      run.push(event);
      show(event.data.chunk);
      return;
    }
    endRun();
    out(`  ${SAW} #${event.id} ${visible(event.type)}`);
  };
}

const REASONING = "思考 / reasoning";
const ANSWER = "回答 / answer";
const TOOL_CALL = "调用工具 / tool call";
const ERROR = "出错 / error";

/** A line break inside streamed text continues under the label, not at the left margin. */
function indentLines(text: string): string {
  return text.replace(/\n/g, `\n${INDENT}  `);
}

/** Text gathered into whole lines, each handed to `out` once its line break arrives. */
function lineGatherer(out: (line: string) => void): (text: string) => void {
  let line = "";
  return (text) => {
    const parts = (line + text).split("\n");
    line = parts.pop() ?? "";
    for (const part of parts) out(part);
  };
}
