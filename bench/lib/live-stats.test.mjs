// @ts-check
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapTrend, quantile } from './live-stats.mjs';

test('quantile: nearest rank, null for no values', () => {
  assert.equal(quantile([], 0.5), null);
  assert.equal(quantile([30, 10, 20], 0.5), 20);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100], 0.95), 19);
  assert.equal(quantile([5], 0.95), 5);
});

test('heapTrend: first against last minute of a 10-minute run; flat under 1 MB and 10 % growth', () => {
  const samples = Array.from({ length: 61 }, (_, index) => ({ atSeconds: index * 10, usedBytes: 5_000_000 + index * 1000, nodes: 500 }));
  const trend = heapTrend(samples, 600);
  assert.equal(trend.windowSeconds, 60);
  assert.equal(trend.firstBytes, 5_003_000);
  assert.equal(trend.lastBytes, 5_057_000);
  assert.equal(trend.growthBytes, 54_000);
  assert.equal(trend.flat, true);
  const leaking = samples.map((sample) => ({ ...sample, usedBytes: 5_000_000 + sample.atSeconds * 10_000 }));
  assert.equal(heapTrend(leaking, 600).flat, false);
});

test('heapTrend: a short run compares its first and last sixth; no samples, no verdict', () => {
  const samples = [0, 10, 20, 30, 40, 50, 60].map((atSeconds) => ({ atSeconds, usedBytes: 1000, nodes: 1 }));
  assert.equal(heapTrend(samples, 60).windowSeconds, 10);
  assert.equal(heapTrend(samples, 60).flat, true);
  assert.equal(heapTrend([], 60).flat, null);
});
