import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare, entriesShown } from './summary.mjs';

/** @param {Partial<import('./page-run.mjs').PageRun>} values */
const run = (values) => ({
  firstCardMs: 100,
  usableMs: 200,
  jsHeapBytes: 1_000_000,
  wasmMemoryBytes: 0,
  domHeapBytes: 0,
  domNodes: 10,
  cardsInDom: 100,
  scrollFrameMs: [16, 16, 17, 40],
  steadyScrollFrameMs: [16, 16, 17, 17],
  signMs: 50,
  problems: [],
  ...values,
});

test('each metric is compared per N, with wasm memory counted in the heap', () => {
  const rows = compare(
    [
      { n: 100, page: 'ours', runs: [run({ wasmMemoryBytes: 1_000_000 }), run({ firstCardMs: 80, wasmMemoryBytes: 1_000_000 })] },
      { n: 100, page: 'peer', runs: [run({ firstCardMs: 360 }), run({ firstCardMs: 440 })] },
    ],
    90_000,
  );
  const first = rows.find((row) => row.metric === 'firstCardMs');
  assert.equal(first?.ours.median, 90);
  assert.equal(first?.peer.median, 400);
  assert.deepEqual(first?.ratio, { value: 90 / 400, bound: 'exact' });
  const heap = rows.find((row) => row.metric === 'heapBytes');
  assert.deepEqual(heap?.ratio, { value: 2, bound: 'exact' });
  const jsHeap = rows.find((row) => row.metric === 'jsHeapBytes');
  assert.deepEqual(jsHeap?.ratio, { value: 1, bound: 'exact' });
});

test('a page that never loaded counts as the time limit and has no sign or heap figure', () => {
  const rows = compare(
    [
      { n: 100_000, page: 'ours', runs: [run({})] },
      { n: 100_000, page: 'peer', runs: [run({ firstCardMs: null, usableMs: null, jsHeapBytes: null, signMs: null, scrollFrameMs: null })] },
    ],
    90_000,
  );
  const usable = rows.find((row) => row.metric === 'usableMs');
  assert.equal(usable?.peer.median, 90_000);
  assert.equal(usable?.ratio.bound, 'at most');
  const sign = rows.find((row) => row.metric === 'signMs');
  assert.equal(sign?.peer.runs, 0);
  assert.equal(sign?.ratio.bound, 'unknown');
  const heap = rows.find((row) => row.metric === 'heapBytes');
  assert.equal(heap?.peer.median, null);
});

test('a page that hides entries is never fully usable, yet its other figures count', () => {
  const rows = compare(
    [
      { n: 10_000, page: 'ours', runs: [run({ entriesShown: 10_000, restRequests: 11 })] },
      {
        n: 10_000,
        page: 'peer',
        runs: [run({ entriesShown: 1000, restRequests: 1, hidesEntries: true, usableMs: null }), run({ entriesShown: 1000, hidesEntries: true, usableMs: null })],
      },
    ],
    90_000,
  );
  const usable = rows.find((row) => row.metric === 'usableMs');
  assert.equal(usable?.peer.runs, 0); // never, not "> 90 s"
  assert.equal(usable?.ratio.bound, 'unknown');
  assert.equal(rows.find((row) => row.metric === 'signMs')?.peer.median, 50);
  assert.equal(rows.find((row) => row.metric === 'restRequests')?.ours.median, 11);
  assert.deepEqual(entriesShown(rows, 10_000, 'peer'), { shown: 1000, of: 10_000, hides: true });
  assert.deepEqual(entriesShown(rows, 10_000, 'ours'), { shown: 10_000, of: 10_000, hides: false });
  assert.equal(entriesShown(rows, 100, 'ours'), null);
});

test('the fewest entries any run reached is what a page shows', () => {
  const rows = compare(
    [
      { n: 5000, page: 'ours', runs: [run({ entriesShown: 5000 }), run({ entriesShown: 3000, hidesEntries: true })] },
      { n: 5000, page: 'peer', runs: [run({ entriesShown: 1000 })] },
    ],
    90_000,
  );
  assert.deepEqual(entriesShown(rows, 5000, 'ours'), { shown: 3000, of: 5000, hides: true });
});
