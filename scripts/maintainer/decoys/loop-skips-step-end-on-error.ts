// Decoy for step 05.5: closes a step only when it succeeds. Without the book's `finally`, a model
// call that throws leaves its step/start without a step/end in the log.
import { wrongLoop } from "./wrong-loop.ts";

export const runAgent = wrongLoop({ skipStepEndOnError: true });
