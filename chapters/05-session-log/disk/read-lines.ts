// Reading a log line by line (05.7's reader, for files of any size it accepts): the bytes come in
// pieces — a file read READ_PIECE bytes at a time, or one piece for text already in memory — and are cut
// into lines as they come, so the reader never holds the whole file, only the events parsed so far and
// the line being read. A line may span pieces; its parts wait until its "\n" arrives.
import { readSync } from "node:fs";

/** How much of a file is read at a time: large enough that a read is cheap, small beside any log. */
export const READ_PIECE = 1 << 20; // 1 MiB

/** A line's bytes without its "\n"; `terminated` is false only for bytes that end without one. */
export interface Line {
  readonly bytes: Uint8Array;
  readonly terminated: boolean;
}

/** The file behind `fd`, READ_PIECE bytes at a time, from where the descriptor stands to its end. */
export function* piecesOf(fd: number, pieceSize = READ_PIECE): Generator<Uint8Array> {
  for (;;) {
    // A fresh buffer each time: the line that spans two pieces still points into the previous one.
    const piece = Buffer.allocUnsafe(pieceSize);
    const read = readSync(fd, piece, 0, pieceSize, null);
    if (read === 0) return;
    yield piece.subarray(0, read);
  }
}

/** The lines of the bytes in `pieces`, in order, each as soon as its "\n" has been read. */
export function* linesOf(pieces: Iterable<Uint8Array>): Generator<Line> {
  let waiting: Uint8Array[] = []; // the start of a line whose "\n" has not come yet
  for (const piece of pieces) {
    let start = 0;
    for (let newline = piece.indexOf(0x0a); newline !== -1; newline = piece.indexOf(0x0a, start)) {
      const tail = piece.subarray(start, newline);
      yield { bytes: waiting.length === 0 ? tail : Buffer.concat([...waiting, tail]), terminated: true };
      waiting = [];
      start = newline + 1;
    }
    if (start < piece.length) waiting.push(piece.subarray(start));
  }
  if (waiting.length > 0) yield { bytes: Buffer.concat(waiting), terminated: false };
}
