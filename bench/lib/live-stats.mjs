// @ts-check
// The live benchmark's figures from its raw samples (pure, so node --test can check them).

/**
 * The q-quantile (0..1) of the values, nearest rank; null for none.
 * @param {readonly number[]} values
 * @param {number} q
 */
export function quantile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return /** @type {number} */ (sorted[rank - 1]);
}

/**
 * @typedef {object} HeapSample
 * @property {number} atSeconds   since the first insert of the heap run
 * @property {number} usedBytes   the page's JS heap after a garbage collection
 * @property {number} [wasmBytes] the page's wasm linear memory (its instances' `memory.buffer` sizes)
 * @property {number} nodes       DOM nodes in the page
 */

/**
 * The heap run in one verdict: the mean used JS heap of its first and of its last minute (or of its first and last
 * sixth when shorter than six minutes), their difference, and whether it stayed flat: grew by less than `limitBytes`
 * and by less than 10 %.
 * @param {readonly HeapSample[]} samples
 * @param {number} durationSeconds
 * @param {number} [limitBytes]
 */
export function heapTrend(samples, durationSeconds, limitBytes = 1_000_000) {
  const window = durationSeconds >= 360 ? 60 : durationSeconds / 6;
  const mean = (/** @type {readonly HeapSample[]} */ part) =>
    part.length === 0 ? null : part.reduce((sum, sample) => sum + sample.usedBytes, 0) / part.length;
  const first = mean(samples.filter((sample) => sample.atSeconds <= window));
  const last = mean(samples.filter((sample) => sample.atSeconds >= durationSeconds - window));
  if (first === null || last === null) return { windowSeconds: window, firstBytes: first, lastBytes: last, growthBytes: null, flat: null };
  const growth = last - first;
  return { windowSeconds: window, firstBytes: first, lastBytes: last, growthBytes: growth, flat: growth < limitBytes && growth < 0.1 * first };
}
