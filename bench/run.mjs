#!/usr/bin/env node
// @ts-check
// `npm run bench`: our logbook page against the same page built with supabase-js + zod, and the emulator under
// load. Writes bench/results/latest.json (every figure) and bench/results/latest.md (the tables). Not part of
// `npm test`. Node built-ins only until bench/node_modules is installed.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOptions, USAGE } from './lib/options.mjs';
import { prepare } from './lib/prepare.mjs';

const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

/** @type {(() => Promise<void>) | undefined} */
let cleanUp;
let interrupted = false;
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`bench: ${signal}: stopping what this run started`);
    void (cleanUp?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`bench: ${/** @type {Error} */ (error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(USAGE);
    return;
  }
  await prepare(options);
  // Imported only now: these modules need bench/node_modules, which prepare() installs.
  const bench = await import('./lib/bench.mjs');
  const { renderMarkdown } = await import('./lib/report.mjs');
  cleanUp = bench.cleanUp;
  let results;
  try {
    results = await bench.runBenchmark(options);
  } finally {
    await bench.cleanUp();
  }
  await mkdir(resultsDir, { recursive: true });
  const markdown = renderMarkdown(results);
  await writeFile(path.join(resultsDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(path.join(resultsDir, 'latest.md'), `${markdown}\n`);
  const targets = results.targets.map(
    (/** @type {any} */ t) => `  ${t.met === null ? '-   ' : t.met ? 'met ' : 'NOT '} ${t.target}: ${t.measured}`,
  );
  console.log(`\nTargets:\n${targets.join('\n')}`);
  console.log(`\nbench: wrote ${path.relative(process.cwd(), path.join(resultsDir, 'latest.md'))} and latest.json`);
}

main().catch((/** @type {Error} */ error) => {
  console.error(`bench: ${error.stack ?? error.message}`);
  process.exit(1);
});
