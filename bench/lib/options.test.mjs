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

test('the mobile profile runs N = 100 and 10,000, three runs each (one with --quick), alongside the rest', () => {
  const options = parseOptions([]);
  assert.deepEqual(options.mobileSizes, [100, 10_000]);
  assert.equal(options.mobileRuns, 3);
  assert.equal(options.desktop, true);
  assert.equal(options.mobile, true);
  assert.equal(parseOptions(['--quick']).mobileRuns, 1);
});

test('--mobile-only and --no-mobile choose the parts; mobile sizes and runs are checked', () => {
  const only = parseOptions(['--mobile-only', '--mobile-sizes', '10000,100', '--mobile-runs', '2']);
  assert.deepEqual([only.desktop, only.mobile], [false, true]);
  assert.deepEqual(only.mobileSizes, [100, 10_000]);
  assert.equal(only.mobileRuns, 2);
  const none = parseOptions(['--no-mobile']);
  assert.deepEqual([none.desktop, none.mobile], [true, false]);
  assert.throws(() => parseOptions(['--mobile-only', '--no-mobile']), /exclude each other/);
  assert.throws(() => parseOptions(['--mobile-runs', '0']), /--mobile-runs must be a whole number/);
  assert.throws(() => parseOptions(['--mobile-sizes', 'ten']), /--mobile-sizes/);
});

test('the live logbook runs at N = 10,000 with 50 timed inserts and a 10-minute heap run (a minute with --quick)', () => {
  const options = parseOptions([]);
  assert.deepEqual([options.live, options.liveSize, options.liveSamples, options.liveSeconds], [true, 10_000, 50, 600]);
  const quick = parseOptions(['--quick']);
  assert.deepEqual([quick.liveSamples, quick.liveSeconds], [10, 60]);
  assert.equal(parseOptions(['--mobile-only']).live, false);
});

test('--live-only and --no-live choose the parts; live sizes, samples and seconds are checked', () => {
  const only = parseOptions(['--live-only', '--live-seconds', '90', '--live-samples', '5', '--live-size', '1000']);
  assert.deepEqual([only.desktop, only.mobile, only.live], [false, false, true]);
  assert.deepEqual([only.liveSize, only.liveSamples, only.liveSeconds], [1000, 5, 90]);
  assert.deepEqual([parseOptions(['--no-live']).live, parseOptions(['--no-live']).desktop], [false, true]);
  assert.throws(() => parseOptions(['--live-only', '--no-live']), /exclude each other/);
  assert.throws(() => parseOptions(['--live-only', '--mobile-only']), /exclude each other/);
  assert.throws(() => parseOptions(['--live-seconds', '5']), /--live-seconds must be a whole number >= 6/);
  assert.throws(() => parseOptions(['--live-samples', '0']), /--live-samples/);
});

test('the field visit runs by default, three cold visits (one with --quick); alone with --field-only', () => {
    assert.equal(parseOptions([]).field, true);
    assert.equal(parseOptions([]).fieldRuns, 3);
    assert.equal(parseOptions(['--quick']).fieldRuns, 1);
    const only = parseOptions(['--field-only', '--field-runs', '5']);
    assert.deepEqual([only.desktop, only.mobile, only.live, only.field, only.fieldRuns], [false, false, false, true, 5]);
    assert.equal(parseOptions(['--no-field']).field, false);
    assert.equal(parseOptions(['--mobile-only']).field, false);
    assert.throws(() => parseOptions(['--field-only', '--no-field']), /--field-only/);
});
