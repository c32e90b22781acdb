// @ts-check
// From raw page runs to per-point summaries (median, min, max) and ours/peer ratios.
import { quantileOfSorted, ratio, summarize } from './stats.mjs';

/**
 * @typedef {object} MetricDefinition
 * @property {string} key
 * @property {string} label
 * @property {'ms' | 'bytes' | 'count'} unit
 * @property {(run: import('./page-run.mjs').PageRun) => number | null | undefined} read
 *   the run's value; null = timed out (time metrics only), undefined = not measured in that run
 * @property {boolean} [timed]  a null value is a timeout, summarised as the time limit (a lower bound)
 */

/** @param {number[] | null} frames */
function p95(frames) {
  if (!frames || frames.length === 0) return undefined;
  return /** @type {number} */ (quantileOfSorted([...frames].sort((a, b) => a - b), 0.95));
}

/** @type {MetricDefinition[]} */
export const METRICS = [
  { key: 'firstCardMs', label: 'first entries painted', unit: 'ms', timed: true, read: (run) => run.firstCardMs },
  {
    key: 'usableMs',
    label: 'fully usable (scrolled to the oldest entry)',
    unit: 'ms',
    timed: true,
    // Never, not "slower than the limit", for a page that hides the oldest entry.
    read: (run) => (run.hidesEntries ? undefined : run.usableMs),
  },
  {
    key: 'entriesShown',
    label: 'entries reachable on the page (scrolled to the end)',
    unit: 'count',
    read: (run) => run.entriesShown ?? undefined,
  },
  {
    key: 'restRequests',
    label: 'REST requests during the load',
    unit: 'count',
    read: (run) => run.restRequests ?? undefined,
  },
  {
    key: 'heapBytes',
    label: 'memory after render: JS heap + wasm memory',
    unit: 'bytes',
    read: (run) => (run.jsHeapBytes === null ? undefined : run.jsHeapBytes + (run.wasmMemoryBytes ?? 0)),
  },
  {
    key: 'jsHeapBytes',
    label: 'JS heap after render (JSHeapUsedSize)',
    unit: 'bytes',
    read: (run) => run.jsHeapBytes ?? undefined,
  },
  {
    key: 'domHeapBytes',
    label: 'Blink heap after render (DOM and layout objects)',
    unit: 'bytes',
    read: (run) => run.domHeapBytes ?? undefined,
  },
  {
    key: 'signMs',
    label: 'one sign (click to the new entry painted on top)',
    unit: 'ms',
    timed: true,
    // Not measured when the page never finished loading (one that hides entries did finish: its reads are over).
    read: (run) => (run.usableMs === null && !run.hidesEntries ? undefined : run.signMs),
  },
  {
    key: 'scrollP95Ms',
    label: 'frame time p95, scrolling to the end in 60 jumps',
    unit: 'ms',
    read: (run) => p95(run.scrollFrameMs),
  },
  {
    key: 'steadyScrollP95Ms',
    label: 'frame time p95, scrolling 120 px a frame mid-list',
    unit: 'ms',
    read: (run) => p95(run.steadyScrollFrameMs),
  },
  { key: 'cardsInDom', label: 'entry cards in the DOM', unit: 'count', read: (run) => run.cardsInDom ?? undefined },
];

/**
 * @param {MetricDefinition} metric
 * @param {import('./page-run.mjs').PageRun[]} runs
 * @param {number} timeoutMs
 */
export function summarizeMetric(metric, runs, timeoutMs) {
  const values = runs.map(metric.read).filter((value) => value !== undefined);
  if (metric.timed) return summarize(values, timeoutMs);
  return summarize(/** @type {number[]} */ (values.filter((value) => value !== null)));
}

/**
 * @typedef {object} PagePoint
 * @property {number} n
 * @property {'ours' | 'peer'} page
 * @property {import('./page-run.mjs').PageRun[]} runs
 */

/**
 * One row per N and metric: ours, peer, ours / peer.
 * @param {PagePoint[]} points
 * @param {number} timeoutMs
 */
export function compare(points, timeoutMs) {
  const sizes = [...new Set(points.map((point) => point.n))].sort((a, b) => a - b);
  return sizes.flatMap((n) => {
    const ours = points.find((point) => point.n === n && point.page === 'ours');
    const peer = points.find((point) => point.n === n && point.page === 'peer');
    if (!ours || !peer) return [];
    return METRICS.map((metric) => {
      const oursSummary = summarizeMetric(metric, ours.runs, timeoutMs);
      const peerSummary = summarizeMetric(metric, peer.runs, timeoutMs);
      return {
        n,
        metric: metric.key,
        label: metric.label,
        unit: metric.unit,
        ours: oursSummary,
        peer: peerSummary,
        ratio: ratio(oursSummary, peerSummary),
      };
    });
  });
}

/**
 * How many of the table's N entries one page let the runs reach, from the comparisons: the fewest over its runs.
 * Null when not measured.
 * @param {ReturnType<typeof compare>} comparisons
 * @param {number} n
 * @param {'ours' | 'peer'} page
 * @returns {{ shown: number, of: number, hides: boolean } | null}
 */
export function entriesShown(comparisons, n, page) {
  const summary = comparisons.find((row) => row.n === n && row.metric === 'entriesShown')?.[page];
  if (!summary || summary.min === null) return null;
  return { shown: summary.min, of: n, hides: summary.min < n };
}
