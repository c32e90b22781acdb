// @ts-check
// The command line of `npm run bench` (Node built-ins only: it is read before bench/node_modules exists).
import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run bench -- [options]

  --quick              N = 100 and 1,000 only, one run per point, shorter load tests (for development)
  --sizes 100,1000     the entry counts N to measure (default 100,1000,10000,100000)
  --runs K             runs per point (default 5, and 3 for N >= 100,000)
  --timeout S          seconds one page measurement may take before it is recorded as "> timeout" (default 90)
  --load-seconds S     duration of each emulator load test (default 10)
  --no-build           skip scripts/setup.sh, the wasm build and the emulator build: measure what is
                       already built (wasm/pkg, wasm/pkg-bench, target/emulator/geocache-emulator)
  --keep-temp          keep the temporary builds and database (their path is printed)

  The mobile profile (150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up, CPU 4x slower; first, repeat and offline visits):
  --mobile-sizes 100,10000  the entry counts N of the mobile profile (default 100,10000)
  --mobile-runs K      runs per page and N (default 3; 1 with --quick)
  --mobile-only        only the mobile profile and the wasm breakdown (writes mobile.* and wasm-functions.md,
                       leaves latest.* as they are)
  --no-mobile          skip the mobile profile

  The field visit (400 ms RTT, 400 kbit/s down, 200 kbit/s up, CPU 4x slower, 390 px, 200 entries; cold visits,
  typing for 10 s, then a sign):
  --field-runs K       cold visits per page (default 3; 1 with --quick)
  --field-only         only the field visit (writes field.*, leaves the other results as they are)
  --no-field           skip the field visit

  The live logbook (an insert over REST to the open page painting it; the heap of a page left open):
  --live-size N        the entry count of the live logbook (default 10000)
  --live-samples K     inserts timed one at a time (default 50; 10 with --quick)
  --live-seconds S     how long the page stays open with an insert every second (default 600; 60 with --quick)
  --live-only          only the live logbook (writes live.*, leaves the other results as they are)
  --no-live            skip the live logbook
  --help               this text`;

/**
 * @typedef {object} BenchOptions
 * @property {boolean} quick
 * @property {number[]} sizes
 * @property {(n: number) => number} runsFor
 * @property {number | null} runs            the --runs override, if any
 * @property {number} timeoutMs
 * @property {number} loadSeconds
 * @property {number[]} parseSizes          entry counts of the parse + validation benchmark
 * @property {boolean} noBuild
 * @property {boolean} keepTemp
 * @property {number[]} mobileSizes       entry counts of the mobile profile
 * @property {number} mobileRuns          runs per page and N under the mobile profile
 * @property {boolean} desktop            run the existing measurements (not with --mobile-only)
 * @property {boolean} mobile             run the mobile profile (not with --no-mobile)
 * @property {boolean} live               run the live logbook (not with --no-live)
 * @property {boolean} field              run the field visit (not with --no-field)
 * @property {number} fieldRuns           cold visits per page in the field visit
 * @property {number} liveSize            entries in the live logbook
 * @property {number} liveSamples         inserts timed one at a time
 * @property {number} liveSeconds         seconds of the heap run
 * @property {boolean} help
 */

/**
 * @param {string} flag
 * @param {string} text
 * @param {number} min
 */
function positiveInteger(flag, text, min = 1) {
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < min) throw new Error(`${flag} must be a whole number >= ${min}, got "${text}"`);
  return value;
}

/**
 * @param {string[]} argv
 * @returns {BenchOptions}
 */
export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      runs: { type: 'string' },
      timeout: { type: 'string' },
      'load-seconds': { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'keep-temp': { type: 'boolean', default: false },
      'mobile-sizes': { type: 'string' },
      'mobile-runs': { type: 'string' },
      'mobile-only': { type: 'boolean', default: false },
      'no-mobile': { type: 'boolean', default: false },
      'live-size': { type: 'string' },
      'live-samples': { type: 'string' },
      'live-seconds': { type: 'string' },
      'live-only': { type: 'boolean', default: false },
      'no-live': { type: 'boolean', default: false },
      'field-runs': { type: 'string' },
      'field-only': { type: 'boolean', default: false },
      'no-field': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const quick = Boolean(values.quick);
  const sizes =
    values.sizes !== undefined
      ? values.sizes.split(',').map((part) => positiveInteger('--sizes', part.trim()))
      : quick
        ? [100, 1000]
        : [100, 1000, 10_000, 100_000];
  sizes.sort((a, b) => a - b);
  const runs = values.runs !== undefined ? positiveInteger('--runs', values.runs) : null;
  const largest = sizes[sizes.length - 1];
  if (values['mobile-only'] && values['no-mobile']) throw new Error('--mobile-only and --no-mobile exclude each other');
  if (values['live-only'] && values['no-live']) throw new Error('--live-only and --no-live exclude each other');
  if (values['live-only'] && values['mobile-only']) throw new Error('--live-only and --mobile-only exclude each other');
  if (values['field-only'] && (values['no-field'] || values['live-only'] || values['mobile-only'])) {
    throw new Error('--field-only excludes --no-field, --live-only and --mobile-only');
  }
  const liveOnly = Boolean(values['live-only']);
  const fieldOnly = Boolean(values['field-only']);
  const mobileSizes =
    values['mobile-sizes'] !== undefined
      ? values['mobile-sizes'].split(',').map((part) => positiveInteger('--mobile-sizes', part.trim()))
      : [100, 10_000];
  mobileSizes.sort((a, b) => a - b);
  return {
    quick,
    sizes,
    runs,
    runsFor: (n) => runs ?? (quick ? 1 : n >= 100_000 ? 3 : 5),
    timeoutMs: 1000 * (values.timeout !== undefined ? positiveInteger('--timeout', values.timeout) : 90),
    loadSeconds:
      values['load-seconds'] !== undefined ? positiveInteger('--load-seconds', values['load-seconds']) : quick ? 5 : 10,
    // Parse throughput on the two largest lists measured (the bytes the emulator served for them).
    parseSizes: sizes.filter((n) => n >= 1000).slice(-2).length > 0 ? sizes.filter((n) => n >= 1000).slice(-2) : [largest],
    noBuild: Boolean(values['no-build']),
    keepTemp: Boolean(values['keep-temp']),
    mobileSizes,
    mobileRuns: values['mobile-runs'] !== undefined ? positiveInteger('--mobile-runs', values['mobile-runs']) : quick ? 1 : 3,
    desktop: !values['mobile-only'] && !liveOnly && !fieldOnly,
    mobile: !values['no-mobile'] && !liveOnly && !fieldOnly,
    live: !values['no-live'] && !values['mobile-only'] && !fieldOnly,
    field: !values['no-field'] && !values['mobile-only'] && !liveOnly,
    fieldRuns: values['field-runs'] !== undefined ? positiveInteger('--field-runs', values['field-runs']) : quick ? 1 : 3,
    liveSize: values['live-size'] !== undefined ? positiveInteger('--live-size', values['live-size']) : 10_000,
    liveSamples: values['live-samples'] !== undefined ? positiveInteger('--live-samples', values['live-samples']) : quick ? 10 : 50,
    liveSeconds: values['live-seconds'] !== undefined ? positiveInteger('--live-seconds', values['live-seconds'], 6) : quick ? 60 : 600,
    help: Boolean(values.help),
  };
}
