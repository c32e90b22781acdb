#!/usr/bin/env node
// @ts-check
// `npm run bench`: our logbook page against the same page built with supabase-js + zod, and the emulator under
// load. Writes bench/results/latest.json (every figure) and bench/results/latest.md (the tables); then the mobile
// profile: bench/results/mobile.{json,md} and the wasm by function, bench/results/wasm-functions.md, and the owner's
// page on it, bench/results/owner.{json,md}; then the live logbook: bench/results/live.{json,md}; then the field
// visit: bench/results/field.{json,md}. Not part of
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
  cleanUp = bench.cleanUp;
  await mkdir(resultsDir, { recursive: true });
  /** @type {string[]} */
  const written = [];
  /** @type {any[]} */
  const targets = [];
  if (options.desktop) {
    const { renderMarkdown } = await import('./lib/report.mjs');
    let results;
    try {
      results = await bench.runBenchmark(options);
    } finally {
      await bench.cleanUp();
    }
    await writeFile(path.join(resultsDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(path.join(resultsDir, 'latest.md'), `${renderMarkdown(results)}\n`);
    written.push('latest.md', 'latest.json');
    targets.push(...results.targets);
  }
  if (options.mobile) {
    const mobile = await import('./lib/mobile-bench.mjs');
    const { renderMobileMarkdown, runHeader } = await import('./lib/mobile-report.mjs');
    let run;
    try {
      run = await mobile.runMobileBenchmark(options);
    } finally {
      await bench.cleanUp();
    }
    const { results, wasmFunctions } = run;
    await writeFile(path.join(resultsDir, 'mobile.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(path.join(resultsDir, 'mobile.md'), `${renderMobileMarkdown(results)}\n`);
    written.push('mobile.md', 'mobile.json');
    if (wasmFunctions) {
      await writeFile(path.join(resultsDir, 'wasm-functions.md'), `${mobile.renderWasmFunctions({ ...wasmFunctions, header: runHeader(results) })}\n`);
      written.push('wasm-functions.md');
    }
    targets.push(...results.targets);
  }
  if (options.mobile) {
    const owner = await import('./lib/owner-bench.mjs');
    const results = await owner.runOwnerBenchmark({ runs: options.mobileRuns });
    await writeFile(path.join(resultsDir, 'owner.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(path.join(resultsDir, 'owner.md'), `${owner.renderOwnerMarkdown(results)}\n`);
    written.push('owner.md', 'owner.json');
  }
  if (options.live) {
    const live = await import('./lib/live-bench.mjs');
    let results;
    try {
      results = await live.runLiveBenchmark(options);
    } finally {
      await bench.cleanUp();
    }
    await writeFile(path.join(resultsDir, 'live.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(path.join(resultsDir, 'live.md'), `${live.renderLiveMarkdown(results)}\n`);
    written.push('live.md', 'live.json');
    targets.push(...results.targets);
  }
  if (options.field) {
    const field = await import('./lib/field-bench.mjs');
    const { renderFieldMarkdown } = await import('./lib/field-report.mjs');
    let results;
    try {
      results = await field.runFieldBenchmark(options);
    } finally {
      await bench.cleanUp();
    }
    await writeFile(path.join(resultsDir, 'field.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(path.join(resultsDir, 'field.md'), `${renderFieldMarkdown(results)}\n`);
    written.push('field.md', 'field.json');
    targets.push(...results.targets);
  }
  const lines = targets.map((/** @type {any} */ t) => `  ${t.met === null ? '-   ' : t.met ? 'met ' : 'NOT '} ${t.target}: ${t.measured}`);
  console.log(`\nTargets:\n${lines.join('\n')}`);
  console.log(`\nbench: wrote ${written.map((name) => path.relative(process.cwd(), path.join(resultsDir, name))).join(', ')}`);
}

main().catch((/** @type {Error} */ error) => {
  console.error(`bench: ${error.stack ?? error.message}`);
  process.exit(1);
});
