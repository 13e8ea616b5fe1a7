// How a failed call is told: every failure of `chat` becomes a DeepSeekError of one kind, with a
// message we build ourselves and scrub of the key.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { publicURL } from "./settings.ts";
import { clip, scrubKey } from "./text.ts";
import { messageOf } from "./tools.ts";

/** Why a call failed, in the words a learner needs to fix it (the demo explains each one). */
export type DeepSeekErrorKind =
  | "authentication" // 401: wrong or revoked key
  | "insufficient_balance" // 402: top up the account
  | "rate_limit" // 429: too many requests in flight
  | "server" // 5xx: DeepSeek is failing or overloaded
  | "bad_request" // 400/422: we sent something the API refuses
  | "network" // no HTTP answer at all
  | "timeout" // connected (or trying to), but no answer within the timeout
  | "empty_reply" // 200, but no message in it
  | "bad_reply" // 200, but not in DeepSeek's documented shape (a field missing or of the wrong type)
  | "other";

/**
 * Every failure of `chat` is one of these. Its message is built by us and scrubbed of the key; the
 * SDK's error is deliberately not kept as `cause`, because its body and headers are not ours to vouch for.
 */
export class DeepSeekError extends Error {
  override readonly name = "DeepSeekError";
  constructor(
    message: string,
    readonly kind: DeepSeekErrorKind,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** What `describeFailure` needs to know about the call that failed. */
export interface FailedCall {
  /** The key as sent, to be scrubbed from whatever the server or the SDK said. */
  readonly apiKey: string;
  readonly baseURL: string;
  readonly timeoutMs: number;
  readonly tries: number;
}

/** Turns whatever the SDK threw into a DeepSeekError whose message holds no part of the key. */
export function describeFailure(error: unknown, call: FailedCall): DeepSeekError {
  const scrub = (text: string) => scrubKey(text, call.apiKey);
  // Our own errors about the reply quote what the server sent, which could hold the key too.
  if (error instanceof DeepSeekError) return new DeepSeekError(scrub(error.message), error.kind, error.status);
  const where = publicURL(call.baseURL);
  // A timeout is a kind of connection error to the SDK, so it is asked about first.
  if (error instanceof APIConnectionTimeoutError) {
    const tries = `${call.tries} ${call.tries === 1 ? "try" : "tries"}`;
    return new DeepSeekError(scrub(`no answer from DeepSeek at ${where} within ${call.timeoutMs} ms (${tries})`), "timeout");
  }
  if (error instanceof APIConnectionError) {
    return new DeepSeekError(scrub(`could not reach DeepSeek at ${where}: ${error.message}`), "network");
  }
  if (error instanceof APIError && error.status !== undefined) {
    const type = error.type ? ` (${error.type})` : "";
    const text = `DeepSeek API error ${error.status}${type}: ${errorBody(error, scrub)}`;
    return new DeepSeekError(scrub(text), errorKindFor(error.status), error.status);
  }
  // The SDK parses a JSON body with JSON.parse: a 200 cut off mid-body is as malformed as a bad field.
  if (error instanceof SyntaxError) {
    return new DeepSeekError(scrub(`DeepSeek's reply is malformed: the response is not valid JSON (${error.message})`), "bad_reply");
  }
  return new DeepSeekError(scrub(`DeepSeek call failed: ${messageOf(error)}`), "other");
}

export function errorKindFor(status: number): DeepSeekErrorKind {
  if (status === 401) return "authentication";
  if (status === 402) return "insufficient_balance";
  if (status === 429) return "rate_limit";
  if (status >= 500) return "server";
  if (status === 400 || status === 422) return "bad_request";
  return "other";
}

/** The SDK's note for an error response with an empty body. */
const NO_BODY = "status code (no body)";
/** How much of a non-JSON error body is kept: enough to recognise a proxy's page, on one line. */
export const ERROR_BODY_LENGTH = 160;

/**
 * What an error response said. The SDK's message is "<status> <what the body said>": a JSON body's
 * `error.message`, or else the raw body text — which, from a proxy, can be a whole HTML page. That is
 * flattened and cut (after scrubbing, so a cut can't leave half a key behind) to keep one short line.
 */
function errorBody(error: APIError, scrub: (text: string) => string): string {
  const said = error.message.replace(/^\d{3} /, "");
  // The SDK keeps a JSON body's `error` object; without one, `said` is the raw body.
  if (error.error !== undefined || said === NO_BODY) return said;
  return `non-JSON body: ${clip(scrub(said).replace(/\s+/g, " ").trim(), ERROR_BODY_LENGTH)}`;
}
