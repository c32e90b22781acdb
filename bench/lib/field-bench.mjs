// @ts-check
// The field visit: a geocacher at the cache, on the weakest signal, opening the page for the first time and signing at
// once. Both pages' production builds served as the mobile profile serves them, against an emulator of their own with
// 200 entries; cold visits of each page, alternating which goes first.
import os from 'node:os';
import path from 'node:path';
import { chromiumVersion } from './browser.mjs';
import { cleanups, gitState, startRun } from './bench.mjs';
import { startCompressingProxy } from './compressing-proxy.mjs';
import { evaluateFieldTargets, fieldFloor, summarizeFieldRuns } from './field-targets.mjs';
import { FIELD_PROFILE, FIELD_VIEWPORT, measureFieldVisit, TYPING_MS } from './field-visit.mjs';
import { buildOurs, buildPage, projects } from './pages.mjs';
import { countEntries, seed } from './rest.mjs';
import { startStaticServer } from './static-server.mjs';

/** The entries in the logbook the visitor finds. */
export const FIELD_ENTRIES = 200;

/** @param {string} message */
const log = (message) => console.log(`bench (field): ${message}`);

/**
 * @param {import('./options.mjs').BenchOptions} options
 */
export async function runFieldBenchmark(options) {
  const { started, loadStart, temp, emulator, backend } = await startRun(options, 'bench-field', log);
  const api = await startCompressingProxy(emulator.url);
  cleanups.push(() => api.stop());
  const pageEnv = { VITE_SUPABASE_URL: api.url, VITE_SUPABASE_ANON_KEY: backend.anonKey, VITE_LOGBOOK_OPEN: 'true' };
  const outDirs = { ours: path.join(temp, 'ours'), peer: path.join(temp, 'peer') };
  log('building both pages (production builds, logbook open)');
  await buildOurs(outDirs.ours, pageEnv);
  await buildPage(projects.peer, outDirs.peer, pageEnv);
  const servers = { ours: await startStaticServer(outDirs.ours), peer: await startStaticServer(outDirs.peer) };
  for (const server of Object.values(servers)) cleanups.push(() => server.stop());
  await seed(backend, 0, FIELD_ENTRIES);
  const count = await countEntries(backend);
  if (count !== FIELD_ENTRIES) throw new Error(`the table holds ${count} entries, expected ${FIELD_ENTRIES}`);

  /** @type {Record<'ours' | 'peer', import('./field-visit.mjs').FieldRun[]>} */
  const runs = { ours: [], peer: [] };
  for (let index = 0; index < options.fieldRuns; index += 1) {
    /** @type {('ours' | 'peer')[]} */
    const order = index % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours'];
    for (const page of order) {
      const run = await measureFieldVisit({ url: servers[page].url, timeoutMs: options.timeoutMs, name: `field ${page} ${index + 1}` });
      runs[page].push(run);
      log(
        `${page} run ${index + 1}/${options.fieldRuns}: typeable ${run.typeableMs?.toFixed(0)} ms, newest entry ${run.firstCardMs?.toFixed(0)} ms, ` +
          `signed ${run.signedMs?.toFixed(0)} ms, press to shown ${run.pressToShownMs?.toFixed(0)} ms, ` +
          `before typeable ${run.beforeTypeable?.requests} responses / ${((run.beforeTypeable?.bytes ?? 0) / 1000).toFixed(1)} kB` +
          `${run.problems.length > 0 ? `; problems: ${run.problems.join(' | ')}` : ''}`,
      );
    }
  }
  const summaries = { ours: summarizeFieldRuns(runs.ours, options.timeoutMs), peer: summarizeFieldRuns(runs.peer, options.timeoutMs) };
  const files = (/** @type {'ours' | 'peer'} */ page) =>
    [...servers[page].files.values()].map((file) => ({ path: file.urlPath, brotli: (file.brotli ?? file.body).length }));
  const html = (/** @type {'ours' | 'peer'} */ page) => servers[page].files.get('/index.html')?.body.toString('utf8') ?? '';
  const finished = new Date();
  return {
    schema: 1,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationSeconds: (finished.getTime() - started.getTime()) / 1000,
    profile: FIELD_PROFILE,
    viewport: FIELD_VIEWPORT,
    options: { entries: FIELD_ENTRIES, runs: options.fieldRuns, typingMs: TYPING_MS, timeoutMs: options.timeoutMs },
    machine: {
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      cpuCount: os.cpus().length,
      loadAverage: { start: loadStart, end: os.loadavg() },
      node: process.version,
      chromium: await chromiumVersion(),
    },
    git: gitState(),
    runs,
    summaries,
    floor: { ours: fieldFloor(html('ours'), files('ours')), peer: fieldFloor(html('peer'), files('peer')) },
    targets: evaluateFieldTargets(summaries.ours, summaries.peer),
  };
}
