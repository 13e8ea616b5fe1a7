// One place for the DeepSeek settings: read from the environment the caller hands over, checked
// before anything is sent, and explained in Chinese with the English beside it. The client, the
// demo and the record script all read them here, so a value means the same thing to each of them.

export const DEFAULT_BASE_URL = "https://api.deepseek.com";
export const DEFAULT_MODEL = "deepseek-flash";
/** Thinking mode can think for a minute or more: generous, but not the SDK's 10 minutes × 3 tries. */
export const THINKING_TIMEOUT_MS = 120_000;
/** setTimeout's limit: a longer wait would fire after 1 ms, so every call would time out at once. */
export const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/** Where the settings come from: `process.env` in a program, a plain object in a test. */
export type Env = Readonly<Record<string, string | undefined>>;

export interface DeepSeekSettings {
  /** undefined when DEEPSEEK_API_KEY is not set or blank. */
  readonly apiKey: string | undefined;
  readonly baseURL: string;
  readonly model: string;
  /** How long to wait for one HTTP answer. */
  readonly timeoutMs: number;
}

export type SettingName = "DEEPSEEK_API_KEY" | "DEEPSEEK_BASE_URL" | "DEEPSEEK_MODEL" | "DEEPSEEK_TIMEOUT_MS";

/**
 * A setting that cannot work, found before anything is sent. `message` (English) and `zh` (Chinese)
 * say the same thing; neither shows a secret.
 */
export class DeepSeekConfigError extends Error {
  override readonly name: string = "DeepSeekConfigError";
  constructor(
    readonly setting: SettingName,
    readonly zh: string,
    message: string,
  ) {
    super(message);
  }
}

export class MissingApiKeyError extends DeepSeekConfigError {
  override readonly name = "MissingApiKeyError";
  constructor() {
    super(
      "DEEPSEEK_API_KEY",
      "没有设置 DEEPSEEK_API_KEY（或者它只有空白）。要调用真实模型，请先设置你的 DeepSeek API key（在 https://platform.deepseek.com/api_keys 创建）；也可以离线回放录制的流量：npm run demo -- --offline",
      "DEEPSEEK_API_KEY is not set (or is blank). Export your DeepSeek API key (https://platform.deepseek.com/api_keys) " +
        "to call the live model, or run offline on recorded traffic: npm run demo -- --offline",
    );
  }
}

/**
 * Reads and checks every setting. A value given in code wins over its environment variable; either
 * way text is trimmed (a value read from a file or pasted into a shell often brings a "\r" or a
 * space along) and blank counts as not set.
 */
export function readSettings(env: Env, given: Partial<DeepSeekSettings> = {}): DeepSeekSettings {
  return {
    apiKey: checkApiKey(setting(given.apiKey ?? env.DEEPSEEK_API_KEY)),
    baseURL: checkBaseURL(setting(given.baseURL ?? env.DEEPSEEK_BASE_URL) ?? DEFAULT_BASE_URL),
    model: setting(given.model ?? env.DEEPSEEK_MODEL) ?? DEFAULT_MODEL,
    timeoutMs: checkTimeout(given.timeoutMs ?? timeoutFromText(setting(env.DEEPSEEK_TIMEOUT_MS))),
  };
}

/** Whether DEEPSEEK_API_KEY is set at all, by the same rule readSettings uses (blank is not set). */
export function hasApiKey(env: Env): boolean {
  return setting(env.DEEPSEEK_API_KEY) !== undefined;
}

/** A setting as text: trimmed, and blank counts as not set. */
function setting(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/**
 * fetch trims the Authorization header, so the server sees (and may echo) the trimmed key; that is
 * the key we keep, send and scrub. A space or line break still inside it is a copy-paste accident
 * no API key has, and sending it would fail in ways that are hard to read. The key is never shown.
 */
function checkApiKey(key: string | undefined): string | undefined {
  const at = key?.search(/[^\x21-\x7e]/) ?? -1;
  if (at < 0) return key;
  throw new DeepSeekConfigError(
    "DEEPSEEK_API_KEY",
    `DEEPSEEK_API_KEY 的第 ${at + 1} 个字符是空格、换行或其他 API key 里不会有的字符。请从 https://platform.deepseek.com/api_keys 重新复制 key`,
    `DEEPSEEK_API_KEY has a space, line break or other character no API key contains (at position ${at + 1}); ` +
      "copy the key again from https://platform.deepseek.com/api_keys",
  );
}

/** The base URL must be one the SDK can append "/chat/completions" to and fetch can send to. */
function checkBaseURL(url: string): string {
  const bad = (zh: string, en: string) => new DeepSeekConfigError("DEEPSEEK_BASE_URL", zh, en);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not echoed: a string that is no URL may be a secret pasted into the wrong variable.
    throw bad(
      "DEEPSEEK_BASE_URL 不是有效的 URL。它应该形如 https://api.deepseek.com",
      "DEEPSEEK_BASE_URL is not a valid URL; it should look like https://api.deepseek.com",
    );
  }
  const shown = publicURL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw bad(
      `DEEPSEEK_BASE_URL 的值 ${shown} 必须以 http:// 或 https:// 开头`,
      `DEEPSEEK_BASE_URL (${shown}) must start with http:// or https://`,
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw bad(
      `DEEPSEEK_BASE_URL 的值 ${shown} 里带有 user:password@。fetch 不会向带凭据的 URL 发请求，请把它们从 URL 里去掉`,
      `DEEPSEEK_BASE_URL (${shown}) has user:password@ in it; fetch refuses to send a request to a URL with credentials, so take them out of the URL`,
    );
  }
  if (/[?#]/.test(url)) {
    throw bad(
      `DEEPSEEK_BASE_URL 的值 ${shown} 带有查询字符串或 #片段。SDK 会把 /chat/completions 当作文本接在 base URL 后面，路径就会落进查询字符串里。请删掉从 ? 或 # 开始的部分`,
      `DEEPSEEK_BASE_URL (${shown}) has a query string or #fragment; the SDK appends /chat/completions to the base URL as text, so the path would end up inside the query. Remove everything from the ? or #`,
    );
  }
  return url;
}

/** Digits only: Number() would also take "0x10" or "1e3", which nobody means as milliseconds. */
function timeoutFromText(text: string | undefined): number {
  if (text === undefined) return THINKING_TIMEOUT_MS;
  return /^\d+$/.test(text) ? Number(text) : Number.NaN;
}

function checkTimeout(ms: number): number {
  if (Number.isSafeInteger(ms) && ms > 0 && ms <= LONGEST_TIMEOUT_MS) return ms;
  // The value is not echoed, for the same reason as a base URL that is no URL.
  throw new DeepSeekConfigError(
    "DEEPSEEK_TIMEOUT_MS",
    `DEEPSEEK_TIMEOUT_MS 必须是 1 到 ${LONGEST_TIMEOUT_MS}（约 24 天）之间的整数毫秒数，只写数字，比如 ${THINKING_TIMEOUT_MS}`,
    `DEEPSEEK_TIMEOUT_MS must be a whole number of milliseconds from 1 to ${LONGEST_TIMEOUT_MS} (about 24 days), digits only, such as ${THINKING_TIMEOUT_MS}`,
  );
}

/**
 * A URL fit to print or save: without `user:password@` and without the query string, either of
 * which may carry a secret (a proxy's password, an `?api_key=`), and without a `#fragment`. The
 * rest is kept as written, up to what URL parsing normalises (a lower-case host, for one).
 */
export function publicURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a valid URL)";
  }
  const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  // new URL() gives a bare origin the path "/"; keep the form the user wrote.
  return url.endsWith("/") || parsed.pathname !== "/" ? shown : shown.slice(0, -1);
}
