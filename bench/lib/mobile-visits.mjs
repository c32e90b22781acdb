// @ts-check
/* global document, requestAnimationFrame, caches, FileReader, location */
// One mobile measurement of one page: three visits in one persistent browser profile (a fresh one each time), all
// under the mobile profile. First visit with empty caches; once it has settled (the service worker, if the page
// registers one, installed and its precache stored), a second navigation with warm caches; then the same once more
// with the network offline. Each visit's figure is navigation start to the first frame painted with an entry card.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { accountFirstVisit, answeredBy, totalOf } from './byte-accounting.mjs';
import { assetKind, compressedSizes } from './assets.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.mjs';
import { applyMobileProfile, MOBILE_PROFILE, MOBILE_VIEWPORT } from './mobile-profile.mjs';

/** The console line the probe below writes, followed by the time on the page's clock. */
export const FIRST_CARD_LINE = 'bench:first-card-painted';

/**
 * Init script (serialised by Playwright: nothing from this module's scope). Stamps, on the page's clock, the first
 * frame painted with an entry card in it: the card is in the DOM when a frame's animation callbacks run, and a
 * message posted from there is handled once that frame's rendering is done. It says so on the console, which the
 * harness reads over the DevTools protocol: polling the page from the harness would run Playwright's own script in
 * it, on the main thread the page's first paint needs (about 40 ms with the CPU four times slower).
 */
export function installFirstCardProbe() {
  const watch = () => {
    if (document.querySelector('[data-testid="log-entry"]')) {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        console.debug('bench:first-card-painted', performance.now(), performance.timeOrigin);
        channel.port1.close();
      };
      channel.port2.postMessage(null);
      return;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

/**
 * @typedef {object} VisitResult
 * @property {number | null} firstCardMs   navigation start to the first entries painted (null: not within the limit)
 * @property {number | null} paintWallMs   the same instant in ms since the epoch
 * @property {string | null} error         why the visit showed nothing, if it did not
 */

/**
 * @param {import('playwright-core').Page} page
 * @param {string} url
 * @param {number} timeoutMs
 * @returns {Promise<VisitResult>}
 */
async function visit(page, url, timeoutMs) {
  try {
    // Listening before the navigation: a page that paints at once says so before goto returns.
    const painted = page.waitForEvent('console', { predicate: (message) => message.text().startsWith(`${FIRST_CARD_LINE} `), timeout: timeoutMs });
    painted.catch(() => undefined);
    await page.goto(url, { waitUntil: 'commit', timeout: timeoutMs });
    const [, ms, origin] = (await painted).text().split(' ').map(Number);
    if (ms === undefined || origin === undefined || !Number.isFinite(ms) || !Number.isFinite(origin)) throw new Error('the probe wrote no time');
    return { firstCardMs: ms, paintWallMs: origin + ms, error: null };
  } catch (error) {
    return { firstCardMs: null, paintWallMs: null, error: /** @type {Error} */ (error).message.split('\n')[0] };
  }
}

/**
 * Waits until the page has stored what a repeat visit may use: the service worker (if one is registered) active and
 * the network quiet, so its precache and any local copy of the entries are written. A page that registers its worker
 * only once its first entries are painted may not have yet when the network first goes quiet: when a worker is
 * expected, its activation is awaited whenever it registers, or the repeat visit would go to the host instead.
 * @param {import('playwright-core').Page} page
 * @param {number} timeoutMs
 * @param {boolean} expectServiceWorker
 */
async function settle(page, timeoutMs, expectServiceWorker) {
  await page.waitForLoadState('networkidle', { timeout: timeoutMs }).catch(() => undefined);
  const scriptUrl = await page
    .evaluate(
      async ({ limit, expected }) => {
        if (!('serviceWorker' in navigator)) return null;
        if (!expected && !(await navigator.serviceWorker.getRegistration())) return null;
        await Promise.race([navigator.serviceWorker.ready, new Promise((resolve) => setTimeout(resolve, limit))]);
        const registration = await navigator.serviceWorker.getRegistration();
        const worker = registration?.active ?? registration?.waiting ?? registration?.installing;
        return worker?.scriptURL ?? null;
      },
      { limit: timeoutMs, expected: expectServiceWorker },
    )
    .catch(() => null);
  if (scriptUrl !== null) await page.waitForLoadState('networkidle', { timeout: timeoutMs }).catch(() => undefined);
  // Writes after the last response (an IndexedDB copy of the entries) get a moment to land.
  await page.waitForTimeout(1000);
  return scriptUrl;
}

/**
 * Everything in the page's Cache Storage (a service worker's precache and runtime caches), with each body's sizes.
 * @param {import('playwright-core').Page} page
 */
async function readCaches(page) {
  const entries = await page.evaluate(async () => {
    if (typeof caches === 'undefined') return [];
    const out = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) {
        const response = await cache.match(request);
        if (!response) continue;
        const blob = await response.blob();
        const dataUrl = await new Promise((resolve) => {
          const reader = new FileReader();
          reader.onload = () => resolve(/** @type {string} */ (reader.result));
          reader.readAsDataURL(blob);
        });
        out.push({ cache: name, url: request.url, base64: /** @type {string} */ (dataUrl).slice(/** @type {string} */ (dataUrl).indexOf(',') + 1) });
      }
    }
    return out;
  });
  return entries.map(({ cache, url, base64 }) => {
    const body = Buffer.from(base64, 'base64');
    return { cache, url, ...compressedSizes(body, assetKind(new URL(url).pathname, '')) };
  });
}

/**
 * What answered a repeat visit, and what it still asked of the network: the host's caching headers decide what the
 * HTTP cache answers; a service worker may answer before either.
 * @typedef {object} RepeatAnswers
 * @property {'service worker' | 'service worker, from the network' | 'network' | 'HTTP cache' | 'unknown'} document
 *           what answered the navigation
 * @property {number | null} documentMs      navigation start to the document's last byte (Navigation Timing)
 * @property {number | null} keptCardsMs     navigation start to the kept cards put in the list (our page's mark;
 *           the first frame with them follows)
 * @property {{ worker: number, browser: number } | null} files  the page's own files the service worker answered, and
 *           those the browser took from its caches without asking it (a visit in the same tab, files still fresh)
 * @property {{ path: string, status: number, byServiceWorker: boolean }[]} network  every request that went to the
 *           network (revalidations included), the page's own and the service worker's, in the order they ended
 */

/**
 * @typedef {object} MobileVisits
 * @property {import('./mobile-targets.mjs').MobileRun} run
 * @property {ReturnType<typeof accountFirstVisit>} bytes
 * @property {boolean} serviceWorker             the page registered one during the first visit
 * @property {number} workersThrottled
 * @property {number} serviceWorkerWireBytes   what the service worker's own fetches carried over the wire
 * @property {Record<'repeat' | 'offline', import('./byte-accounting.mjs').Sizes & { requests: number, wireBytes: number }>} networkLater
 *           what the repeat and offline visits still asked of the network
 * @property {RepeatAnswers} repeatAnswers
 */

/**
 * @param {object} options
 * @param {string} options.url
 * @param {number} options.timeoutMs
 * @param {import('./byte-accounting.mjs').BuildFile[]} options.buildFiles
 * @param {boolean} [options.serviceWorker]  the page registers a service worker: the repeat visit waits for it
 * @returns {Promise<MobileVisits>}
 */
export async function measureMobileVisits({ url, timeoutMs, buildFiles, serviceWorker: expectServiceWorker = false }) {
  const origin = new URL(url).origin;
  const profileDir = await mkdtemp(path.join(os.tmpdir(), 'geocache-bench-profile-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: MOBILE_VIEWPORT,
    isMobile: true,
    hasTouch: true,
  });
  /** @type {string[]} */
  const problems = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message.slice(0, 300)}`));
    const profile = await applyMobileProfile(context, page);
    await page.addInitScript(installFirstCardProbe);

    /** @type {'first' | 'repeat' | 'offline'} */
    let phase = 'first';
    /** @type {Record<'first' | 'repeat' | 'offline', Promise<import('./byte-accounting.mjs').ResponseRecord | null>[]>} */
    const records = { first: [], repeat: [], offline: [] };
    /** @type {WeakMap<object, number>} each record's HTTP status */
    const statuses = new WeakMap();
    context.on('requestfinished', (request) => {
      const during = phase;
      const arrived = Date.now();
      records[during].push(
        (async () => {
          const response = await request.response();
          if (!response || request.method() === 'OPTIONS') return null;
          // A revalidation's 304 has no body of its own, but it is a request the visit waited on.
          const body = await response.body().catch(() => (response.status() === 304 ? Buffer.alloc(0) : null));
          if (body === null) return null;
          const responseUrl = new URL(request.url());
          if (responseUrl.protocol === 'data:' || responseUrl.protocol === 'blob:') return null;
          const timing = request.timing();
          // What crossed the network: 0 for an answer from the HTTP cache; a 304 revalidation still cost a round trip.
          const wire = await request.sizes().then((sizes) => sizes.responseBodySize).catch(() => 0);
          const endWallMs = timing.responseEnd >= 0 ? timing.startTime + timing.responseEnd : arrived;
          /** @type {import('./byte-accounting.mjs').ResponseRecord['kind']} */
          const kind = responseUrl.origin === origin ? assetKind(responseUrl.pathname, response.headers()['content-type'] ?? '') : 'api';
          const record = {
            url: request.url(),
            kind,
            endWallMs,
            byServiceWorker: request.serviceWorker() !== null,
            fromServiceWorker: response.fromServiceWorker(),
            network: !response.fromServiceWorker() && (wire > 0 || response.status() === 304),
            wireBytes: wire,
            ...compressedSizes(body, kind === 'api' ? 'other' : kind),
          };
          statuses.set(record, response.status());
          return record;
        })().catch(() => null),
      );
    });

    const first = await visit(page, url, timeoutMs);
    if (first.error) problems.push(`first visit: ${first.error}`);
    const serviceWorkerScript = await settle(page, timeoutMs, expectServiceWorker);
    if (expectServiceWorker && serviceWorkerScript === null) problems.push('no service worker was active before the repeat visit');
    await profile.setCpuRate(1); // reading the caches is the harness's work, not the page's
    const precache = await readCaches(page).catch((/** @type {Error} */ error) => {
      problems.push(`reading Cache Storage: ${error.message.split('\n')[0]}`);
      return [];
    });
    await profile.setCpuRate(MOBILE_PROFILE.cpuSlowdown);
    const firstResponses = /** @type {import('./byte-accounting.mjs').ResponseRecord[]} */ ((await Promise.all(records.first)).filter(Boolean));
    // When each body had arrived, as the page saw it (Resource Timing, on the clock the paint was stamped on): the
    // protocol's own finish events can come a little after the renderer already has the body, which would put a
    // response the first entries were painted from after that paint.
    const arrivals = await page
      .evaluate(() =>
        performance
          .getEntries()
          .filter((entry) => entry.entryType === 'navigation' || entry.entryType === 'resource')
          .map((entry) => ({ name: entry.name, end: /** @type {PerformanceResourceTiming} */ (entry).responseEnd + performance.timeOrigin })),
      )
      .catch(() => []);
    for (const record of firstResponses) {
      const index = arrivals.findIndex((arrival) => arrival.name === record.url);
      if (index < 0 || record.byServiceWorker) continue;
      record.endWallMs = arrivals[index].end;
      arrivals.splice(index, 1);
    }

    phase = 'repeat';
    const repeat = await visit(page, url, timeoutMs);
    if (repeat.error) problems.push(`repeat visit: ${repeat.error}`);
    await page.waitForLoadState('networkidle', { timeout: timeoutMs }).catch(() => undefined);
    // From the page's own timings: when the document and the kept cards (our page's mark) were there, and which of
    // the page's files its service worker answered and which the browser took from its own caches.
    const repeatTimings = await page
      .evaluate(() => {
        const [navigation] = /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType('navigation'));
        const own = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType('resource')).filter((r) => new URL(r.name).origin === location.origin);
        return {
          documentMs: navigation ? navigation.responseEnd : null,
          keptCardsMs: performance.getEntriesByName('geocache:kept-entries-painted')[0]?.startTime ?? null,
          files: { worker: own.filter((r) => r.workerStart > 0).length, browser: own.filter((r) => !(r.workerStart > 0) && r.transferSize === 0).length },
        };
      })
      .catch(() => ({ documentMs: null, keptCardsMs: null, files: null }));

    phase = 'offline';
    await profile.setOffline(true);
    const offline = await visit(page, url, Math.min(timeoutMs, 20_000));
    /** What a later visit still asked of the network: requests (revalidations included) and body bytes on the wire. */
    const network = async (/** @type {'repeat' | 'offline'} */ which) => {
      const fetched = /** @type {import('./byte-accounting.mjs').ResponseRecord[]} */ ((await Promise.all(records[which])).filter((r) => r !== null && r.network));
      return { requests: fetched.length, wireBytes: fetched.reduce((sum, r) => sum + r.wireBytes, 0), ...totalOf(fetched.filter((r) => r.wireBytes > 0)) };
    };
    const serviceWorkerUrls = [
      ...(serviceWorkerScript === null ? [] : [serviceWorkerScript]),
      ...profile.workerResponses().map((r) => r.url),
    ].filter((u) => u.startsWith(origin));
    const repeatRecords = /** @type {import('./byte-accounting.mjs').ResponseRecord[]} */ ((await Promise.all(records.repeat)).filter(Boolean));
    /** @type {RepeatAnswers} */
    const repeatAnswers = {
      document: answeredBy(repeatRecords, url),
      ...repeatTimings,
      network: repeatRecords
        .filter((r) => r.network)
        .sort((a, b) => a.endWallMs - b.endWallMs)
        .map((r) => ({ path: new URL(r.url).pathname, status: statuses.get(r) ?? 0, byServiceWorker: r.byServiceWorker })),
    };
    const bytes = accountFirstVisit({ responses: firstResponses, firstPaintWallMs: first.paintWallMs, precache, buildFiles, serviceWorkerUrls });
    return {
      run: {
        firstMs: first.firstCardMs !== null && first.firstCardMs <= timeoutMs ? first.firstCardMs : null,
        repeatMs: repeat.firstCardMs !== null && repeat.firstCardMs <= timeoutMs ? repeat.firstCardMs : null,
        offlineWorks: offline.firstCardMs !== null,
        offlineMs: offline.firstCardMs,
        offlineError: offline.error,
        bytesBeforePaint: first.paintWallMs === null ? null : { gzip: bytes.beforeFirstPaint.all.gzip, brotli: bytes.beforeFirstPaint.all.brotli },
        problems,
      },
      bytes,
      serviceWorker: serviceWorkerScript !== null,
      serviceWorkerWireBytes: profile.workerResponses().reduce((sum, r) => sum + r.wireBytes, 0),
      workersThrottled: profile.workersThrottled(),
      networkLater: { repeat: await network('repeat'), offline: await network('offline') },
      repeatAnswers,
    };
  } finally {
    await context.close().catch(() => undefined);
    await rm(profileDir, { recursive: true, force: true }).catch(() => undefined);
  }
}
