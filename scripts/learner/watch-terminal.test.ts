// `npm run watch` in a real terminal (tmux): the step named on the command line is on the first
// screen, with its last known state, before vitest has started; the arrow keys a real terminal sends
// pick another step from the list (l); q quits. One test, on purpose:
// every run of the real watch starts a vitest child process (stopped here by q).
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";
import { test } from "../../chapters/common/temp-folder.ts";
import { root } from "../steps.ts";

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const session = `workbook-watch-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", session);

/**
 * Polls the pane until `seen` holds (the screen is redrawn whole, so a match is a whole screen). The
 * limit only ends a hang: starting the watch (tsx, then vitest) took over 15 s at a load of 30.
 */
async function waitFor(seen: (text: string) => boolean, what: string): Promise<string> {
  for (let waited = 0; waited < 120_000; waited += 100) {
    const text = screen();
    if (seen(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return expect.fail(`the terminal never showed ${what}; it shows:\n${screen()}`);
}

afterEach(() => {
  spawnSync("tmux", ["kill-session", "-t", session]);
});

test.skipIf(!hasTmux)(
  "npm run watch -- 05.6 shows 05.6 and its last known state first; l, ↑ and Enter pick the step above it; q quits",
  async ({ dir: stateDir }) => {
    const wrong = { name: "05.6 > messages() hands out a new array", state: "failed", errors: ["a caller's push showed up later"] };
    writeFileSync(
      path.join(stateDir, "watch-state.json"),
      JSON.stringify({ "05.6": { kind: "failing", failing: 1, total: 9, first: wrong } }),
    );
    // tmux runs the command in its server's environment, not this process's: TMPDIR is passed as npm test set it.
    const command = `TMPDIR=${tmpdir()} WORKBOOK_STATE_DIR=${stateDir} ${process.execPath} --import tsx scripts/learner/watch.ts 05.6; echo "exit code $?"; sleep 30`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", root, command);
    const first = await waitFor((text) => text.includes("练习步骤 05.6"), "step 05.6");
    expect(first).toContain("✗ 1/9 个测试失败 / 1 of 9 failing  （上次的结果，正在重新检查 / last known, checking again …）");
    expect(first).toContain("a caller's push showed up later");
    tmux("send-keys", "-t", session, "l");
    await waitFor((text) => /▶ \S+ 05\.6 /u.test(text), "the list, the cursor on 05.6");
    tmux("send-keys", "-t", session, "Up", "Enter");
    const picked = await waitFor((text) => text.includes("练习步骤 p4 —"), "step p4, the one above 05.6, picked with ↑ and Enter");
    expect(picked).not.toContain("全部练习步骤 / every step");
    tmux("send-keys", "-t", session, "q");
    const last = await waitFor((text) => text.includes("exit code"), "the watch ending");
    expect(last).toContain("再见 / bye");
    expect(last).toContain("exit code 0");
  },
  300_000,
);
