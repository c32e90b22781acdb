// @ts-check
// What a first mobile visit downloads, split by when it is needed: before the first entries are painted (the
// figure the byte target compares), later in the same visit, by the service worker for offline use (its
// precache), and only when used (build files the visit never fetched). Every size is raw, gzip -9 and brotli 11 of
// the body, whatever encoding it travelled in, so the two pages compare on the same footing.

/**
 * @typedef {object} Sizes
 * @property {number} count
 * @property {number} raw
 * @property {number} gzip
 * @property {number} brotli
 */

/**
 * @typedef {object} ResponseRecord
 * @property {string} url
 * @property {'html' | 'js' | 'css' | 'wasm' | 'other' | 'api'} kind   'api': the backend's answers (another origin)
 * @property {number} endWallMs           when its body had arrived (ms since the epoch)
 * @property {boolean} byServiceWorker    fetched by the service worker itself (its precache, its own fetches)
 * @property {boolean} fromServiceWorker  answered by the service worker to the page (no download of its own)
 * @property {boolean} network            it went to the network (not the HTTP cache, not the service worker)
 * @property {number} wireBytes           its body's bytes on the wire, as encoded (0 from a cache)
 * @property {number} raw
 * @property {number} gzip
 * @property {number} brotli
 */

/**
 * @typedef {object} BuildFile
 * @property {string} path   the URL path it is served at, e.g. /assets/index-abc.js
 * @property {'html' | 'js' | 'css' | 'wasm' | 'other'} kind
 * @property {number} raw
 * @property {number} gzip
 * @property {number} brotli
 */

/** @returns {Sizes} */
const zero = () => ({ count: 0, raw: 0, gzip: 0, brotli: 0 });

/**
 * @param {Iterable<{ raw: number, gzip: number, brotli: number }>} items
 * @returns {Sizes}
 */
export function totalOf(items) {
  const total = zero();
  for (const item of items) {
    total.count += 1;
    total.raw += item.raw;
    total.gzip += item.gzip;
    total.brotli += item.brotli;
  }
  return total;
}

/**
 * The path a URL names on its origin, without the query a service worker adds to revalidate (e.g.
 * `?__WB_REVISION__=...`).
 * @param {string} url
 */
export const pathOf = (url) => new URL(url).pathname;

/**
 * @typedef {object} FirstVisitBytes
 * @property {{ items: ResponseRecord[], assets: Sizes, api: Sizes, all: Sizes, wireBytes: number }} beforeFirstPaint
 * @property {{ items: ResponseRecord[], all: Sizes }} afterFirstPaint   the page's own fetches later in the visit
 * @property {{ items: { url: string, raw: number, gzip: number, brotli: number, fetchedBeforePaint: boolean }[], all: Sizes, extra: Sizes }} precache
 *           what the service worker keeps for offline use; `extra`: what of it the visit had not fetched before paint
 * @property {{ items: BuildFile[], all: Sizes }} serviceWorker  the worker's script and what it fetched itself (sized as
 *           the build's file at that path; other origins' answers are left out)
 * @property {{ items: BuildFile[], all: Sizes }} onlyWhenUsed   build files neither fetched in the visit nor precached
 */

/**
 * @param {object} input
 * @param {ResponseRecord[]} input.responses   every response of the first visit, the service worker's included
 * @param {number | null} input.firstPaintWallMs  when the first entries were painted (null: never; all is "after")
 * @param {{ url: string, raw: number, gzip: number, brotli: number }[]} input.precache  the service worker's caches
 * @param {BuildFile[]} input.buildFiles       the build's files (source maps left out: no visitor loads them)
 * @param {string[]} [input.serviceWorkerUrls]  the service worker's script and the URLs it fetched itself
 * @returns {FirstVisitBytes}
 */
export function accountFirstVisit({ responses, firstPaintWallMs, precache, buildFiles, serviceWorkerUrls = [] }) {
  const fetched = responses.filter((r) => !r.fromServiceWorker);
  const byPage = fetched.filter((r) => !r.byServiceWorker);
  const before = byPage.filter((r) => firstPaintWallMs !== null && r.endWallMs <= firstPaintWallMs);
  const after = byPage.filter((r) => !before.includes(r));
  const beforePaths = new Set(before.map((r) => pathOf(r.url)));
  const precacheItems = precache.map((entry) => ({ ...entry, fetchedBeforePaint: beforePaths.has(pathOf(entry.url)) }));
  const workerPaths = new Set(serviceWorkerUrls.map(pathOf));
  const workerFiles = buildFiles.filter((file) => workerPaths.has(file.path));
  const seenPaths = new Set([...fetched.map((r) => pathOf(r.url)), ...precache.map((entry) => pathOf(entry.url)), ...workerPaths]);
  const paths = new Set(buildFiles.map((file) => file.path));
  // A precompressed copy (`x.br`, `x.gz` beside `x`) is how the host sends `x`, not a file of its own.
  const precompressedCopy = (/** @type {string} */ file) => /\.(br|gz)$/.test(file) && paths.has(file.replace(/\.(br|gz)$/, ''));
  const unused = buildFiles.filter(
    (file) =>
      !file.path.endsWith('.map') &&
      !precompressedCopy(file.path) &&
      !seenPaths.has(file.path) &&
      !(file.path === '/index.html' && seenPaths.has('/')),
  );
  return {
    beforeFirstPaint: {
      items: before,
      assets: totalOf(before.filter((r) => r.kind !== 'api')),
      api: totalOf(before.filter((r) => r.kind === 'api')),
      all: totalOf(before),
      wireBytes: before.reduce((sum, r) => sum + r.wireBytes, 0),
    },
    afterFirstPaint: { items: after, all: totalOf(after) },
    precache: {
      items: precacheItems,
      all: totalOf(precacheItems),
      extra: totalOf(precacheItems.filter((entry) => !entry.fetchedBeforePaint)),
    },
    serviceWorker: { items: workerFiles, all: totalOf(workerFiles) },
    onlyWhenUsed: { items: unused, all: totalOf(unused) },
  };
}

/**
 * What answered the navigation to `url`, from the visit's responses: the page's own record of the document says
 * whether the service worker answered it, and the worker's record of the same file whether it asked the network.
 * @param {ResponseRecord[]} records
 * @param {string} url
 * @returns {'service worker' | 'service worker, from the network' | 'network' | 'HTTP cache' | 'unknown'}
 */
export function answeredBy(records, url) {
  const document = records.find((r) => r.url === url && !r.byServiceWorker);
  if (!document) return 'unknown';
  if (!document.fromServiceWorker) return document.network ? 'network' : 'HTTP cache';
  const path = new URL(url).pathname;
  const fetchedByWorker = records.some(
    (r) => r.byServiceWorker && r.network && r.kind === 'html' && [path, `${path}index.html`].includes(new URL(r.url).pathname),
  );
  return fetchedByWorker ? 'service worker, from the network' : 'service worker';
}
