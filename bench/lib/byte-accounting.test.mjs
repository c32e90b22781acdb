import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountFirstVisit, answeredBy, pathOf, totalOf } from './byte-accounting.mjs';

const PAINT = 10_000;
/**
 * @param {string} url
 * @param {Partial<import('./byte-accounting.mjs').ResponseRecord>} [extra]
 * @returns {import('./byte-accounting.mjs').ResponseRecord}
 */
const response = (url, extra = {}) => ({
  url,
  kind: 'js',
  endWallMs: PAINT - 1,
  byServiceWorker: false,
  fromServiceWorker: false,
  network: true,
  wireBytes: 350,
  raw: 1000,
  gzip: 400,
  brotli: 300,
  ...extra,
});
/** @returns {import('./byte-accounting.mjs').BuildFile} */
const file = (/** @type {string} */ path, /** @type {number} */ brotli = 30) => ({ path, kind: 'js', raw: 100, gzip: 40, brotli });

test('totals add every size and count the items', () => {
  assert.deepEqual(totalOf([{ raw: 1, gzip: 2, brotli: 3 }, { raw: 10, gzip: 20, brotli: 30 }]), { count: 2, raw: 11, gzip: 22, brotli: 33 });
  assert.deepEqual(totalOf([]), { count: 0, raw: 0, gzip: 0, brotli: 0 });
});

test('a precache URL is matched by its path, whatever revision query the service worker adds', () => {
  assert.equal(pathOf('http://127.0.0.1:1/index.html?__WB_REVISION__=abc'), '/index.html');
});

test('bytes before first paint count the page\'s responses whose bodies arrived by then, assets and API apart', () => {
  const bytes = accountFirstVisit({
    firstPaintWallMs: PAINT,
    responses: [
      response('http://127.0.0.1:1/', { kind: 'html', gzip: 100, brotli: 80 }),
      response('http://127.0.0.1:1/assets/app.js'),
      response('http://127.0.0.1:2/rest/v1/geocache_logs?limit=1000', { kind: 'api', gzip: 5000, brotli: 4000, endWallMs: PAINT }),
      // After paint: a later page of entries, and the service worker script.
      response('http://127.0.0.1:2/rest/v1/geocache_logs?or=x', { kind: 'api', endWallMs: PAINT + 1 }),
      response('http://127.0.0.1:1/sw.js', { endWallMs: PAINT + 500 }),
      // The service worker's own precache download is not the page's download before paint.
      response('http://127.0.0.1:1/assets/app.js?__WB_REVISION__=1', { byServiceWorker: true, endWallMs: PAINT - 5 }),
    ],
    precache: [],
    buildFiles: [],
  });
  assert.deepEqual(bytes.beforeFirstPaint.assets, { count: 2, raw: 2000, gzip: 500, brotli: 380 });
  assert.deepEqual(bytes.beforeFirstPaint.api, { count: 1, raw: 1000, gzip: 5000, brotli: 4000 });
  assert.equal(bytes.beforeFirstPaint.all.brotli, 4380);
  assert.equal(bytes.beforeFirstPaint.wireBytes, 3 * 350);
  assert.deepEqual(bytes.afterFirstPaint.items.map((r) => pathOf(r.url)), ['/rest/v1/geocache_logs', '/sw.js']);
});

test('a page that never painted an entry downloaded nothing "before first paint"', () => {
  const bytes = accountFirstVisit({ firstPaintWallMs: null, responses: [response('http://127.0.0.1:1/')], precache: [], buildFiles: [] });
  assert.equal(bytes.beforeFirstPaint.all.count, 0);
  assert.equal(bytes.afterFirstPaint.all.count, 1);
});

test('answers the service worker gave from its cache are no download', () => {
  const bytes = accountFirstVisit({
    firstPaintWallMs: PAINT,
    responses: [response('http://127.0.0.1:1/assets/app.js', { fromServiceWorker: true })],
    precache: [],
    buildFiles: [],
  });
  assert.equal(bytes.beforeFirstPaint.all.count, 0);
  assert.equal(bytes.afterFirstPaint.all.count, 0);
});

test('the precache is reported whole and by what the visit had not fetched before paint', () => {
  const bytes = accountFirstVisit({
    firstPaintWallMs: PAINT,
    responses: [response('http://127.0.0.1:1/assets/app.js')],
    precache: [
      { url: 'http://127.0.0.1:1/assets/app.js?__WB_REVISION__=1', raw: 1000, gzip: 400, brotli: 300 },
      { url: 'http://127.0.0.1:1/assets/sign-form.js', raw: 500, gzip: 200, brotli: 150 },
    ],
    buildFiles: [],
  });
  assert.equal(bytes.precache.all.brotli, 450);
  assert.deepEqual(bytes.precache.extra, { count: 1, raw: 500, gzip: 200, brotli: 150 });
});

test('"only when used" is every build file neither fetched nor precached, source maps and precompressed copies left out', () => {
  const bytes = accountFirstVisit({
    firstPaintWallMs: PAINT,
    responses: [response('http://127.0.0.1:1/'), response('http://127.0.0.1:1/assets/app.js'), response('http://127.0.0.1:1/sw.js', { endWallMs: PAINT + 1 })],
    precache: [{ url: 'http://127.0.0.1:1/assets/offline.js', raw: 1, gzip: 1, brotli: 1 }],
    buildFiles: [
      file('/index.html'),
      file('/assets/app.js'),
      file('/sw.js'),
      file('/assets/offline.js'),
      file('/assets/app.js.map'),
      file('/assets/app.js.br'),
      file('/assets/teaser.js', 70),
      file('/assets/teaser.js.gz'),
      file('/assets/data.gz'),
    ],
  });
  // `data.gz` has no `data` beside it: a file of its own.
  assert.deepEqual(bytes.onlyWhenUsed.items.map((f) => f.path), ['/assets/teaser.js', '/assets/data.gz']);
});

test('the service worker\'s script and the build files it fetched itself are apart from "only when used"', () => {
  const bytes = accountFirstVisit({
    firstPaintWallMs: PAINT,
    responses: [response('http://127.0.0.1:1/')],
    precache: [],
    buildFiles: [file('/index.html'), file('/sw.js', 10), file('/workbox-abc.js', 20), file('/assets/lazy.js', 5)],
    serviceWorkerUrls: ['http://127.0.0.1:1/sw.js', 'http://127.0.0.1:1/workbox-abc.js'],
  });
  assert.deepEqual(bytes.serviceWorker.items.map((f) => f.path), ['/sw.js', '/workbox-abc.js']);
  assert.equal(bytes.serviceWorker.all.brotli, 30);
  assert.deepEqual(bytes.onlyWhenUsed.items.map((f) => f.path), ['/assets/lazy.js']);
});

test('a repeat visit\'s navigation: the service worker\'s answer, from its cache or from the network, or the host\'s', () => {
  const page = 'http://h/';
  const documentFrom = (/** @type {Partial<import('./byte-accounting.mjs').ResponseRecord>} */ extra) => response(page, { kind: 'html', ...extra });
  assert.equal(answeredBy([documentFrom({ fromServiceWorker: true, network: false, wireBytes: 0 })], page), 'service worker');
  assert.equal(
    answeredBy(
      [
        documentFrom({ fromServiceWorker: true, network: false, wireBytes: 0 }),
        response('http://h/index.html?__WB_REVISION__=1', { kind: 'html', byServiceWorker: true }),
      ],
      page,
    ),
    'service worker, from the network',
  );
  assert.equal(answeredBy([documentFrom({})], page), 'network');
  assert.equal(answeredBy([documentFrom({ network: false, wireBytes: 0 })], page), 'HTTP cache');
  assert.equal(answeredBy([response('http://h/assets/a.js')], page), 'unknown');
});
