// A results object shaped like latest.json, for the targets and report tests.
import { compare } from './summary.mjs';

/** @param {Partial<import('./page-run.mjs').PageRun>} values */
export function pageRun(values = {}) {
  return {
    entriesInTable: 1000,
    entriesShown: 1000,
    restRequests: 2,
    hidesEntries: false,
    firstCardMs: 300,
    usableMs: 400,
    jsHeapBytes: 10_000_000,
    wasmMemoryBytes: 0,
    domHeapBytes: 1_000_000,
    domNodes: 500,
    cardsInDom: 40,
    scrollFrameMs: [16.7, 16.7, 16.6, 16.8],
    steadyScrollFrameMs: [16.7, 16.7, 16.6, 16.8],
    signMs: 100,
    problems: [],
    ...values,
  };
}

const totals = (/** @type {number} */ gzip) => ({
  html: { count: 1, raw: 900, gzip: 500, brotli: 400 },
  js: { count: 2, raw: gzip * 3, gzip, brotli: gzip - 10 },
  css: { count: 0, raw: 0, gzip: 0, brotli: 0 },
  wasm: { count: 0, raw: 0, gzip: 0, brotli: 0 },
  other: { count: 0, raw: 0, gzip: 0, brotli: 0 },
  code: { count: 2, raw: gzip * 3, gzip, brotli: gzip - 10 },
  all: { count: 3, raw: gzip * 3 + 900, gzip: gzip + 500, brotli: gzip + 390 },
});

/**
 * @param {{ oursRuns?: object, peerRuns?: object, oursGzip?: number, teaserAssets?: object[], inServedHtml?: boolean }} [overrides]
 */
export function sampleResults({ oursRuns = {}, peerRuns = {}, oursGzip = 50_000, teaserAssets, inServedHtml = true } = {}) {
  // Under the 1,000-row cap: ours reads every entry in pages (one request a page and the empty one that ends
  // it); the peer's one read shows the newest 1,000 and never the oldest entry past N = 1,000.
  const ours = (/** @type {number} */ n) => ({ entriesInTable: n, entriesShown: n, restRequests: Math.ceil(n / 1000) + 1 });
  const peer = (/** @type {number} */ n) => ({
    entriesInTable: n,
    entriesShown: Math.min(n, 1000),
    restRequests: 1,
    hidesEntries: n > 1000,
    usableMs: n > 1000 ? null : 8100,
  });
  const pages = [1000, 10_000, 100_000].flatMap((n) => [
    { n, page: /** @type {const} */ ('ours'), runs: [1, 2, 3].map(() => pageRun({ ...ours(n), ...oursRuns })) },
    {
      n,
      page: /** @type {const} */ ('peer'),
      runs: [
        pageRun({ firstCardMs: 8000, jsHeapBytes: 80_000_000, cardsInDom: n, signMs: 5000, ...peer(n), ...peerRuns }),
      ],
    },
  ]);
  return {
    mode: 'full',
    startedAt: '2026-11-22T04:00:00.000Z',
    durationSeconds: 600,
    options: { timeoutMs: 90_000 },
    viewport: { width: 1280, height: 800 },
    machine: { cpuCount: 2, cpuModel: 'Test CPU', memoryBytes: 24 * 2 ** 30, os: 'Linux', node: 'v20', chromium: '156', loadAverage: { start: [2, 2, 2], end: [1, 1, 1] } },
    versions: { git: { commit: 'abcdef1234567890', dirty: false } },
    assets: {
      ours: {
        logbook: { assets: [{ path: '/', kind: 'html', raw: 900, gzip: 500, brotli: 400 }], totals: totals(oursGzip) },
        teaser: {
          assets: teaserAssets ?? [{ path: '/assets/index.js', kind: 'js', raw: 100, gzip: 80, brotli: 70, clientCode: false }],
          totals: totals(10_000),
          firstContentfulPaintMs: 50,
        },
      },
      peer: { logbook: { assets: [], totals: totals(150_000) } },
    },
    teaser: { inServedHtml, textWithoutScripts: inServedHtml ? 'Somewhere' : '', textWithScripts: 'Somewhere' },
    pages,
    comparisons: compare(pages, 90_000),
    parsing: [
      { entries: 100_000, bytes: 2e7, variant: 'ours', median: 200, min: 190, max: 210, runs: 5, timeouts: 0, lowerBound: false, entriesPerSecond: 5e5, megabytesPerSecond: 100 },
      { entries: 100_000, bytes: 2e7, variant: 'peer-fetch-json-zod', median: 400, min: 390, max: 410, runs: 5, timeouts: 0, lowerBound: false, entriesPerSecond: 2.5e5, megabytesPerSecond: 50 },
    ],
    load: {
      tool: 'autocannon',
      entriesInTable: 100_000,
      reads: { name: 'reads of 100 entries', connections: 10, durationSeconds: 10, requestsPerSecond: 2500, latencyMs: { p50: 3, p90: 5, p99: 9 }, non2xx: 0, errors: 0, timeouts: 0, valid: true },
      inserts: { name: 'inserts', connections: 10, durationSeconds: 10, requestsPerSecond: 900, latencyMs: { p50: 9, p90: 12, p99: 30 }, non2xx: 0, errors: 0, timeouts: 0, valid: true },
    },
  };
}
