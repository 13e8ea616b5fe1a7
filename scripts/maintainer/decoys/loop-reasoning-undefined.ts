// Decoy for step 05.5: the reply's reasoning_content is logged as it comes. A client may leave the
// optional field out, and then append meets undefined, which freezeJson rejects as not JSON.
import { wrongLoop } from "./wrong-loop.ts";

export const runAgent = wrongLoop({ reasoningWithoutNull: true });
