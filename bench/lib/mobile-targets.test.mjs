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
 * @param {Record<string, Array<number | null>>} [hostRepeats]  repeat visits behind other hosts, by host
 */
function judge(ours, peerFields = {}, hostRepeats = {}) {
  const oursRun = run(ours);
  const targets = evaluateMobileTargets(
    [
      { n: 100, page: 'ours', runs: [oursRun] },
      { n: 100, page: 'peer', runs: [{ ...peer, ...peerFields }] },
    ],
    TIMEOUT,
    [
      { n: 100, host: 'advised', label: 'advised', runs: [oursRun] },
      ...Object.entries(hostRepeats).map(([host, repeats]) => ({ n: 100, host, label: host, runs: repeats.map((repeatMs) => run({ repeatMs })) })),
    ],
  );
  return Object.fromEntries(targets.map((t) => [t.id.replace(/-100$/, ''), t.met]));
}

test('all five targets are met by a page faster, lighter and offline-capable enough', () => {
  assert.deepEqual(judge({}, {}, { revalidate: [350], 'vite-preview': [400] }), {
    'mobile-first-visit': true,
    'mobile-repeat-visit': true,
    'mobile-offline': true,
    'mobile-bytes': true,
    'mobile-repeat-visit-any-host': true,
  });
});

test('repeat visit behind every host: one host over 500 ms, or over 0.3 of the peer\'s, fails it', () => {
  assert.equal(judge({}, { repeatMs: 5000 }, { revalidate: [499], 'ten-minutes': [300] })['mobile-repeat-visit-any-host'], true);
  assert.equal(judge({}, { repeatMs: 5000 }, { revalidate: [500], 'ten-minutes': [300] })['mobile-repeat-visit-any-host'], false);
  assert.equal(judge({}, {}, { revalidate: [451] })['mobile-repeat-visit-any-host'], false); // 0.30 of 1,500 is 450
  // The median of each host's runs is judged, as for the bench's own host.
  assert.equal(judge({}, {}, { revalidate: [200, 300, 900] })['mobile-repeat-visit-any-host'], true);
  // The bench's own host is one of them.
  assert.equal(judge({ repeatMs: 460 }, {}, { revalidate: [200] })['mobile-repeat-visit-any-host'], false);
});

test('repeat visit behind every host: a timed-out host fails it; a host without runs, or no hosts, is "not measured"', () => {
  assert.equal(judge({}, {}, { revalidate: [null] })['mobile-repeat-visit-any-host'], false);
  assert.equal(judge({}, {}, { revalidate: [] })['mobile-repeat-visit-any-host'], null);
  const targets = evaluateMobileTargets([{ n: 100, page: 'ours', runs: [run({})] }, { n: 100, page: 'peer', runs: [peer] }], TIMEOUT);
  const anyHost = targets.find((t) => t.id === 'mobile-repeat-visit-any-host-100');
  assert.equal(anyHost?.met, null);
  assert.equal(anyHost?.measured, 'not measured');
});

test('repeat visit behind every host: the measured text names each host with its median and ratio', () => {
  const targets = evaluateMobileTargets(
    [{ n: 100, page: 'ours', runs: [run({})] }, { n: 100, page: 'peer', runs: [peer] }],
    TIMEOUT,
    [
      { n: 100, host: 'advised', label: 'the bench\'s host', runs: [run({})] },
      { n: 100, host: 'vite-preview', label: '`vite preview`', runs: [run({ repeatMs: 600 })] },
    ],
  );
  assert.equal(
    targets.find((t) => t.id === 'mobile-repeat-visit-any-host-100')?.measured,
    'the bench\'s host 300 ms (ratio 0.20); `vite preview` 600 ms (ratio 0.40); the peer 1,500 ms',
  );
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
  assert.equal(targets.length, 5);
  assert.ok(targets.every((t) => t.met === null && t.measured === 'not measured'));
});
