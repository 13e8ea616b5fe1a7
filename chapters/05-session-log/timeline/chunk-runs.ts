// Stream chunks on the timeline. A streamed reply leaves hundreds of `assistant/chunk` events before
// its `assistant/message`; one line each would bury the log's story. So consecutive chunks of one model
// call form a run, drawn as one entry whose text grows as chunks arrive, and the message that cites
// them (`chunk_ids`) folds the run under itself. A run no message cites (a failed attempt, a stream cut
// before any message) stays where it was, saying so.
import { isEventOfType, type SessionEvent } from "../events.ts";

export interface ChunkRun {
  /** The id of its first chunk event: the run's name. */
  readonly first: number;
  readonly ids: number[];
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  /** What the chunks carried so far, joined: the text a reader saw appear. */
  reasoning: string;
  text: string;
  /** Tool-call fragments as they came: a name when a call starts, then its argument text. */
  tools: string;
  finish: string | null;
  error: string | null;
  /** The assistant/message event whose chunk_ids cite this run; null until one does. */
  foldedInto: number | null;
}

/** Every run by its first id, and the run a next chunk may join. Changed only by the functions below. */
export interface ChunkRuns {
  readonly byFirst: Map<number, ChunkRun>;
  /** The run the last event joined, if the last event was a chunk; any other event ends a run. */
  open: ChunkRun | null;
}

export function noRuns(): ChunkRuns {
  return { byFirst: new Map(), open: null };
}

/** Adds a chunk event to its run (a new one unless it continues the same call's run); returns the run. */
export function addChunk(runs: ChunkRuns, event: SessionEvent<"assistant/chunk">): ChunkRun {
  const { turn, step, attempt, chunk } = event.data;
  const open = runs.open;
  const continues = open !== null && open.turn === turn && open.step === step && open.attempt === attempt;
  const run: ChunkRun = continues ? open : newRun(event.id, turn, step, attempt);
  if (!continues) runs.byFirst.set(run.first, run);
  run.ids.push(event.id);
  if (chunk.kind === "reasoning") run.reasoning += chunk.text;
  if (chunk.kind === "text") run.text += chunk.text;
  if (chunk.kind === "tool_call") run.tools += `${chunk.name === undefined ? "" : `\n${chunk.name} `}${chunk.arguments}`;
  if (chunk.kind === "finish") run.finish = chunk.reason;
  if (chunk.kind === "error") run.error = chunk.message;
  runs.open = run;
  return run;
}

function newRun(first: number, turn: number, step: number, attempt: number): ChunkRun {
  return { first, ids: [], turn, step, attempt, reasoning: "", text: "", tools: "", finish: null, error: null, foldedInto: null };
}

/** Any event that is not a chunk ends the open run: a later chunk starts a new one. */
export function endRun(runs: ChunkRuns, event: SessionEvent): void {
  if (!isEventOfType(event, "assistant/chunk")) runs.open = null;
}

/**
 * Folds the runs a message cites under it; returns their first ids. `runOf` says which run a chunk
 * id belongs to (undefined: not a chunk, or not yet in the log). A run already folded stays where it is.
 */
export function foldRuns(runs: ChunkRuns, message: SessionEvent<"assistant/message">, runOf: (id: number) => number | undefined): number[] {
  const folded: number[] = [];
  for (const id of message.data.chunk_ids ?? []) {
    const run = runs.byFirst.get(runOf(id) ?? -1);
    if (run === undefined || run.foldedInto !== null) continue;
    run.foldedInto = message.id;
    folded.push(run.first);
  }
  return folded;
}
