import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleResults } from './fixtures.test-data.mjs';
import { evaluateTargets } from './targets.mjs';

/** @param {ReturnType<typeof evaluateTargets>} targets */
const byId = (targets) => Object.fromEntries(targets.map((t) => [t.id, t.met]));

test('every target is judged from the figures', () => {
  assert.deepEqual(byId(evaluateTargets(sampleResults())), {
    download: true, // 50 kB vs 150 kB
    teaser: true,
    'first-paint-1k': true,
    'first-paint-100k-absolute': true,
    'first-paint-100k-ratio': true, // 300 ms vs 8,000 ms
    'reachable-100k': true, // 400 ms, all 100,000
    'requests-100k': true, // 101
    'entries-shown': true, // ours: all at every N
    'scroll-100k': true,
    'heap-100k': true,
    'sign-10k': true,
    parse: true,
    'emulator-reads': true,
    'emulator-inserts': false, // 900/s
  });
});

test('targets fail when the figures miss them', () => {
  const targets = byId(
    evaluateTargets(
      sampleResults({
        oursGzip: 100_000,
        oursRuns: { firstCardMs: 1600, cardsInDom: 100_000, jsHeapBytes: 50_000_000, signMs: 3000 },
        teaserAssets: [{ path: '/assets/client.wasm', kind: 'wasm', raw: 1, gzip: 1, brotli: 1, clientCode: false }],
      }),
    ),
  );
  assert.equal(targets.download, false);
  assert.equal(targets.teaser, false);
  assert.equal(targets['first-paint-100k-absolute'], false);
  assert.equal(targets['first-paint-100k-ratio'], false); // 1,600 vs 8,000 is only 5 times sooner
  assert.equal(targets['scroll-100k'], false); // not virtualised
  assert.equal(targets['heap-100k'], false);
  assert.equal(targets['sign-10k'], false);
});

test('wasm memory counts in the heap target', () => {
  const targets = byId(evaluateTargets(sampleResults({ oursRuns: { jsHeapBytes: 5_000_000, wasmMemoryBytes: 45_000_000 } })));
  assert.equal(targets['heap-100k'], false);
});

test('a teaser rendered by script does not meet the teaser target', () => {
  assert.equal(byId(evaluateTargets(sampleResults({ inServedHtml: false }))).teaser, false);
});

test('a peer that timed out still bounds the ratio, and what was not measured is not met', () => {
  const timedOut = sampleResults({ peerRuns: { firstCardMs: null, usableMs: null, jsHeapBytes: null, signMs: null } });
  const targets = evaluateTargets(timedOut);
  assert.equal(byId(targets)['first-paint-100k-ratio'], true); // 300 ms vs > 90 s
  assert.equal(byId(targets)['heap-100k'], null);
  const quick = sampleResults();
  quick.comparisons = quick.comparisons.filter((c) => c.n <= 1000);
  quick.load = undefined;
  const quickTargets = byId(evaluateTargets(quick));
  assert.equal(quickTargets['first-paint-100k-absolute'], null);
  assert.equal(quickTargets['reachable-100k'], null);
  assert.equal(quickTargets['requests-100k'], null);
  assert.equal(quickTargets['entries-shown'], true);
  assert.equal(quickTargets['sign-10k'], null);
  assert.equal(quickTargets['emulator-reads'], null);
});

test('janky steady scrolling fails the smooth-scrolling target even when jumps are fine', () => {
  const targets = byId(evaluateTargets(sampleResults({ oursRuns: { steadyScrollFrameMs: [16.7, 120, 120, 120] } })));
  assert.equal(targets['scroll-100k'], false);
});

test('under the cap, every entry must be reachable within 5 s at N = 100,000', () => {
  const slow = byId(evaluateTargets(sampleResults({ oursRuns: { usableMs: 5200 } })));
  assert.equal(slow['reachable-100k'], false);
  assert.equal(byId(evaluateTargets(sampleResults({ oursRuns: { usableMs: 4900 } })))['reachable-100k'], true);
  // Fast, but the oldest entry never came: a later page failed.
  const partial = byId(evaluateTargets(sampleResults({ oursRuns: { entriesShown: 1000, hidesEntries: true, usableMs: null } })));
  assert.equal(partial['reachable-100k'], false);
  assert.equal(partial['entries-shown'], false);
  assert.equal(partial['requests-100k'], false); // fewer requests, but not every entry read
});

test('a load may cost pages plus one REST requests and the changes cursor, no more', () => {
  const targets = evaluateTargets(sampleResults({ oursRuns: { restRequests: 103 } }));
  const requests = targets.find((t) => t.id === 'requests-100k');
  assert.equal(requests?.met, false);
  assert.match(requests?.target ?? '', /= 102\)/);
  assert.match(requests?.measured ?? '', /^103 at most/);
});

test('what each page shows is reported, and comparisons with a peer that hides entries say so', () => {
  const targets = evaluateTargets(sampleResults());
  const text = (/** @type {string} */ id) => targets.find((t) => t.id === id)?.measured ?? '';
  assert.equal(text('entries-shown'), 'ours: all 1,000, all 10,000, all 100,000; the peer (one supabase-js read): all 1,000, 1,000 of 10,000, 1,000 of 100,000');
  assert.match(text('first-paint-100k-ratio'), /; the peer shows only 1,000 of 100,000 entries$/);
  assert.match(text('heap-100k'), /; the peer shows only 1,000 of 100,000 entries$/);
  assert.match(text('sign-10k'), /; the peer shows only 1,000 of 10,000 entries$/);
  assert.doesNotMatch(text('first-paint-1k'), /shows only/);
});
