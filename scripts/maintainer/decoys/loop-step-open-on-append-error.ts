// Decoy for step 05.5: the `finally` guards the model call only. An append after it that throws (a
// reply the log refuses, such as a tool call whose arguments the client handed over already parsed)
// leaves its step/start without a step/end, the turn without a turn/end, and rejects with the raw error.
import { wrongLoop } from "./wrong-loop.ts";

export const runAgent = wrongLoop({ tryAroundModelCallOnly: true });
