import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountFirstVisit } from './byte-accounting.mjs';
import { MOBILE_PROFILE, MOBILE_VIEWPORT } from './mobile-profile.mjs';
import { renderMobileMarkdown } from './mobile-report.mjs';
import { evaluateMobileTargets, summarizeRuns } from './mobile-targets.mjs';

/** @param {Partial<import('./mobile-targets.mjs').MobileRun>} fields @returns {import('./mobile-targets.mjs').MobileRun} */
const run = (fields) => ({ firstMs: 900, repeatMs: 200, offlineWorks: true, offlineMs: 150, bytesBeforePaint: { gzip: 90_000, brotli: 80_000 }, problems: [], ...fields });

test('mobile.md states the profile, judges every target and splits the bytes', () => {
  const points = /** @type {import('./mobile-targets.mjs').MobilePoint[]} */ ([
    { n: 100, page: 'ours', runs: [run({})] },
    { n: 100, page: 'peer', runs: [run({ firstMs: 2000, repeatMs: 1500, offlineWorks: false, offlineMs: null, bytesBeforePaint: { gzip: 150_000, brotli: 120_000 }, problems: ['page error: x'] })] },
  ]);
  const bytes = accountFirstVisit({
    firstPaintWallMs: 10,
    responses: [{ url: 'http://h/', kind: 'html', endWallMs: 5, byServiceWorker: false, fromServiceWorker: false, network: true, wireBytes: 400, raw: 1000, gzip: 500, brotli: 400 }],
    precache: [{ url: 'http://h/assets/a.js', raw: 10, gzip: 5, brotli: 4 }],
    buildFiles: [{ path: '/sw.js', kind: 'js', raw: 3000, gzip: 1200, brotli: 1000 }],
    serviceWorkerUrls: ['http://h/sw.js'],
  });
  const later = { requests: 1, wireBytes: 0, count: 0, raw: 0, gzip: 0, brotli: 0 };
  const hostPoints = [
    { n: 100, host: 'advised', label: 'the bench\'s static host', runs: points[0].runs },
    { n: 100, host: 'revalidate', label: 'a host revalidating everything', runs: [run({ repeatMs: 300 })] },
  ];
  const answers = {
    document: 'service worker',
    documentMs: 41.6,
    keptCardsMs: 180.2,
    files: { worker: 25, browser: 0 },
    network: [
      { path: '/rest/v1/geocache_logs', status: 200, byServiceWorker: false },
      { path: '/service-worker.js', status: 304, byServiceWorker: false },
    ],
  };
  const markdown = renderMobileMarkdown({
    mode: 'quick',
    startedAt: '2026-11-24T00:00:00.000Z',
    durationSeconds: 100,
    profile: MOBILE_PROFILE,
    viewport: MOBILE_VIEWPORT,
    options: { sizes: [100], runs: 1, timeoutMs: 90_000 },
    machine: { cpuCount: 2, cpuModel: 'cpu', os: 'os', node: 'v20', chromium: '156', loadAverage: { start: [1, 1, 1], end: [2, 2, 2] } },
    git: { commit: 'abcdef0123456789', dirty: false },
    points,
    summaries: points.map((p) => ({ n: p.n, page: p.page, ...summarizeRuns(p.runs, 90_000) })),
    details: ['ours', 'peer'].map((page) => ({ n: 100, page, run: 1, bytes, serviceWorker: page === 'ours', serviceWorkerWireBytes: 1100, workersThrottled: 1, networkLater: { repeat: later, offline: later } })),
    hosts: [
      { id: 'advised', label: 'the bench\'s static host', headers: 'assets/ cached for a year' },
      { id: 'revalidate', label: 'a host revalidating everything', headers: 'every file revalidated' },
    ],
    hostPoints,
    hostSummaries: hostPoints.map((p) => ({ n: p.n, host: p.host, label: p.label, ...summarizeRuns(p.runs, 90_000) })),
    hostDetails: hostPoints.map((p) => ({ n: 100, host: p.host, run: 1, repeatAnswers: answers, repeatNetwork: later })),
    wasm: null,
    targets: evaluateMobileTargets(points, 90_000, hostPoints),
  });
  assert.match(markdown, /\*\*Quick run\*\*/);
  assert.match(markdown, /150 ms round trip, 1\.6 Mbit\/s down, 750 kbit\/s up/);
  assert.match(markdown, /CPU 4× slower/);
  assert.equal((markdown.match(/\*\*met\*\*/g) ?? []).length, 5);
  assert.match(markdown, /\| 100 \| ours \| 900 ms \| 200 ms \| works \|/);
  assert.match(markdown, /\| 100 \| peer \| 2,000 ms \| 1,500 ms \| does not work \|/);
  assert.match(markdown, /1\.2 \/ 1\.0 \(1\); 1\.1 kB on the wire/); // the service worker's script
  assert.match(markdown, /N = 100 peer run 1: page error: x/);
  assert.match(
    markdown,
    /\| 100 \| a host revalidating everything \| every file revalidated \| 900 ms \| 300 ms \| 0\.20 \| service worker \(42 ms\) \| 180 ms \| 25 \/ 0 \| 2: `\/rest\/v1\/geocache_logs` 200, `\/service-worker\.js` 304 \|/,
  );
  assert.match(markdown, /repeat visit behind every host measured.*\| the bench's static host 200 ms \(ratio 0\.13\); a host revalidating everything 300 ms \(ratio 0\.20\); the peer 1,500 ms \| \*\*met\*\* \|/);
});
