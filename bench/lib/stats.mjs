// @ts-check
// Summaries of repeated measurements. A timed-out measurement is recorded as null and summarised as a lower
// bound ("> timeout"), never dropped: dropping it would make the slow side look faster.

/**
 * @param {readonly number[]} sorted ascending
 * @param {number} q in [0, 1]
 */
export function quantileOfSorted(sorted, q) {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/**
 * @typedef {object} Summary
 * @property {number} runs                 measurements taken (timed-out ones included)
 * @property {number} timeouts             how many of them hit the time limit
 * @property {number | null} median        null when no measurement finished
 * @property {number | null} min
 * @property {number | null} max
 * @property {boolean} lowerBound          true when the median itself is a timed-out run: the real value is larger
 */

/**
 * @param {ReadonlyArray<number | null>} values  null = timed out at `timeoutValue`
 * @param {number} [timeoutValue]               what a timed-out run counts as (the time limit)
 * @returns {Summary}
 */
export function summarize(values, timeoutValue = Infinity) {
  const finished = values.filter((value) => value !== null).map(Number);
  const timeouts = values.length - finished.length;
  if (values.length === 0) return { runs: 0, timeouts: 0, median: null, min: null, max: null, lowerBound: false };
  // Timed-out runs sort above every finished one; the median may land on one of them.
  const sorted = [...finished.sort((a, b) => a - b), ...Array(timeouts).fill(timeoutValue)];
  const median = quantileOfSorted(sorted, 0.5);
  const medianHitsTimeout = timeouts > 0 && sorted.length - timeouts <= Math.floor((sorted.length - 1) / 2);
  return {
    runs: values.length,
    timeouts,
    median: finished.length === 0 && !Number.isFinite(timeoutValue) ? null : median,
    min: sorted[0] ?? null,
    max: sorted[sorted.length - 1] ?? null,
    lowerBound: medianHitsTimeout,
  };
}

/**
 * ours / peer, with the direction of the bound when either side is a lower bound.
 * @param {Summary} ours
 * @param {Summary} peer
 * @returns {{ value: number | null, bound: 'exact' | 'at most' | 'at least' | 'unknown' }}
 */
export function ratio(ours, peer) {
  if (ours.median === null || peer.median === null || peer.median === 0) return { value: null, bound: 'unknown' };
  const value = ours.median / peer.median;
  if (ours.lowerBound && peer.lowerBound) return { value: null, bound: 'unknown' };
  if (peer.lowerBound) return { value, bound: 'at most' }; // the peer's real time is larger
  if (ours.lowerBound) return { value, bound: 'at least' };
  return { value, bound: 'exact' };
}
