import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOptions } from './options.mjs';

test('the full run measures four sizes, five runs each and three at 100,000', () => {
  const options = parseOptions([]);
  assert.deepEqual(options.sizes, [100, 1000, 10_000, 100_000]);
  assert.equal(options.runsFor(10_000), 5);
  assert.equal(options.runsFor(100_000), 3);
  assert.deepEqual(options.parseSizes, [10_000, 100_000]);
  assert.equal(options.timeoutMs, 90_000);
  assert.equal(options.loadSeconds, 10);
});

test('--quick measures 100 and 1,000 once', () => {
  const options = parseOptions(['--quick']);
  assert.deepEqual(options.sizes, [100, 1000]);
  assert.equal(options.runsFor(1000), 1);
  assert.deepEqual(options.parseSizes, [1000]);
});

test('explicit sizes and runs win; bad values are refused with the flag named', () => {
  const options = parseOptions(['--sizes', '1_000,100', '--runs', '2', '--timeout', '30']);
  assert.deepEqual(options.sizes, [100, 1000]);
  assert.equal(options.runsFor(100_000), 2);
  assert.equal(options.timeoutMs, 30_000);
  assert.deepEqual(parseOptions(['--sizes', '100']).parseSizes, [100]);
  assert.throws(() => parseOptions(['--runs', '0']), /--runs must be a whole number/);
  assert.throws(() => parseOptions(['--sizes', '10,x']), /--sizes/);
  assert.throws(() => parseOptions(['--bogus']), /Unknown option/);
});
