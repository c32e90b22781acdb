// @ts-check
/* global window */
// One measurement of one page at one N, in a fresh browser: first card painted, fully usable, the entries the page
// lets one reach and the REST requests its load cost, heap after render, a scripted scroll through the list, and
// one sign.
import { closeBrowser, launchBrowser, VIEWPORT } from './browser.mjs';
import { installProbe } from './probe.mjs';
import { RestRequestLog } from './rest-requests.mjs';

/** Frames of each scripted scroll. */
export const SCROLL_STEPS = 60;

/**
 * @typedef {object} PageRun
 * @property {number} [entriesInTable]       N: the entries in the table during the run
 * @property {number | null} [entriesShown]  entries reachable on the page once it loaded: scrolled to the end of
 *                                           the list, the last card's position + 1 (null: not measured)
 * @property {number | null} [restRequests]  REST requests the page made from navigation to the end of its load
 * @property {boolean} [hidesEntries]        the load ended (its reads over) without the oldest entry on the page
 * @property {number | null} firstCardMs     navigation start to the first card painted (null: timed out)
 * @property {number | null} usableMs        navigation start to the oldest entry painted after scrolling to the end
 *                                           (null: timed out, or never, when the page hides entries)
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
 * @typedef {object} PageRunOptions
 * @property {string} url
 * @property {number} entries            N, the entries in the table
 * @property {string} oldestCreatedAt    the oldest entry's created_at as the server writes it
 * @property {(position: number) => Promise<string | null>} createdAtAt  the table's entry at `position` from the
 *                                       newest (0-based): checks that the last card reachable is that entry
 * @property {number} timeoutMs
 * @property {{ name: string, message: string }} sign
 */

/**
 * @param {PageRunOptions} options
 * @returns {Promise<PageRun>}
 */
export async function measurePage({ url, entries, oldestCreatedAt, createdAtAt, timeoutMs, sign }) {
  /** @type {PageRun} */
  const run = {
    entriesInTable: entries,
    entriesShown: null,
    restRequests: null,
    hidesEntries: false,
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

    const requests = new RestRequestLog();
    page.on('request', (request) => requests.onRequest(request));
    page.on('requestfinished', (request) => requests.onFinished(request));
    page.on('requestfailed', (request) => requests.onFailed(request));

    // Load: first card, then every entry reachable; or, for a page that never shows the oldest entry, until its
    // reads are over.
    const loadStarted = Date.now();
    /** @type {{ firstCardPainted: number | null, usablePainted: number | null } | null} */
    let marks = null;
    /** @type {'oldest painted' | 'reads over' | 'failed'} */
    let loadEnd = 'failed';
    try {
      await page.goto(url, { waitUntil: 'commit', timeout: timeoutMs });
      for (;;) {
        marks = await within(page.evaluate(() => /** @type {any} */ (window).__bench.marks), timeoutMs, 'reading the marks');
        if (marks && marks.usablePainted !== null) {
          loadEnd = 'oldest painted';
          break;
        }
        if (marks && requests.quietAfterFirstCard(marks)) {
          loadEnd = 'reads over';
          break;
        }
        if (Date.now() - loadStarted > timeoutMs) throw new Error(`the oldest entry was not painted within ${timeoutMs / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } catch (error) {
      run.problems.push(`load: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }
    requests.stop();
    run.restRequests = requests.started;
    if (requests.failed > 0) run.problems.push(`${requests.failed} REST request(s) failed during the load`);
    // A stamp later than the limit (read once the page's main thread was free again) counts as a timeout.
    const inTime = (/** @type {number | null | undefined} */ stamp, /** @type {string} */ what) => {
      if (stamp === null || stamp === undefined) return null;
      if (stamp <= timeoutMs) return stamp;
      run.problems.push(`${what} painted after the time limit, at ${Math.round(stamp)} ms`);
      return null;
    };
    run.firstCardMs = inTime(marks?.firstCardPainted, 'first card');
    run.usableMs = inTime(marks?.usablePainted, 'oldest entry');
    if (run.firstCardMs === null) return run;

    // How far down the list goes, checked against the table: the last card must be the entry at its position.
    const reached = await within(page.evaluate(() => /** @type {any} */ (window).__bench.reach()), timeoutMs, 'scrolling to the end').catch(
      (/** @type {Error} */ error) => {
        run.problems.push(`reach: ${error.message.split('\n')[0]}`);
        return null;
      },
    );
    if (reached) {
      run.entriesShown = reached.entries;
      const expected = await createdAtAt(reached.entries - 1);
      if (expected !== reached.lastCreatedAt) {
        run.problems.push(
          `the last card reachable (position ${reached.entries - 1}) shows ${reached.lastCreatedAt}, the table's entry there is ${expected}`,
        );
      }
    }
    // A page whose reads are over without the oldest entry hides entries: measure the rest of it as it is.
    // One that timed out is not measured further.
    run.hidesEntries = loadEnd === 'reads over' && typeof run.entriesShown === 'number' && run.entriesShown < entries;
    if (run.usableMs === null && !run.hidesEntries) return run;

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
