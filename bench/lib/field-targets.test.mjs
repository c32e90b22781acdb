// @ts-check
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateFieldTargets, fieldFloor, summarizeFieldRuns } from './field-targets.mjs';

/** @param {number} typeableMs @param {number} signedMs @param {number} pressToShownMs */
const run = (typeableMs, signedMs, pressToShownMs) => ({ typeableMs, firstCardMs: 5000, signedMs, pressToShownMs, beforeTypeable: { bytes: 9000, requests: 2 }, problems: [] });

describe('the field visit\'s targets', () => {
  it('compares medians with the peer\'s, each against its own ratio', () => {
    const ours = summarizeFieldRuns([run(1500, 12_500, 130), run(1600, 12_400, 120), run(1400, 13_000, 125)], 90_000);
    const peer = summarizeFieldRuns([run(4700, 15_000, 122), run(4800, 15_100, 120), run(4600, 14_900, 121)], 90_000);
    assert.equal(ours.typeable.median, 1500);
    assert.equal(ours.bytesBeforeTypeable.median, 9000);
    const targets = evaluateFieldTargets(ours, peer);
    assert.deepEqual(targets.map((t) => [t.id, t.met]), [
      ['field-typeable', true],
      ['field-signed', false],
      ['field-press-to-shown', false],
    ]);
    assert.match(targets[0]?.measured ?? '', /1,500 ms vs 4,700 ms: ratio 0\.32/);
  });

  it('is not met when a figure is missing', () => {
    const none = summarizeFieldRuns([{ ...run(0, 0, 0), typeableMs: null, signedMs: null, pressToShownMs: null, beforeTypeable: null }], 90_000);
    assert.deepEqual(evaluateFieldTargets(none, none).map((t) => t.met), [null, null, null]);
  });
});

describe('the floor', () => {
  it('is the document and the stylesheets its head links, over three round trips', () => {
    const html = '<html><head><link rel="stylesheet" crossorigin href="/assets/a.css"><link rel="icon" href="data:,"></head><body><link rel="stylesheet" href="/late.css"></body></html>';
    const floor = fieldFloor(html, [
      { path: '/index.html', brotli: 3000 },
      { path: '/assets/a.css', brotli: 1500 },
      { path: '/late.css', brotli: 999 },
    ]);
    assert.deepEqual(floor.typeable, { roundTrips: 3, bytes: 4500, files: ['/index.html', '/assets/a.css'] });
    assert.equal(fieldFloor('<head></head>', [{ path: '/index.html', brotli: 10 }]).typeable.roundTrips, 2);
  });

  it('counts what a page asks for at once, while its head is parsed, as what it needs before it can sign', () => {
    const html =
      '<html><head><script id="geocache-early-paint" data-first-visit-scripts="/assets/p.js /assets/c.js" data-first-visit-wasm="/assets/c.wasm"></script>' +
      '<link rel="stylesheet" href="/assets/a.css"><script type="module" crossorigin src="/assets/index.js"></script>' +
      '<link rel="modulepreload" href="/assets/c.js"></head><body><script type="module" src="/late.js"></script></body></html>';
    const floor = fieldFloor(html, [
      { path: '/index.html', brotli: 3000 },
      { path: '/assets/a.css', brotli: 500 },
      { path: '/assets/index.js', brotli: 1000 },
      { path: '/assets/p.js', brotli: 200 },
      { path: '/assets/c.js', brotli: 4000 },
      { path: '/assets/c.wasm', brotli: 80_000 },
      { path: '/late.js', brotli: 999 },
    ]);
    // c.js is asked for once, though both the inline script and a module preload name it.
    assert.deepEqual(floor.signReady, { roundTrips: 3, bytes: 88_700, files: 6 });
  });
});

