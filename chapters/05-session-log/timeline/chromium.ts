// The browser the timeline's browser tests drive: Debian's `chromium` (no browser can be downloaded
// here, so playwright-core gets an explicit executable), or whatever CHROMIUM_PATH names.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** How to get the browser tests when they are skipped; printed by the tests and by `npm test`. */
export const CHROMIUM_HINT = "install Chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary";

/** The Chromium to drive, or undefined when there is none (the browser tests then skip, saying so). */
export function findChromium(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const candidates = [env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((file): file is string => file !== undefined && file !== "" && existsSync(file));
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    // A fresh profile each launch (playwright makes a temporary user-data-dir); --no-sandbox because
    // CI runs as root; the rest keep Chromium from calling home during a test.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
