// @ts-check
/* global document */
// What a first visit downloads: every response from the page's own origin, with its raw, gzip -9 and brotli
// (quality 11) sizes. The API calls go to the emulator's origin and are not assets.
import zlib from 'node:zlib';
import { closeBrowser, launchBrowser, VIEWPORT } from './browser.mjs';

/** @typedef {'html' | 'js' | 'css' | 'wasm' | 'other'} AssetKind */

/**
 * @typedef {object} Asset
 * @property {string} path
 * @property {AssetKind} kind
 * @property {number} raw
 * @property {number} gzip
 * @property {number} brotli
 */

/**
 * @param {string} path
 * @param {string} contentType
 * @returns {AssetKind}
 */
export function assetKind(path, contentType) {
  if (/wasm/.test(contentType) || path.endsWith('.wasm')) return 'wasm';
  if (/javascript/.test(contentType) || /\.m?js$/.test(path)) return 'js';
  if (/css/.test(contentType) || path.endsWith('.css')) return 'css';
  if (/html/.test(contentType) || path.endsWith('/') || path.endsWith('.html')) return 'html';
  return 'other';
}

/**
 * @param {Buffer} body
 * @param {AssetKind} kind
 */
export function compressedSizes(body, kind) {
  const text = kind !== 'wasm' && kind !== 'other';
  return {
    raw: body.length,
    gzip: zlib.gzipSync(body, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_MODE]: text ? zlib.constants.BROTLI_MODE_TEXT : zlib.constants.BROTLI_MODE_GENERIC,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }).length,
  };
}

/**
 * Totals by kind, and "code": everything but the HTML (JS + wasm + CSS), the figure the download target compares.
 * @param {Asset[]} assets
 */
export function assetTotals(assets) {
  const zero = () => ({ count: 0, raw: 0, gzip: 0, brotli: 0 });
  /** @type {Record<AssetKind | 'code' | 'all', { count: number, raw: number, gzip: number, brotli: number }>} */
  const totals = { html: zero(), js: zero(), css: zero(), wasm: zero(), other: zero(), code: zero(), all: zero() };
  for (const asset of assets) {
    for (const key of [asset.kind, 'all', ...(['js', 'css', 'wasm'].includes(asset.kind) ? ['code'] : [])]) {
      const total = totals[/** @type {keyof typeof totals} */ (key)];
      total.count += 1;
      total.raw += asset.raw;
      total.gzip += asset.gzip;
      total.brotli += asset.brotli;
    }
  }
  return totals;
}

/** Strings only the logbook client's code contains (wasm-bindgen glue, the REST path and table, its calls). */
const CLIENT_CODE = /__wbg_|__wbindgen|geocache_logs|\/rest\/v1|listEntries|signLogbook/;

/**
 * Loads the page once in a fresh browser and records what it downloads from its own origin.
 * @param {string} url
 * @param {{ until: 'entry-card' | 'network-idle', timeoutMs: number }} options
 */
export async function measureAssets(url, { until, timeoutMs }) {
  const origin = new URL(url).origin;
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    /** @type {Promise<(Asset & { clientCode: boolean }) | null>[]} */
    const pending = [];
    /** @type {string[]} */
    const otherOrigins = [];
    /** @type {string[]} */
    const problems = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console.error: ${message.text().slice(0, 300)}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message.slice(0, 300)}`));
    page.on('response', (response) => {
      const responseUrl = new URL(response.url());
      if (responseUrl.protocol === 'data:') return;
      if (responseUrl.origin !== origin) {
        otherOrigins.push(`${response.request().method()} ${responseUrl.origin}${responseUrl.pathname}`);
        return;
      }
      pending.push(
        (async () => {
          const body = await response.body().catch(() => null);
          if (body === null) return null;
          const kind = assetKind(responseUrl.pathname, response.headers()['content-type'] ?? '');
          const clientCode = kind === 'js' && CLIENT_CODE.test(body.toString('utf8'));
          return { path: responseUrl.pathname, kind, ...compressedSizes(body, kind), clientCode };
        })(),
      );
    });
    await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    // A page that never shows an entry is reported (its downloads so far are still measured), not fatal.
    if (until === 'entry-card') {
      await page
        .locator('[data-testid="log-entry"]')
        .first()
        .waitFor({ timeout: timeoutMs })
        .catch((/** @type {Error} */ error) => problems.push(`no entry card: ${error.message.split('\n')[0]}`));
    }
    await page.waitForLoadState('networkidle', { timeout: timeoutMs });
    const firstContentfulPaintMs = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    );
    const assets = /** @type {(Asset & { clientCode: boolean })[]} */ ((await Promise.all(pending)).filter(Boolean));
    assets.sort((a, b) => a.kind.localeCompare(b.kind) || a.path.localeCompare(b.path));
    return { assets, totals: assetTotals(assets), apiRequests: otherOrigins, firstContentfulPaintMs, problems };
  } finally {
    await closeBrowser(browser);
  }
}

/**
 * The teaser as served: its text with scripts disabled (so it is in the HTML and painted before any script
 * runs), compared with the text once scripts have run.
 * @param {string} url
 * @param {number} timeoutMs
 */
export async function teaserWithoutScripts(url, timeoutMs) {
  const browser = await launchBrowser();
  try {
    const read = async (/** @type {boolean} */ javaScriptEnabled) => {
      const context = await browser.newContext({ viewport: VIEWPORT, javaScriptEnabled });
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'networkidle', timeout: timeoutMs });
      const text = await page.evaluate(() => document.querySelector('main')?.innerText.trim() ?? '');
      await context.close();
      return text;
    };
    const withoutScripts = await read(false);
    const withScripts = await read(true);
    return {
      textWithoutScripts: withoutScripts,
      textWithScripts: withScripts,
      inServedHtml: withScripts.length > 0 && withoutScripts === withScripts,
    };
  } finally {
    await closeBrowser(browser);
  }
}
