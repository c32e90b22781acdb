// @ts-check
// One benchmark run: builds, emulator, seeding, page measurements per N, parse throughput, emulator load.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';
import { measureAssets, teaserWithoutScripts } from './assets.mjs';
import { chromiumVersion, VIEWPORT } from './browser.mjs';
import { makeEntries } from './entries.mjs';
import { CONNECTIONS, measureEmulatorLoad } from './load.mjs';
import { measurePage } from './page-run.mjs';
import { buildOurs, buildPage, previewOurs, previewPage, projects } from './pages.mjs';
import { measureParsing } from './parse-bench.mjs';
import { benchDir, releaseEmulator } from './prepare.mjs';
import { countEntries, createdAtAt, deleteByName, listPages, oldestCreatedAt, rowsInOneRead, seed } from './rest.mjs';
import { PAGE_SIZE } from './rest-requests.mjs';
import { compare } from './summary.mjs';
import { evaluateTargets } from './targets.mjs';

/** Cleanups of what this run started, newest first; run.mjs also calls them on Ctrl-C. */
/** @type {(() => Promise<unknown>)[]} */
export const cleanups = [];

export async function cleanUp() {
  while (cleanups.length > 0) {
    const cleanup = /** @type {() => Promise<unknown>} */ (cleanups.pop());
    await cleanup().catch((/** @type {Error} */ error) => console.warn(`bench: cleanup failed: ${error.message}`));
  }
}

/** @param {string} message */
const log = (message) => console.log(`bench: ${message}`);

/**
 * @param {string} dir
 * @param {string[]} names
 */
async function packageVersions(dir, names) {
  /** @type {Record<string, string | null>} */
  const versions = {};
  for (const name of names) {
    try {
      versions[name] = JSON.parse(await readFile(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      versions[name] = null;
    }
  }
  return versions;
}

export function gitState() {
  const git = (/** @type {string[]} */ args) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  try {
    // The results a run writes are not a change to the code it measured.
    return { commit: git(['rev-parse', 'HEAD']), dirty: git(['status', '--porcelain', '--', '.', ':(exclude)bench/results']).length > 0 };
  } catch {
    return { commit: 'unknown', dirty: true };
  }
}

/**
 * What every part of a run starts with: the time and load average, a temporary folder (removed at the end unless
 * `--keep-temp`), and an emulator of its own over a database in that folder. Both are stopped by `cleanUp()`.
 * @param {import('./options.mjs').BenchOptions} options
 * @param {string} name  names the temporary folder and the database
 * @param {(message: string) => void} log
 */
export async function startRun(options, name, log) {
  const started = new Date();
  const loadStart = os.loadavg();
  const temp = await mkdtemp(path.join(os.tmpdir(), `geocache-${name}-`));
  if (options.keepTemp) log(`temporary files in ${temp}`);
  else cleanups.push(() => rm(temp, { recursive: true, force: true }));
  const emulator = await startEmulator({ binary: releaseEmulator, port: 0, db: path.join(temp, `${name}.sqlite3`) });
  cleanups.push(() => emulator.stop());
  const backend = { url: emulator.url, anonKey: emulator.anonKey, serviceRoleKey: emulator.serviceRoleKey };
  log(`emulator at ${emulator.url} (pid ${emulator.child.pid})`);
  return { started, loadStart, temp, emulator, backend };
}

/**
 * @param {import('./options.mjs').BenchOptions} options
 */
export async function runBenchmark(options) {
  const { started, loadStart, temp, backend } = await startRun(options, 'bench', log);

  // Builds, with the emulator's URL and anon key baked in (one at a time: two cores).
  const pageEnv = { VITE_SUPABASE_URL: backend.url, VITE_SUPABASE_ANON_KEY: backend.anonKey };
  const outDirs = {
    ours: path.join(temp, 'ours-logbook'),
    teaser: path.join(temp, 'ours-teaser'),
    peer: path.join(temp, 'peer-logbook'),
    parse: path.join(temp, 'parse-harness'),
  };
  log('building our page (logbook open), our teaser, the peer page and the parse harness');
  await buildOurs(outDirs.ours, { ...pageEnv, VITE_LOGBOOK_OPEN: 'true' });
  await buildOurs(outDirs.teaser, { ...pageEnv, VITE_LOGBOOK_OPEN: undefined });
  await buildPage(projects.peer, outDirs.peer, { ...pageEnv, VITE_LOGBOOK_OPEN: 'true' });
  await buildPage(projects.parse, outDirs.parse, {});

  const servers = {
    ours: await previewOurs(outDirs.ours),
    teaser: await previewOurs(outDirs.teaser),
    peer: await previewPage(projects.peer, outDirs.peer),
  };
  for (const server of Object.values(servers)) cleanups.push(() => server.stop());
  log(`serving ours at ${servers.ours.url}, the teaser at ${servers.teaser.url}, the peer at ${servers.peer.url}`);

  // Downloads, measured once per page (they do not depend on N).
  let seeded = 0;
  await seed(backend, seeded, options.sizes[0]);
  seeded = options.sizes[0];
  const assetTimeout = Math.max(options.timeoutMs, 30_000);
  const assets = {
    ours: {
      logbook: await measureAssets(servers.ours.url, { until: 'entry-card', timeoutMs: assetTimeout }),
      teaser: await measureAssets(servers.teaser.url, { until: 'network-idle', timeoutMs: assetTimeout }),
    },
    peer: { logbook: await measureAssets(servers.peer.url, { until: 'entry-card', timeoutMs: assetTimeout }) },
  };
  const teaser = await teaserWithoutScripts(servers.teaser.url, assetTimeout);
  log(
    `downloads (JS + wasm + CSS, gzip -9): ours ${(assets.ours.logbook.totals.code.gzip / 1000).toFixed(1)} kB, ` +
      `peer ${(assets.peer.logbook.totals.code.gzip / 1000).toFixed(1)} kB`,
  );

  // Page runs per N.
  /** @type {import('./summary.mjs').PagePoint[]} */
  const pages = [];
  /** @type {{ entries: number, pages: import('./rest.mjs').ListPage[] }[]} */
  const parseInputs = [];
  /** Per N: rows one read of the whole list returns (the server's row cap shows here once N exceeds it). */
  /** @type {{ n: number, rows: number }[]} */
  const oneRead = [];
  const [{ message: signMessage }] = makeEntries(3, 4);
  for (const n of options.sizes) {
    log(`seeding to ${n.toLocaleString('en')} entries`);
    await seed(backend, seeded, n);
    seeded = n;
    const count = await countEntries(backend);
    if (count !== n) throw new Error(`the table holds ${count} entries, expected ${n}`);
    const oldest = await oldestCreatedAt(backend);
    oneRead.push({ n, rows: await rowsInOneRead(backend) });
    log(`one read of the whole list returns ${oneRead[oneRead.length - 1].rows.toLocaleString('en')} rows`);
    if (options.parseSizes.includes(n)) parseInputs.push({ entries: n, pages: await listPages(backend, PAGE_SIZE) });

    /** @type {Record<'ours' | 'peer', import('./summary.mjs').PagePoint>} */
    const points = { ours: { n, page: 'ours', runs: [] }, peer: { n, page: 'peer', runs: [] } };
    const runs = options.runsFor(n);
    for (let index = 0; index < runs; index += 1) {
      // Alternate which page goes first, so neither always runs on a warmer machine.
      /** @type {('ours' | 'peer')[]} */
      const order = index % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours'];
      for (const page of order) {
        const name = `Bench ${page} ${n} #${index + 1}`;
        const run = await measurePage({
          url: servers[page].url,
          entries: n,
          oldestCreatedAt: oldest,
          createdAtAt: (position) => createdAtAt(backend, position),
          timeoutMs: options.timeoutMs,
          sign: { name, message: signMessage },
        });
        points[page].runs.push(run);
        await deleteByName(backend, name);
        const ms = (/** @type {number | null} */ value) => (value === null ? 'timeout' : `${Math.round(value)} ms`);
        log(
          `N=${n} ${page} run ${index + 1}/${runs}: first ${ms(run.firstCardMs)}, ` +
            `usable ${run.hidesEntries ? 'never' : ms(run.usableMs)}, shows ${run.entriesShown ?? 'n/a'} of ${n}, ` +
            `${run.restRequests ?? 'n/a'} REST requests, ` +
            `sign ${ms(run.signMs)}, heap ${run.jsHeapBytes === null ? 'n/a' : `${(run.jsHeapBytes / 1e6).toFixed(1)} MB`}` +
            `${run.wasmMemoryBytes ? ` + wasm ${(run.wasmMemoryBytes / 1e6).toFixed(1)} MB` : ''}, cards ${run.cardsInDom ?? 'n/a'}` +
            `${run.problems.length > 0 ? `; problems: ${run.problems.join(' | ')}` : ''}`,
        );
      }
    }
    const after = await countEntries(backend);
    if (after !== n) throw new Error(`after the runs the table holds ${after} entries, expected ${n}`);
    pages.push(points.ours, points.peer);
  }

  log('parse + validation throughput in the browser');
  const parsing = await measureParsing(outDirs.parse, parseInputs, { quick: options.quick });

  log(`emulator load: ${options.loadSeconds} s of reads, then ${options.loadSeconds} s of inserts`);
  const entriesInTable = await countEntries(backend);
  const load = { tool: 'autocannon', entriesInTable, ...(await measureEmulatorLoad(backend, options.loadSeconds)) };

  const finished = new Date();
  const results = {
    schema: 1,
    mode: options.quick ? 'quick' : 'full',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationSeconds: (finished.getTime() - started.getTime()) / 1000,
    options: {
      sizes: options.sizes,
      runs: Object.fromEntries(options.sizes.map((n) => [n, options.runsFor(n)])),
      timeoutMs: options.timeoutMs,
      loadSeconds: options.loadSeconds,
      loadConnections: CONNECTIONS,
      parseSizes: options.parseSizes,
    },
    rowsInOneRead: oneRead,
    viewport: VIEWPORT,
    machine: {
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      cpuCount: os.cpus().length,
      memoryBytes: os.totalmem(),
      loadAverage: { start: loadStart, end: os.loadavg() },
      node: process.version,
      chromium: await chromiumVersion(),
    },
    versions: {
      git: gitState(),
      ours: await packageVersions(repoRoot, ['react', 'react-dom', 'vite', '@vitejs/plugin-react', 'vite-plugin-wasm']),
      peer: await packageVersions(benchDir, ['@supabase/supabase-js', 'zod', 'react', 'react-dom', 'vite', '@vitejs/plugin-react']),
      tools: await packageVersions(benchDir, ['playwright-core', 'autocannon']),
    },
    assets,
    teaser,
    pages,
    comparisons: compare(pages, options.timeoutMs),
    parsing,
    load,
  };
  return { ...results, targets: evaluateTargets(results) };
}
