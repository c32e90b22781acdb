// @ts-check
// The owner's page (owner.html) under the mobile profile: what a first visit downloads (bytes on the wire, from the
// browser's own accounting) and how long until its sign-in form can be typed into. It makes no backend call before
// that (no stored session), so the build names a backend that is never reached.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { closeBrowser, launchBrowser } from './browser.mjs';
import { applyMobileProfile, MOBILE_PROFILE } from './mobile-profile.mjs';
import { buildOurs } from './pages.mjs';
import { quantileOfSorted } from './stats.mjs';
import { startStaticServer } from './static-server.mjs';

/** @param {string} message */
const log = (message) => console.log(`bench (owner page): ${message}`);

/** @param {number[]} values */
const median = (values) => /** @type {number} */ (quantileOfSorted([...values].sort((a, b) => a - b), 0.5));

/** A phone 390 px wide, as the owner's page is made for. */
const OWNER_VIEWPORT = Object.freeze({ width: 390, height: 844 });

/**
 * @typedef {object} OwnerVisit
 * @property {number} wireBytes      every response of the visit, as transferred (compressed)
 * @property {number} usableMs       navigation start until "Email:" is visible and enabled
 */

/**
 * One first visit of `url` in a fresh context under the mobile profile.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @returns {Promise<OwnerVisit>}
 */
async function firstVisit(browser, url) {
  const context = await browser.newContext({ viewport: OWNER_VIEWPORT });
  try {
    const page = await context.newPage();
    await applyMobileProfile(context, page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let wireBytes = 0;
    cdp.on('Network.loadingFinished', (event) => (wireBytes += event.encodedDataLength));
    await page.goto(url, { waitUntil: 'commit' });
    const email = page.getByLabel('Email:');
    await email.waitFor({ state: 'visible' });
    // Typeable: enabled, and the page's script has run (the field is React's, not served HTML).
    await email.waitFor({ state: 'attached' });
    await page.waitForFunction(() => !globalThis.document.querySelector('input[type="email"]:disabled'));
    if (!(await email.isEditable())) throw new Error('the sign-in form shows, but its e-mail field cannot be typed into');
    const usableMs = await page.evaluate(() => performance.now());
    // Whatever the page still fetches after the form (nothing, unless it changes) is counted too.
    await page.waitForLoadState('networkidle');
    return { wireBytes, usableMs };
  } finally {
    await context.close();
  }
}

/**
 * Builds the site, serves it as a static host does and measures `runs` first visits of owner.html.
 * @param {{ runs: number }} options
 */
export async function runOwnerBenchmark({ runs }) {
  const temp = await mkdtemp(path.join(os.tmpdir(), 'bench-owner-'));
  const browser = await launchBrowser();
  try {
    const outDir = path.join(temp, 'site');
    log('building the site (production build)');
    await buildOurs(outDir, { VITE_SUPABASE_URL: 'http://127.0.0.1:9', VITE_SUPABASE_ANON_KEY: 'bench-anon-key', VITE_LOGBOOK_OPEN: 'true' });
    const server = await startStaticServer(outDir);
    try {
      /** @type {OwnerVisit[]} */
      const visits = [];
      for (let run = 1; run <= runs; run += 1) {
        const visit = await firstVisit(browser, new URL('owner.html', server.url).href);
        log(`run ${run}: ${(visit.wireBytes / 1000).toFixed(1)} kB, usable after ${Math.round(visit.usableMs)} ms`);
        visits.push(visit);
      }
      return {
        date: new Date().toISOString(),
        profile: MOBILE_PROFILE,
        viewport: OWNER_VIEWPORT,
        runs: visits,
        medianWireBytes: median(visits.map((visit) => visit.wireBytes)),
        medianUsableMs: median(visits.map((visit) => visit.usableMs)),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await closeBrowser(browser);
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * The results as Markdown.
 * @param {Awaited<ReturnType<typeof runOwnerBenchmark>>} results
 */
export function renderOwnerMarkdown(results) {
  const { profile } = results;
  return [
    "# The owner's page (owner.html) on the phone profile",
    '',
    `${profile.latencyMs} ms RTT, ${profile.downloadKbitPerSecond / 1000} Mbit/s down, CPU ${profile.cpuSlowdown}x slower, ` +
      `${results.viewport.width} px wide; first visit, nothing cached, served brotli-compressed; median of ${results.runs.length} runs.`,
    '',
    '| measure | median |',
    '| --- | --- |',
    `| downloaded (on the wire) | ${(results.medianWireBytes / 1000).toFixed(1)} kB |`,
    `| time to usable (sign-in form typeable) | ${Math.round(results.medianUsableMs)} ms |`,
  ].join('\n');
}
