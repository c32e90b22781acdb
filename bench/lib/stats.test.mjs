import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantileOfSorted, ratio, summarize } from './stats.mjs';

test('quantiles interpolate between neighbours', () => {
  assert.equal(quantileOfSorted([1, 2, 3, 4], 0.5), 2.5);
  assert.equal(quantileOfSorted([5], 0.99), 5);
  assert.equal(quantileOfSorted([], 0.5), null);
});

test('summaries give median, min and max of finished runs', () => {
  assert.deepEqual(summarize([30, 10, 20]), { runs: 3, timeouts: 0, median: 20, min: 10, max: 30, lowerBound: false });
});

test('a timed-out run counts as the limit and can make the median a lower bound', () => {
  const one = summarize([10, null, 20], 90_000);
  assert.equal(one.median, 20);
  assert.equal(one.max, 90_000);
  assert.equal(one.lowerBound, false);
  const most = summarize([null, null, 20], 90_000);
  assert.equal(most.median, 90_000);
  assert.equal(most.lowerBound, true);
  const all = summarize([null], 90_000);
  assert.equal(all.median, 90_000);
  assert.equal(all.lowerBound, true);
});

test('ratios say which way a timeout bounds them', () => {
  const fast = summarize([100]);
  const slow = summarize([1000]);
  const timedOut = summarize([null], 90_000);
  assert.deepEqual(ratio(fast, slow), { value: 0.1, bound: 'exact' });
  assert.deepEqual(ratio(fast, timedOut), { value: 100 / 90_000, bound: 'at most' });
  assert.deepEqual(ratio(timedOut, fast), { value: 900, bound: 'at least' });
  assert.deepEqual(ratio(timedOut, timedOut), { value: null, bound: 'unknown' });
  assert.deepEqual(ratio(summarize([]), fast), { value: null, bound: 'unknown' });
});
