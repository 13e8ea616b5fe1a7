// The guide's step table (exercises/05-session-log/README.md) is generated from the manifest, so it
// cannot drift from it: `npm run guide:table` rewrites the block between the two markers, and
// scripts/steps.test.ts fails when the committed table is not what the manifest gives.
import { readFileSync, writeFileSync } from "node:fs";
import { guideAnchor } from "../../exercises/05-session-log/todo.ts";
import { isMain, shown } from "../command.ts";
import { guideFile, steps, type Step } from "../steps.ts";

export const tableStart = "<!-- step table: generated from steps.toml by `npm run guide:table`; edit the manifest, not this table -->";
export const tableEnd = "<!-- /step table -->";

function row(step: Step): string {
  const label = step.kind === "challenge" ? " 挑战" : ""; // past the book
  const needs = step.needs.length === 0 ? "—" : step.needs.join("、");
  return `| [${step.id}](#${guideAnchor(step.id)})${label} | ${step.bookSection} | \`${step.file}\` | \`${step.test}\` | ${needs} |`;
}

export function stepTable(list: readonly Step[] = steps): string {
  return ["| 练习步骤 | 书中章节 | 你编辑的文件 | 测试文件 | 测试还会用到 |", "|---|---|---|---|---|", ...list.map(row)].join("\n");
}

/** The guide with its table block replaced; throws when the markers are missing. */
export function withTable(guide: string, list: readonly Step[] = steps): string {
  const start = guide.indexOf(tableStart);
  const end = guide.indexOf(tableEnd);
  if (start === -1 || end < start) {
    throw new Error(`${shown(guideFile)} has no step table markers: put\n${tableStart}\n${tableEnd}\nwhere the table goes`);
  }
  return `${guide.slice(0, start + tableStart.length)}\n${stepTable(list)}\n${guide.slice(end)}`;
}

if (isMain(import.meta.url)) {
  const guide = readFileSync(guideFile, "utf8");
  const updated = withTable(guide);
  if (updated === guide) console.log(`${shown(guideFile)}: the step table is up to date.`);
  else {
    writeFileSync(guideFile, updated);
    console.log(`${shown(guideFile)}: step table rewritten from steps.toml.`);
  }
}
