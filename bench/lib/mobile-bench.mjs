// @ts-check
// The mobile profile's benchmark: both pages' production builds served as a static host serves them, against an
// emulator of their own seeded to each N, each measured in first, repeat and offline visits under the mobile
// profile, and ours behind hosts whose caching headers differ too; then the page's wasm broken down by function.
import { mkdir, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assetKind, compressedSizes } from './assets.mjs';
import { startCompressingProxy } from './compressing-proxy.mjs';
import { chromiumVersion } from './browser.mjs';
import { cleanups, gitState, startRun } from './bench.mjs';
import { MOBILE_PROFILE, MOBILE_VIEWPORT } from './mobile-profile.mjs';
import { evaluateMobileTargets, summarizeRuns } from './mobile-targets.mjs';
import { measureMobileVisits } from './mobile-visits.mjs';
import { buildOurs, buildPage, previewOurs, projects } from './pages.mjs';
import { countEntries, seed } from './rest.mjs';
import { HOST_HEADERS, startStaticServer } from './static-server.mjs';
import { analyseWasmFile, buildNamedPageWasm, renderWasmFunctions } from './wasm-functions.mjs';

/** @param {string} message */
const log = (message) => console.log(`bench (mobile): ${message}`);

/**
 * The hosts our page is measured behind, at every N: the bench's own (the headers docs/deploying.md advises, the one
 * the peer is measured behind too), and hosts whose caching headers differ, as owners' hosts do. The repeat visit
 * must not depend on them.
 * @type {readonly { id: string, label: string, headers: string, serve: import('./static-server.mjs').HostHeaders | 'vite preview' }[]}
 */
export const MOBILE_HOSTS = [
  { id: 'advised', label: 'the bench\'s static host', headers: HOST_HEADERS.advised.describe, serve: 'advised' },
  { id: 'revalidate', label: 'a host revalidating everything', headers: HOST_HEADERS.revalidate.describe, serve: 'revalidate' },
  { id: 'ten-minutes', label: 'a host caching ten minutes', headers: HOST_HEADERS['ten-minutes'].describe, serve: 'ten-minutes' },
  {
    id: 'vite-preview',
    label: '`vite preview`',
    // The build's precompressed copies (app/build/precompress.ts) go out with `no-cache` and no validator.
    headers: '`npm run preview`: every file `no-cache`, the compressed ones without a validator (a revalidation downloads them again)',
    serve: 'vite preview',
  },
];

/**
 * @param {import('./static-server.mjs').RunningStaticServer} server
 * @returns {import('./byte-accounting.mjs').BuildFile[]}
 */
function buildFilesOf(server) {
  return [...server.files.values()].map((file) => {
    const kind = assetKind(file.urlPath, '');
    return { path: file.urlPath, kind, ...compressedSizes(file.body, kind) };
  });
}

/**
 * @param {import('./options.mjs').BenchOptions} options
 */
export async function runMobileBenchmark(options) {
  const { started, loadStart, temp, emulator, backend } = await startRun(options, 'bench-mobile', log);

  // The pages reach the emulator through a compressing proxy, as a hosted project's API is reached through its CDN.
  const api = await startCompressingProxy(emulator.url);
  cleanups.push(() => api.stop());
  log(`the pages' API: ${api.url}, compressing the emulator's answers`);
  const pageEnv = { VITE_SUPABASE_URL: api.url, VITE_SUPABASE_ANON_KEY: backend.anonKey, VITE_LOGBOOK_OPEN: 'true' };
  const outDirs = { ours: path.join(temp, 'ours'), peer: path.join(temp, 'peer') };
  log('building both pages (production builds, logbook open)');
  await buildOurs(outDirs.ours, pageEnv);
  await buildPage(projects.peer, outDirs.peer, pageEnv);
  const servers = { ours: await startStaticServer(outDirs.ours), peer: await startStaticServer(outDirs.peer) };
  for (const server of Object.values(servers)) cleanups.push(() => server.stop());
  log(`serving ours at ${servers.ours.url}, the peer at ${servers.peer.url} (brotli/gzip, hashed assets cached for a year)`);
  const buildFiles = { ours: buildFilesOf(servers.ours), peer: buildFilesOf(servers.peer) };
  // Our build behind each other host, each on an origin of its own.
  /** @type {Record<string, string>} */
  const hostUrls = { advised: servers.ours.url };
  for (const host of MOBILE_HOSTS) {
    if (host.serve === 'advised') continue;
    const server = host.serve === 'vite preview' ? await previewOurs(outDirs.ours) : await startStaticServer(outDirs.ours, { headers: host.serve, files: servers.ours.files });
    cleanups.push(() => server.stop());
    hostUrls[host.id] = server.url;
    log(`ours behind ${host.label} at ${server.url}: ${host.headers}`);
  }

  /** @type {import('./mobile-targets.mjs').MobilePoint[]} */
  const points = [];
  /** @type {{ n: number, page: 'ours' | 'peer', run: number, bytes: any, serviceWorker: boolean, serviceWorkerWireBytes: number, workersThrottled: number, networkLater: any, repeatAnswers: any }[]} */
  const details = [];
  /** @type {import('./mobile-targets.mjs').MobileHostPoint[]} */
  const hostPoints = [];
  /** @type {{ n: number, host: string, run: number, repeatAnswers: import('./mobile-visits.mjs').RepeatAnswers, repeatNetwork: any }[]} */
  const hostDetails = [];
  let seeded = 0;
  const kB = (/** @type {number} */ bytes) => `${(bytes / 1000).toFixed(1)} kB`;
  const ms = (/** @type {number | null} */ value) => (value === null ? 'none' : `${Math.round(value)} ms`);
  for (const n of options.mobileSizes) {
    log(`seeding to ${n.toLocaleString('en')} entries`);
    await seed(backend, seeded, n);
    seeded = n;
    const count = await countEntries(backend);
    if (count !== n) throw new Error(`the table holds ${count} entries, expected ${n}`);
    /** @type {Record<'ours' | 'peer', import('./mobile-targets.mjs').MobilePoint>} */
    const byPage = { ours: { n, page: 'ours', runs: [] }, peer: { n, page: 'peer', runs: [] } };
    /** @type {Record<string, import('./mobile-targets.mjs').MobileHostPoint>} */
    const byHost = Object.fromEntries(MOBILE_HOSTS.map((host) => [host.id, { n, host: host.id, label: host.label, runs: [] }]));
    // The bench's own host's runs are ours above.
    byHost.advised.runs = byPage.ours.runs;
    const otherHosts = MOBILE_HOSTS.filter((host) => host.id !== 'advised');
    for (let index = 0; index < options.mobileRuns; index += 1) {
      /** @type {('ours' | 'peer')[]} */
      const order = index % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours'];
      for (const page of order) {
        const measured = await measureMobileVisits({ url: servers[page].url, timeoutMs: options.timeoutMs, buildFiles: buildFiles[page], serviceWorker: page === 'ours' });
        byPage[page].runs.push(measured.run);
        details.push({ n, page, run: index + 1, bytes: measured.bytes, serviceWorker: measured.serviceWorker, serviceWorkerWireBytes: measured.serviceWorkerWireBytes, workersThrottled: measured.workersThrottled, networkLater: measured.networkLater, repeatAnswers: measured.repeatAnswers });
        if (page === 'ours') hostDetails.push({ n, host: 'advised', run: index + 1, repeatAnswers: measured.repeatAnswers, repeatNetwork: measured.networkLater.repeat });
        const before = measured.bytes.beforeFirstPaint.all;
        log(
          `N=${n} ${page} run ${index + 1}/${options.mobileRuns}: first visit ${ms(measured.run.firstMs)}, repeat ${ms(measured.run.repeatMs)}, ` +
            `offline ${measured.run.offlineWorks ? `works (${ms(measured.run.offlineMs)})` : 'does not work'}; ` +
            `before first paint ${kB(before.gzip)} gzip / ${kB(before.brotli)} brotli in ${before.count} responses; ` +
            `precache ${kB(measured.bytes.precache.all.brotli)} brotli; service worker ${measured.serviceWorker ? 'yes' : 'no'}` +
            `${measured.run.problems.length > 0 ? `; problems: ${measured.run.problems.join(' | ')}` : ''}`,
        );
      }
      // The other hosts in turn, each run starting with another, so a busy moment does not always fall on one.
      for (let turn = 0; turn < otherHosts.length; turn += 1) {
        const host = otherHosts[(index + turn) % otherHosts.length];
        const measured = await measureMobileVisits({ url: hostUrls[host.id], timeoutMs: options.timeoutMs, buildFiles: buildFiles.ours, serviceWorker: true });
        byHost[host.id].runs.push(measured.run);
        hostDetails.push({ n, host: host.id, run: index + 1, repeatAnswers: measured.repeatAnswers, repeatNetwork: measured.networkLater.repeat });
        const answers = measured.repeatAnswers;
        log(
          `N=${n} ours behind ${host.label} run ${index + 1}/${options.mobileRuns}: first visit ${ms(measured.run.firstMs)}, repeat ${ms(measured.run.repeatMs)} ` +
            `(document from ${answers.document} at ${ms(answers.documentMs)}, kept cards in the list at ${ms(answers.keptCardsMs)}; ` +
            `files from the worker / the browser ${answers.files ? `${answers.files.worker} / ${answers.files.browser}` : 'n/a'}; ` +
            `${answers.network.length} requests over the network: ` +
            `${answers.network.map((r) => `${r.byServiceWorker ? 'worker ' : ''}${r.path} ${r.status}`).join(', ') || 'none'})` +
            `${measured.run.problems.length > 0 ? `; problems: ${measured.run.problems.join(' | ')}` : ''}`,
        );
      }
    }
    points.push(byPage.ours, byPage.peer);
    hostPoints.push(...MOBILE_HOSTS.map((host) => byHost[host.id]));
  }

  log('the page\'s first wasm by function (a named twin of its build)');
  // The logbook's wasm, which the first entries wait for; the live entries' (geocache_live_bg) loads after them.
  const wasmFiles = (await readdir(path.join(outDirs.ours, 'assets'))).filter(
    (name) => name.startsWith('geocache_client_bg-') && name.endsWith('.wasm'),
  );
  let wasmFunctions = null;
  if (wasmFiles.length === 1) {
    const shippedPath = path.join(outDirs.ours, 'assets', wasmFiles[0]);
    const namedDir = path.join(temp, 'named-wasm');
    await mkdir(namedDir, { recursive: true });
    const named = await analyseWasmFile(await buildNamedPageWasm(namedDir));
    const shipped = await analyseWasmFile(shippedPath);
    wasmFunctions = { named, shipped, shippedPath: `assets/${wasmFiles[0]}` };
  } else {
    log(`expected one geocache_client_bg .wasm in the build's assets, found ${wasmFiles.length}: no breakdown`);
  }

  const finished = new Date();
  const results = {
    schema: 1,
    mode: options.quick ? 'quick' : 'full',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationSeconds: (finished.getTime() - started.getTime()) / 1000,
    profile: MOBILE_PROFILE,
    viewport: MOBILE_VIEWPORT,
    options: { sizes: options.mobileSizes, runs: options.mobileRuns, timeoutMs: options.timeoutMs },
    machine: {
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      cpuCount: os.cpus().length,
      loadAverage: { start: loadStart, end: os.loadavg() },
      node: process.version,
      chromium: await chromiumVersion(),
    },
    git: gitState(),
    points,
    summaries: points.map((p) => ({ n: p.n, page: p.page, ...summarizeRuns(p.runs, options.timeoutMs) })),
    details,
    hosts: MOBILE_HOSTS.map(({ id, label, headers }) => ({ id, label, headers })),
    hostPoints,
    hostSummaries: hostPoints.map((p) => ({ n: p.n, host: p.host, label: p.label, ...summarizeRuns(p.runs, options.timeoutMs) })),
    hostDetails,
    wasm: wasmFunctions && {
      shippedPath: wasmFunctions.shippedPath,
      shippedBytes: wasmFunctions.shipped.totalBytes,
      namedCodeBytes: wasmFunctions.named.sections.find((s) => s.id === 10)?.size ?? null,
      shippedCodeBytes: wasmFunctions.shipped.sections.find((s) => s.id === 10)?.size ?? null,
      largest: wasmFunctions.named.functions.slice(0, 20),
    },
    targets: evaluateMobileTargets(points, options.timeoutMs, hostPoints),
  };
  return { results, wasmFunctions };
}

export { renderWasmFunctions };
