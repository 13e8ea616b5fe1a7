// Decoy for step 05.5: runs each tool directly instead of through runToolCall, so an unknown tool,
// arguments that do not parse or fit the schema, or a tool that throws (1/0) end the whole run
// instead of becoming a tool/result with is_error: true that the model can react to.
import { wrongLoop } from "./wrong-loop.ts";

export const runAgent = wrongLoop({ toolsWithoutRunToolCall: true });
