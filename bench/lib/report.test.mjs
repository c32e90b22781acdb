import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleResults } from './fixtures.test-data.mjs';
import { formatRatio, formatSummary, formatValue, renderMarkdown } from './report.mjs';
import { evaluateTargets } from './targets.mjs';

test('values are formatted by unit', () => {
  assert.equal(formatValue(1234.4, 'ms'), '1,234 ms');
  assert.equal(formatValue(12.34, 'ms'), '12.3 ms');
  assert.equal(formatValue(2_500_000, 'bytes'), '2.5 MB');
  assert.equal(formatValue(null, 'ms'), 'n/a');
  assert.equal(formatSummary({ runs: 3, timeouts: 1, median: 90_000, min: 100, max: 90_000, lowerBound: true }, 'ms'), '> 90,000 ms (100 ms–90,000 ms, 1 timed out)');
  assert.equal(formatRatio({ value: 0.004, bound: 'at most' }), '< 0.0040');
});

test('the report has the targets table with a met column, and ratios per N', () => {
  const results = sampleResults();
  const markdown = renderMarkdown({ ...results, targets: evaluateTargets(results) });
  assert.match(markdown, /\| Target \| Measured \| Met \|/);
  assert.match(markdown, /at most 0\.6 of the peer's \| 50\.0 kB vs 150\.0 kB: ratio 0\.33 \| \*\*met\*\* \|/);
  assert.match(markdown, /at least 1,000 inserts a second \| 900\/s.* \| not met \|/);
  assert.match(markdown, /\| 100,000 \| first entries painted \| 300 ms \(300 ms–300 ms\) \| 8,000 ms \| 0\.04 \|/);
  // Every table row has as many cells as its header.
  for (const block of markdown.split('\n\n').filter((b) => b.startsWith('|'))) {
    const [header, ...rows] = block.split('\n').filter((line) => line.length > 0);
    const cells = (/** @type {string} */ line) => line.split(/(?<!\\)\|/).length;
    for (const row of rows) assert.equal(cells(row), cells(header), row);
  }
});

test('the report says how many entries each page shows and that the peer hides some past 1,000', () => {
  const results = { ...sampleResults(), rowsInOneRead: [{ n: 100_000, rows: 1000 }] };
  const markdown = renderMarkdown({ ...results, targets: evaluateTargets(results) });
  assert.match(markdown, /## Entries each page shows/);
  assert.match(markdown, /\| 100,000 \| 1,000 \| 100,000 \| 1,000 \(hides entries\) \| 101 \(101–101\) \(102\) \| 1 \|/);
  assert.match(markdown, /\| 1,000 \| n\/a \| 1,000 \| 1,000 \| 2 \(2–2\) \(3\) \| 1 \|/);
  assert.match(markdown, /\*\*The peer hides entries at N = 10,000, 100,000\.\*\*/);
  assert.match(markdown, /\| 100,000 \| fully usable \(scrolled to the oldest entry\) \| 400 ms \(400 ms–400 ms\) \| never \(hides entries\) \| n\/a \|/);
  assert.match(markdown, /\| 1,000 \| fully usable \(scrolled to the oldest entry\) \| 400 ms \(400 ms–400 ms\) \| 8,100 ms \|/);
});

test('a peer that shows every entry gets no such note', () => {
  const results = sampleResults({ peerRuns: { entriesShown: 100_000, hidesEntries: false, usableMs: 8100 } });
  results.comparisons = results.comparisons.filter((c) => c.n === 1000);
  const markdown = renderMarkdown({ ...results, targets: evaluateTargets(results) });
  assert.doesNotMatch(markdown, /hides entries/);
});

test('a quick run says which sizes it measured', () => {
  const results = { ...sampleResults(), mode: 'quick', options: { timeoutMs: 90_000, sizes: [2500, 100_000] } };
  const markdown = renderMarkdown({ ...results, targets: evaluateTargets(results) });
  assert.match(markdown, /\*\*Quick run\*\* \(`--quick`: N = 2,500, 100,000, one run each/);
});
