// Text fit to print: cut to one short line, and with no part of the API key left in it.

/** Cuts `text` to at most `max` characters, the last one an ellipsis when something was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Shorter than this, a "key" is no real API key, and taking it out would blank ordinary words. */
export const SHORTEST_KEY = 8;
/** From this length on, a key's first 8 characters say enough about it to be a secret themselves. */
export const KEY_PREFIX_FROM = 16;

/**
 * A key as an API echoes it back masked: DeepSeek's 401 says `****abcd` (the last four characters),
 * others `sk-ab****wxyz`. Even those few characters are part of the key, so they are scrubbed too.
 */
const MASKED_KEY = /[\w-]*\*{3,}[\w-]*/g;

/**
 * Takes the key out of a text that may hold it: the whole key, an echo masked with `*`, and (for a
 * key long enough that its start says something about it) its first 8 characters and what follows.
 * Pass the key as it was sent (trimmed), so that an echo of it is found.
 */
export function scrubKey(text: string, key: string): string {
  const whole = key.length >= SHORTEST_KEY ? text.split(key).join("[redacted]") : text;
  const clean = whole.replace(MASKED_KEY, "****");
  if (key.length < KEY_PREFIX_FROM) return clean;
  return clean.replace(new RegExp(`${escapeRegExp(key.slice(0, 8))}[\\w-]*`, "g"), "[redacted]");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
