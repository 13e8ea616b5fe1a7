// Loaded before the demo and the view start (package.json: `tsx --import ./scripts/mine-preload.ts …`).
// Without --mine it does nothing. With it, the learner's finished files are swapped in (scripts/mine.ts)
// before the first chapter file loads, which is the only moment a resolve hook can still do it.
const args = process.argv.slice(2);
if (args.includes("--mine") && !args.includes("--help")) {
  const { startMine } = await import("./mine.ts");
  await startMine();
}

export {}; // a module, for the top-level await
