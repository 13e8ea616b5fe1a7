// Decoy for step 05.5: the chapter-02 habit of putting the system prompt into the history. It is
// logged as the first user/message of the turn, so every request sends it as conversation.
import { wrongLoop } from "./wrong-loop.ts";

export const runAgent = wrongLoop({ systemAsMessage: true });
