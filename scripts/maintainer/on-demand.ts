// What one maintainer's command needs and no learner does (Stryker for mutation testing, Vega for the
// bench's plot) stays out of package.json, which every learner installs: the command installs it
// itself, pinned, with `npm install --no-save` into a folder of its own under the system's temporary
// folder, once. The workbook's node_modules and package-lock.json are never touched; delete the folder
// to install afresh.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Installs `packages` ("name@version", exact) in `$TMPDIR/<folder>` unless each is there; returns that folder. */
export function installOnDemand(folder: string, packages: readonly string[], npmFlags: readonly string[] = []): string {
  const prefix = path.join(tmpdir(), folder);
  if (packages.every((pinned) => installedAs(prefix, pinned))) return prefix;
  console.log(`Installing ${packages.join(", ")} into ${prefix} (once) …`);
  mkdirSync(prefix, { recursive: true });
  writeFileSync(path.join(prefix, "package.json"), '{ "private": true }\n');
  const flags = ["--no-save", "--no-audit", "--no-fund", ...npmFlags, "--prefix", prefix];
  execFileSync("npm", ["install", ...flags, ...packages], { stdio: "inherit" });
  return prefix;
}

/** Whether `name@version` is installed in `prefix` at that version. */
function installedAs(prefix: string, pinned: string): boolean {
  const at = pinned.lastIndexOf("@");
  const manifest = path.join(prefix, "node_modules", pinned.slice(0, at), "package.json");
  try {
    return JSON.parse(readFileSync(manifest, "utf8")).version === pinned.slice(at + 1);
  } catch {
    return false;
  }
}
