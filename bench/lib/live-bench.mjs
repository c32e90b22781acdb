// @ts-check
/* global window */
// The live logbook's benchmark: our page's production build open on a logbook of N entries while a second client
// inserts over REST. (1) From the insert's request to the open page painting the new entry, K times, one at a time.
// (2) The page left open with an insert every second: its JS heap (after a garbage collection) every 10 s, first
// minute against last.
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumVersion, VIEWPORT } from './browser.mjs';
import { cleanups, gitState, startRun } from './bench.mjs';
import { installArrivalProbe } from './live-probe.mjs';
import { heapTrend, quantile } from './live-stats.mjs';
import { buildOurs, previewOurs } from './pages.mjs';
import { countEntries, seed } from './rest.mjs';

/** @param {string} message */
const log = (message) => console.log(`bench (live): ${message}`);

/** The target: an entry signed elsewhere shows within 2 s. */
export const LIVE_P95_MAX_MS = 2000;
/** Seconds between heap samples of the heap run. */
const HEAP_EVERY_SECONDS = 10;
/** How long one insert may take to show before it counts as lost. */
const PAINT_TIMEOUT_MS = 10_000;

/**
 * @param {import('./rest.mjs').Backend} backend
 * @param {string} name
 */
async function insertElsewhere(backend, name) {
  const response = await fetch(`${backend.url}/rest/v1/geocache_logs`, {
    method: 'POST',
    headers: {
      apikey: backend.serviceRoleKey,
      Authorization: `Bearer ${backend.serviceRoleKey}`,
      'Content-Type': 'application/json',
      Prefer: 'return=minimal',
    },
    body: JSON.stringify({ name, message: 'signed by the benchmark\'s second client' }),
  });
  if (!response.ok) throw new Error(`inserting ${name}: HTTP ${response.status} ${await response.text()}`);
}

/**
 * Asks the page's probe to stamp the card named `name` when it is painted (before its insert is sent).
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
async function watch(page, name) {
  await page.evaluate((watched) => /** @type {any} */ (window).__liveWatch(watched), name);
}

/**
 * When the page painted the card named `name` (ms since the epoch), or null when it did not within the limit.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
async function paintedAt(page, name) {
  try {
    const handle = await page.waitForFunction((wanted) => /** @type {any} */ (window).__livePainted(wanted), name, {
      polling: 20,
      timeout: PAINT_TIMEOUT_MS,
    });
    return /** @type {number} */ (await handle.jsonValue());
  } catch {
    return null;
  }
}

/**
 * Resolves once the page's realtime channel is joined (the server's reply to its join).
 * @param {import('playwright-core').Page} page
 */
function channelJoined(page) {
  return new Promise((resolve) => {
    page.on('websocket', (socket) => {
      socket.on('framereceived', ({ payload }) => {
        const text = typeof payload === 'string' ? payload : payload.toString('utf8');
        if (text.includes('phx_reply') && text.includes('"ok"') && text.includes('postgres_changes')) resolve(undefined);
      });
    });
  });
}

/**
 * @param {import('./options.mjs').BenchOptions} options
 */
export async function runLiveBenchmark(options) {
  const { started, loadStart, temp, backend } = await startRun(options, 'bench-live', log);
  const outDir = path.join(temp, 'ours');
  log('building our page (production build, logbook open)');
  await buildOurs(outDir, { VITE_SUPABASE_URL: backend.url, VITE_SUPABASE_ANON_KEY: backend.anonKey, VITE_LOGBOOK_OPEN: 'true' });
  const server = await previewOurs(outDir);
  cleanups.push(() => server.stop());
  const n = options.liveSize;
  log(`seeding to ${n.toLocaleString('en')} entries`);
  await seed(backend, 0, n);
  const count = await countEntries(backend);
  if (count !== n) throw new Error(`the table holds ${count} entries, expected ${n}`);

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  cleanups.push(() => browser.close());
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(installArrivalProbe);
  const page = await context.newPage();
  const joined = channelJoined(page);
  await page.goto(server.url);
  await page.getByTestId('log-entry').first().waitFor({ timeout: options.timeoutMs });
  await Promise.race([joined, page.waitForTimeout(options.timeoutMs).then(() => Promise.reject(new Error('the page never joined its channel')))]);
  // The catch-up read that follows the join settles before the first insert.
  await page.waitForLoadState('networkidle');

  log(`latency: ${options.liveSamples} inserts, one at a time`);
  /** @type {(number | null)[]} */
  const latencies = [];
  for (let index = 1; index <= options.liveSamples; index += 1) {
    const name = `live-bench-latency-${index}`;
    await watch(page, name);
    const sent = Date.now();
    await insertElsewhere(backend, name);
    const painted = await paintedAt(page, name);
    latencies.push(painted === null ? null : painted - sent);
    await page.waitForTimeout(250);
  }
  const shown = /** @type {number[]} */ (latencies.filter((value) => value !== null));
  const latency = {
    samples: latencies,
    medianMs: quantile(shown, 0.5),
    p95Ms: quantile(shown, 0.95),
    lost: latencies.length - shown.length,
  };
  log(`latency: median ${latency.medianMs?.toFixed(0)} ms, p95 ${latency.p95Ms?.toFixed(0)} ms, ${latency.lost} not shown within ${PAINT_TIMEOUT_MS / 1000} s`);

  log(`heap: the page open for ${options.liveSeconds} s with an insert every second`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  // The lower of two readings half a second apart, each after a garbage collection: an insert or a device-copy
  // write in flight holds a few MB for a moment, which is not what the page keeps.
  const sampleHeap = async (/** @type {number} */ atSeconds) => {
    let used = Number.POSITIVE_INFINITY;
    for (let reading = 0; reading < 2; reading += 1) {
      if (reading > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      await cdp.send('HeapProfiler.collectGarbage');
      used = Math.min(used, (await cdp.send('Runtime.getHeapUsage')).usedSize);
    }
    const { metrics } = await cdp.send('Performance.getMetrics');
    // Read over CDP, not page.evaluate: Playwright's own script for an evaluation would run (and be compiled) in
    // the page being measured.
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'window.__liveWasmBytes()', returnByValue: true });
    const wasmBytes = /** @type {number} */ (result.value);
    // None found would read as flat: the probe missed how the page instantiates its wasm.
    if (wasmBytes === 0) throw new Error('the page\'s wasm memory was not found (no instance through WebAssembly.instantiate*)');
    return { atSeconds, usedBytes: used, wasmBytes, nodes: metrics.find((metric) => metric.name === 'Nodes')?.value ?? 0 };
  };
  /** @type {import('./live-stats.mjs').HeapSample[]} */
  const heap = [await sampleHeap(0)];
  const heapStart = Date.now();
  let inserts = 0;
  for (let second = 1; second <= options.liveSeconds; second += 1) {
    inserts += 1;
    // Only the last insert is watched: whether it was shown is what the heap run reports.
    if (second === options.liveSeconds) await cdp.send('Runtime.evaluate', { expression: `window.__liveWatch(${JSON.stringify(`live-bench-heap-${second}`)})` });
    await insertElsewhere(backend, `live-bench-heap-${second}`);
    const wait = heapStart + second * 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (second % HEAP_EVERY_SECONDS === 0) {
      heap.push(await sampleHeap(second));
      if (second % 60 === 0) log(`heap: ${second} s, ${(/** @type {any} */ (heap.at(-1)).usedBytes / 1e6).toFixed(2)} MB used`);
    }
  }
  const lastShown = (await paintedAt(page, `live-bench-heap-${options.liveSeconds}`)) !== null;
  const trend = heapTrend(heap, options.liveSeconds);
  const wasmTrend = heapTrend(heap.map((sample) => ({ ...sample, usedBytes: sample.wasmBytes ?? 0 })), options.liveSeconds);
  const mb = (/** @type {number | null} */ bytes) => (bytes === null ? 'n/a' : `${(bytes / 1e6).toFixed(2)} MB`);
  log(`heap: first ${trend.windowSeconds} s ${mb(trend.firstBytes)}, last ${trend.windowSeconds} s ${mb(trend.lastBytes)}; last insert shown: ${lastShown}`);
  log(`wasm memory: first ${wasmTrend.windowSeconds} s ${mb(wasmTrend.firstBytes)}, last ${wasmTrend.windowSeconds} s ${mb(wasmTrend.lastBytes)}`);
  await browser.close();

  const finished = new Date();
  return {
    schema: 1,
    mode: options.quick ? 'quick' : 'full',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationSeconds: (finished.getTime() - started.getTime()) / 1000,
    options: { n, samples: options.liveSamples, heapSeconds: options.liveSeconds },
    machine: {
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      cpuCount: os.cpus().length,
      loadAverage: { start: loadStart, end: os.loadavg() },
      node: process.version,
      chromium: await chromiumVersion(),
    },
    git: gitState(),
    latency,
    heap: { inserts, samples: heap, trend, wasmTrend, lastInsertShown: lastShown },
    targets: [
      {
        target: `N = ${n.toLocaleString('en')}: an entry inserted elsewhere is painted within ${LIVE_P95_MAX_MS / 1000} s (p95), none lost`,
        measured: `median ${latency.medianMs?.toFixed(0) ?? 'n/a'} ms, p95 ${latency.p95Ms?.toFixed(0) ?? 'n/a'} ms, ${latency.lost} lost`,
        met: latency.p95Ms !== null && latency.p95Ms <= LIVE_P95_MAX_MS && latency.lost === 0,
      },
      {
        // Both memories: an entry moved from the JS heap into wasm memory is still memory the page keeps.
        target: `the JS heap and the wasm memory of a page open ${options.liveSeconds} s with an insert a second stay flat (each grows < 1 MB and < 10 %)`,
        measured:
          `JS heap: first ${trend.windowSeconds} s ${mb(trend.firstBytes)}, last ${trend.windowSeconds} s ${mb(trend.lastBytes)}; ` +
          `wasm memory: first ${mb(wasmTrend.firstBytes)}, last ${mb(wasmTrend.lastBytes)}`,
        met: trend.flat === null || wasmTrend.flat === null ? null : trend.flat && wasmTrend.flat && lastShown,
      },
    ],
  };
}

/**
 * live.md: the figures of one live run.
 * @param {any} results  the object written to live.json
 */
export function renderLiveMarkdown(results) {
  const { machine, latency, heap } = results;
  const mb = (/** @type {number | null} */ bytes) => (bytes === null ? 'n/a' : `${(bytes / 1e6).toFixed(2)} MB`);
  const out = [
    '# The live logbook: an insert elsewhere to the open page painting it',
    '',
    `${results.mode === 'quick' ? '**Quick run**: figures for development only. ' : ''}` +
      `Run ${results.startedAt} (${Math.round(results.durationSeconds)} s), commit ${results.git.commit.slice(0, 10)}${results.git.dirty ? ' with uncommitted changes' : ''}. ` +
      `${machine.cpuCount} × ${machine.cpuModel}, ${machine.os}; Node ${machine.node}, Chromium ${machine.chromium} (headless). ` +
      `Load average ${machine.loadAverage.start.map((/** @type {number} */ l) => l.toFixed(1)).join(' / ')} at the start and ` +
      `${machine.loadAverage.end.map((/** @type {number} */ l) => l.toFixed(1)).join(' / ')} at the end.`,
    '',
    `Our page's production build, open on a logbook of N = ${results.options.n.toLocaleString('en')} entries (the emulator, ` +
      'over SQLite), subscribed to its inserts over the realtime channel. A second client inserts over REST (service-role key). ' +
      'Latency runs from just before the insert\'s request to the first frame painted with the new card.',
    '',
    '## Targets',
    '',
    '| Target | Measured | Met |',
    '| --- | --- | --- |',
    ...results.targets.map((/** @type {any} */ t) => `| ${t.target} | ${t.measured} | ${t.met === null ? 'not measured' : t.met ? '**met**' : 'not met'} |`),
    '',
    '## Insert to paint',
    '',
    `${latency.samples.length} inserts, one at a time: median **${latency.medianMs?.toFixed(0) ?? 'n/a'} ms**, p95 **${latency.p95Ms?.toFixed(0) ?? 'n/a'} ms**, ` +
      `${latency.lost} not shown within 10 s.`,
    '',
    '## Heap of a page left open',
    '',
    `${heap.inserts} inserts, one a second, for ${results.options.heapSeconds} s; the page's JS heap after a forced garbage collection ` +
      `every ${HEAP_EVERY_SECONDS} s (\`Runtime.getHeapUsage\`, the lower of two readings half a second apart; the wasm memory is not in it; the benchmark's probe in the page keeps nothing per insert). Mean of the first ${heap.trend.windowSeconds} s: ` +
      `**${mb(heap.trend.firstBytes)}**; of the last ${heap.trend.windowSeconds} s: **${mb(heap.trend.lastBytes)}**. The last insert was ` +
      `${heap.lastInsertShown ? '' : '**not** '}shown.`,
    '',
    `Beside it, the page's wasm linear memory (\`memory.buffer.byteLength\` of its instances: it only grows, in 64 kB ` +
      `pages, so it is the high-water mark of what the wasm allocator asked for). Mean of the first ${heap.wasmTrend.windowSeconds} s: ` +
      `**${mb(heap.wasmTrend.firstBytes)}**; of the last ${heap.wasmTrend.windowSeconds} s: **${mb(heap.wasmTrend.lastBytes)}**.`,
    '',
    '| Seconds | JS heap used | Wasm memory | DOM nodes |',
    '| ---: | ---: | ---: | ---: |',
    ...heap.samples.map((/** @type {any} */ s) => `| ${s.atSeconds} | ${mb(s.usedBytes)} | ${mb(s.wasmBytes)} | ${s.nodes} |`),
  ];
  return out.join('\n');
}
