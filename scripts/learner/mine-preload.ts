// Loaded before the demo and the view start (package.json: `tsx --import ./scripts/learner/mine-preload.ts …`).
// Without --mine it does nothing. With it, the learner's finished files are swapped in (scripts/learner/mine.ts)
// before the first chapter file loads, which is the only moment a resolve hook can still do it; the
// chapter hears which files are whose from WORKBOOK_YOUR_FILES in the environment (startMine sets it).
const args = process.argv.slice(2);
if (args.includes("--mine") && !args.includes("--help")) {
  const { loadYourFiles, startMine } = await import("./mine.ts");
  // A file of yours that throws while being imported stops the run here, told in one sentence.
  const code = await loadYourFiles(await startMine());
  if (code !== undefined) process.exit(code);
}

export {}; // a module, for the top-level await
