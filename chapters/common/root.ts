// Where the workbook's files are: the repository's root, found from this file's own place. Tests and
// tools that name a file of the workbook (a fixture, a script to spawn) start from here.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
