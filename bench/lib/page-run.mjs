// @ts-check
/* global window */
// One measurement of one page at one N, in a fresh browser: first card painted, fully usable, heap after render,
// a scripted scroll through the list, and one sign.
import { closeBrowser, launchBrowser, VIEWPORT } from './browser.mjs';
import { installProbe } from './probe.mjs';

/** Frames of each scripted scroll. */
export const SCROLL_STEPS = 60;

/**
 * @typedef {object} PageRun
 * @property {number | null} firstCardMs     navigation start to the first card painted (null: timed out)
 * @property {number | null} usableMs        navigation start to the oldest entry painted after scrolling to the end
 * @property {number | null} jsHeapBytes     JSHeapUsedSize after a forced GC
 * @property {number | null} wasmMemoryBytes linear memory of the page's wasm instances (0 without wasm)
 * @property {number | null} domHeapBytes    Blink's own (embedder) heap: DOM nodes and the like
 * @property {number | null} domNodes
 * @property {number | null} cardsInDom      entry cards in the document after render (N unless virtualised)
 * @property {number[] | null} scrollFrameMs frame intervals while scrolling from the top to the end in equal jumps
 * @property {number[] | null} steadyScrollFrameMs frame intervals while scrolling 120 px a frame mid-list
 * @property {number | null} signMs          click on "Sign Logbook" to the reloaded list painted with it on top
 * @property {string[]} problems             console errors, page errors, timeouts: a run with problems is suspect
 */

/**
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 * @template T
 */
async function within(promise, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms)));
  try {
    return /** @type {T} */ (await Promise.race([promise, timeout]));
  } finally {
    clearTimeout(timer);
  }
}

class TimeoutError extends Error {
  /**
   * @param {string} what
   * @param {number} ms
   */
  constructor(what, ms) {
    super(`${what}: no result within ${ms / 1000} s`);
    this.name = 'TimeoutError';
  }
}

/**
 * @param {{ url: string, oldestCreatedAt: string, timeoutMs: number, sign: { name: string, message: string } }} options
 * @returns {Promise<PageRun>}
 */
export async function measurePage({ url, oldestCreatedAt, timeoutMs, sign }) {
  /** @type {PageRun} */
  const run = {
    firstCardMs: null,
    usableMs: null,
    jsHeapBytes: null,
    wasmMemoryBytes: null,
    domHeapBytes: null,
    domNodes: null,
    cardsInDom: null,
    scrollFrameMs: null,
    steadyScrollFrameMs: null,
    signMs: null,
    problems: [],
  };
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') run.problems.push(`console.error: ${message.text().slice(0, 300)}`);
    });
    page.on('pageerror', (error) => run.problems.push(`page error: ${error.message.slice(0, 300)}`));
    await page.addInitScript(installProbe, { oldestCreatedAt });

    // Load: first card, then every entry reachable.
    const loadStarted = Date.now();
    try {
      await page.goto(url, { waitUntil: 'commit', timeout: timeoutMs });
      await page.waitForFunction(() => /** @type {any} */ (window).__bench.marks.usablePainted !== null, undefined, {
        timeout: Math.max(1, timeoutMs - (Date.now() - loadStarted)),
        polling: 100,
      });
    } catch (error) {
      run.problems.push(`load: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }
    const marks = await within(page.evaluate(() => /** @type {any} */ (window).__bench.marks), 10_000, 'reading the marks').catch(() => null);
    // A stamp later than the limit (read once the page's main thread was free again) counts as a timeout.
    const inTime = (/** @type {number | null | undefined} */ stamp, /** @type {string} */ what) => {
      if (stamp === null || stamp === undefined) return null;
      if (stamp <= timeoutMs) return stamp;
      run.problems.push(`${what} painted after the time limit, at ${Math.round(stamp)} ms`);
      return null;
    };
    run.firstCardMs = inTime(marks?.firstCardPainted, 'first card');
    run.usableMs = inTime(marks?.usablePainted, 'oldest entry');
    if (run.usableMs === null) return run;

    // Memory once the list is rendered, after a forced collection.
    const cdp = await context.newCDPSession(page);
    await within(cdp.send('HeapProfiler.collectGarbage'), timeoutMs, 'garbage collection');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (/** @type {string} */ name) => metrics.find((entry) => entry.name === name)?.value ?? null;
    run.jsHeapBytes = metric('JSHeapUsedSize');
    run.domNodes = metric('Nodes');
    const usage = await cdp.send('Runtime.getHeapUsage');
    run.domHeapBytes = usage.embedderHeapUsedSize ?? null;
    run.wasmMemoryBytes = await page.evaluate(() => /** @type {any} */ (window).__bench.wasmMemoryBytes());
    run.cardsInDom = await page.evaluate(() => /** @type {any} */ (window).__bench.cardsInDom());

    try {
      run.scrollFrameMs = await within(
        page.evaluate((steps) => /** @type {any} */ (window).__bench.scrollFrames('through', steps), SCROLL_STEPS),
        timeoutMs,
        'scrolling through the list',
      );
      run.steadyScrollFrameMs = await within(
        page.evaluate((steps) => /** @type {any} */ (window).__bench.scrollFrames('steady', steps), SCROLL_STEPS),
        timeoutMs,
        'scrolling steadily',
      );
    } catch (error) {
      run.problems.push(`scroll: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }

    try {
      await within(page.evaluate(() => /** @type {any} */ (window).__bench.scrollToTop()), timeoutMs, 'scrolling to the top');
      await page.locator('#name').fill(sign.name, { timeout: timeoutMs });
      await page.locator('#message').fill(sign.message, { timeout: timeoutMs });
      run.signMs = await within(
        page.evaluate((name) => /** @type {any} */ (window).__bench.signAndWait(name), sign.name),
        timeoutMs,
        'signing',
      );
    } catch (error) {
      run.problems.push(`sign: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }
    return run;
  } finally {
    await closeBrowser(browser);
  }
}
