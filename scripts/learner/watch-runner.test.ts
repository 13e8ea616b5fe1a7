// The watch's runner lives in a child process so that a run that never ends can be stopped: here a
// time limit of 1 ms stands in for an endless loop (the learner's own files are never touched).
import { afterAll, describe, expect, test } from "vitest";
import { findStep } from "../steps.ts";
import { WatchRunner } from "./watch-runner.ts";

describe("npm run watch: the runner", () => {
  let runner: WatchRunner | undefined;
  afterAll(async () => runner?.close());

  test("a run over the time limit is stopped and reported; the next run works on a fresh runner", async () => {
    runner = await WatchRunner.start();
    const step = findStep("05.3")!;
    const before = runner.pid;
    const [stopped] = await runner.run([step], 1);
    expect(stopped?.loadErrors[0]).toContain("were stopped: an endless loop, or code far too slow? Save to re-run.");
    expect(runner.pid, "the stuck child was killed and a new one started").not.toBe(before);
    // Whatever state the learner's file is in (even one that does not parse), vitest ran it this time.
    const [ran] = await runner.run([step]);
    expect(ran?.loadErrors.filter((error) => error.includes("stopped"))).toEqual([]);
    expect((ran?.tests.length ?? 0) + (ran?.loadErrors.length ?? 0)).toBeGreaterThan(0);
  }, 120_000);
});
