import { performance } from "node:perf_hooks";
import { calculatorEvents, newSession } from "./bench-lib.ts";
function run(count: number, derive: boolean): number {
  const events = calculatorEvents(count);
  let best = Infinity;
  for (let r = 0; r < 15; r++) {
    const s = newSession(); const t = performance.now();
    for (const { type, data } of events) { s.append(type, data); if (derive) s.deriveMessages(); }
    best = Math.min(best, performance.now() - t);
  }
  return best;
}
for (let i = 0; i < 2; i++) for (const n of [4000, 16000]) { const a = run(n, false), b = run(n, true); console.log(n, a.toFixed(1), b.toFixed(1), (b / a).toFixed(2)); }
