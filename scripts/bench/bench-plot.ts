// The chart of step 05.6: cost per step against session length, full projection vs incremental,
// from numbers measured in this run. Drawn by a charting library, never by hand: a Vega-Lite spec,
// compiled to Vega and rendered to SVG in Node (no browser, no canvas needed). Vega and Vega-Lite (51
// packages, ~23 MB) are installed on the first run (scripts/maintainer/on-demand.ts), not by every learner.
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { CostPoint } from "./bench-incremental.ts";
import { installOnDemand } from "../maintainer/on-demand.ts";

const VEGA = ["vega@6.4.0", "vega-lite@6.4.3"];

/** The two calls this file makes, typed here: the packages' own types are not installed with the workbook. */
interface Vega {
  parse(spec: unknown): unknown;
  View: new (runtime: unknown, options: { renderer: "none" }) => { toSVG(): Promise<string>; finalize(): void };
}
interface VegaLite {
  compile(spec: object): { spec: unknown };
}

const seriesNames: Record<CostPoint["series"], string> = {
  full: "全量投影 full projection (05.3, whole log every step)",
  incremental: "增量投影 incremental (05.6)",
  stringify: "JSON.stringify 请求体 the request body, for scale",
};

function spec(points: readonly CostPoint[], subtitle: string): object {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: "每一步派生消息的成本 · Cost of deriving the messages, per step", subtitle },
    width: 560,
    height: 320,
    data: { values: points.map((point) => ({ ...point, series: seriesNames[point.series] })) },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "events", type: "quantitative", title: "会话长度（事件数） / session length (events)" },
      y: {
        field: "micros",
        type: "quantitative",
        scale: { type: "log" },
        title: "每步耗时（µs，对数轴） / µs per step (log scale)",
      },
      color: {
        field: "series",
        type: "nominal",
        sort: Object.values(seriesNames),
        legend: { orient: "bottom", direction: "vertical", title: null, labelLimit: 400 },
      },
    },
    config: { font: "sans-serif" },
  };
}

/** Renders the points to an SVG file. */
export async function writeCostPlot(points: readonly CostPoint[], file: string, subtitle: string): Promise<void> {
  const from = createRequire(path.join(installOnDemand("workbook-vega-6.4", VEGA), "package.json"));
  const load = (name: string) => import(pathToFileURL(from.resolve(name)).href);
  const [vega, vegaLite]: [Vega, VegaLite] = await Promise.all([load("vega"), load("vega-lite")]);
  const view = new vega.View(vega.parse(vegaLite.compile(spec(points, subtitle)).spec), { renderer: "none" });
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${await view.toSVG()}\n`);
  } finally {
    view.finalize();
  }
}
