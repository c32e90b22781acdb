import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateMobileTargets } from './mobile-targets.mjs';

const TIMEOUT = 90_000;
/**
 * @param {Partial<import('./mobile-targets.mjs').MobileRun>} fields
 * @returns {import('./mobile-targets.mjs').MobileRun}
 */
const run = (fields) => ({
  firstMs: 1000,
  repeatMs: 300,
  offlineWorks: true,
  offlineMs: 300,
  bytesBeforePaint: { gzip: 100_000, brotli: 90_000 },
  problems: [],
  ...fields,
});
const peer = run({ firstMs: 2000, repeatMs: 1500, offlineWorks: false, offlineMs: null, bytesBeforePaint: { gzip: 150_000, brotli: 120_000 } });

/**
 * @param {Partial<import('./mobile-targets.mjs').MobileRun>} ours
 * @param {Partial<import('./mobile-targets.mjs').MobileRun>} [peerFields]
 */
function judge(ours, peerFields = {}) {
  const targets = evaluateMobileTargets(
    [
      { n: 100, page: 'ours', runs: [run(ours)] },
      { n: 100, page: 'peer', runs: [{ ...peer, ...peerFields }] },
    ],
    TIMEOUT,
  );
  return Object.fromEntries(targets.map((t) => [t.id.replace(/-100$/, ''), t.met]));
}

test('all four targets are met by a page faster, lighter and offline-capable enough', () => {
  assert.deepEqual(judge({}), { 'mobile-first-visit': true, 'mobile-repeat-visit': true, 'mobile-offline': true, 'mobile-bytes': true });
});

test('first visit: at most 0.8 of the peer\'s time, the bound included', () => {
  assert.equal(judge({ firstMs: 1600 })['mobile-first-visit'], true);
  assert.equal(judge({ firstMs: 1601 })['mobile-first-visit'], false);
});

test('repeat visit: at most 0.3 of the peer\'s and under 500 ms, both required', () => {
  assert.equal(judge({ repeatMs: 451 })['mobile-repeat-visit'], false); // 0.30 of 1,500 is 450
  assert.equal(judge({ repeatMs: 499 }, { repeatMs: 5000 })['mobile-repeat-visit'], true);
  assert.equal(judge({ repeatMs: 500 }, { repeatMs: 5000 })['mobile-repeat-visit'], false); // not under 500 ms
});

test('a timed-out visit is a lower bound: ours timing out fails, the peer timing out leaves ours judged against the limit', () => {
  assert.equal(judge({ firstMs: null })['mobile-first-visit'], false);
  assert.equal(judge({ repeatMs: null })['mobile-repeat-visit'], false);
  assert.equal(judge({ firstMs: 5000 }, { firstMs: null })['mobile-first-visit'], true); // 5 s vs > 90 s
});

test('offline: every run must paint entries with the network off', () => {
  assert.equal(judge({ offlineWorks: false })['mobile-offline'], false);
  const targets = evaluateMobileTargets(
    [
      { n: 100, page: 'ours', runs: [run({}), run({ offlineWorks: false })] },
      { n: 100, page: 'peer', runs: [peer, peer] },
    ],
    TIMEOUT,
  );
  const offline = targets.find((t) => t.id === 'mobile-offline-100');
  assert.equal(offline?.met, false);
  assert.match(offline?.measured ?? '', /ours works in 1 of 2 runs; the peer does not work/);
});

test('bytes: at most 0.85 of the peer\'s, in gzip and in brotli alike', () => {
  assert.equal(judge({ bytesBeforePaint: { gzip: 127_500, brotli: 102_000 } })['mobile-bytes'], true);
  assert.equal(judge({ bytesBeforePaint: { gzip: 127_501, brotli: 90_000 } })['mobile-bytes'], false);
  assert.equal(judge({ bytesBeforePaint: { gzip: 100_000, brotli: 102_001 } })['mobile-bytes'], false);
});

test('a size with no runs for one page is "not measured", never met', () => {
  const targets = evaluateMobileTargets([{ n: 10_000, page: 'ours', runs: [run({})] }], TIMEOUT);
  assert.equal(targets.length, 4);
  assert.ok(targets.every((t) => t.met === null && t.measured === 'not measured'));
});
