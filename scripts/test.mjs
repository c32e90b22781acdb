#!/usr/bin/env node
// @ts-check
// `npm test`: every check the project has, failing fast with a banner naming the step, and a table of each step's
// time at the end. `node scripts/test.mjs STEP...` runs only the named steps (after setup), e.g.
// `node scripts/test.mjs e2e`. Steps that build or lint run one after another: the machine's cores are their limit.
// Suites that mostly wait run beside them (scripts/lib/step-runner.mjs), their output printed whole when they end.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmulator } from './lib/emulator.mjs';
import { startFunctionsBackend } from '../tests/fixtures/function-server.mjs';
import { createScratch, findPostgres, removeScratch } from './lib/postgres.mjs';
import { repoRoot } from './lib/repo.mjs';
import { allPassed, run, runSideBySide, runSteps, say, StepFailure, stopCommands } from './lib/step-runner.mjs';
import { pathWithCargoBin, WASM_TARGET, wasmToolchainEnv } from './lib/toolchain.mjs';
import { CHROMIUM_NAMES } from './lib/chromium.mjs';
import { findOnPath } from './lib/find-on-path.mjs';
import { writeWebdriverConfig } from './lib/webdriver.mjs';

const started = Date.now();
process.chdir(repoRoot);
process.env.PATH = pathWithCargoBin();
/** The browser and driver the tests use: looked up once setup has run, since on a new machine setup installs them. */
function findBrowser() {
  process.env.CHROMIUM_PATH ||= findOnPath(CHROMIUM_NAMES) ?? '';
  process.env.CHROMEDRIVER ||= findOnPath(['chromedriver']) ?? '';
}
process.env.CARGO_TERM_COLOR ||= 'always';
// Each build here is compiled once per run: incremental caches would only add gigabytes to target/.
process.env.CARGO_INCREMENTAL ||= '0';
// The wasm auth tests (wasm/tests/support) expect short MFA challenges and a cheap password hash. Every test request
// comes from 127.0.0.1, so the per-address auth rate limits are raised for the browser tests' emulator and (through
// this variable) for every emulator scripts/lib/emulator.mjs starts for the tests.
process.env.GEOCACHE_TEST_RAISE_AUTH_RATE_LIMITS = '1';
const WASM_TEST_EMULATOR_FLAGS = ['--mfa-challenge-expiry', '3', '--password-hash-cost', '4'];

/** What an interrupted or failed run must still stop and remove. */
const cleanups = new Set();
/** @param {() => Promise<void>} cleanup */
async function withCleanup(cleanup, /** @type {() => Promise<void>} */ body) {
  cleanups.add(cleanup);
  try {
    await body();
  } finally {
    cleanups.delete(cleanup);
    await cleanup();
  }
}
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.once(signal, () => {
    // Each step's commands lead process groups of their own, which a terminal's interrupt does not reach.
    stopCommands();
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).then(() =>
      process.exit(128 + os.constants.signals[signal]),
    );
  });
}

async function clippyWasm() {
  const env = wasmToolchainEnv();
  await run('cargo', ['clippy', '-p', 'geocache-client', '--target', WASM_TARGET, '--all-targets', '--', '-D', 'warnings'], { env });
  // The page's two builds (scripts/build-wasm.sh): wasm/pkg-logbook, the reads and signs only, and wasm/pkg-live,
  // the standalone realtime client only; and wasm/pkg-owner, the owner page's.
  for (const features of ['rest', 'realtime', 'auth,realtime']) {
    await run('cargo', ['clippy', '-p', 'geocache-client', '--target', WASM_TARGET, '--no-default-features', '--features', features, '--all-targets', '--', '-D', 'warnings'], { env });
  }
}

// One emulator for the wasm-bindgen browser tests, stopped even when the tests fail; its output is shown then.
async function wasmBrowserTests() {
  if (!process.env.CHROMIUM_PATH || !process.env.CHROMEDRIVER) {
    throw new StepFailure('Chromium or ChromeDriver was not found on PATH: run scripts/setup.sh, or set CHROMIUM_PATH and CHROMEDRIVER.', 1);
  }
  const toolchain = wasmToolchainEnv();
  /** @type {string[]} */
  const output = [];
  // Edge Functions: the tests' function server behind an emulator of its own, whose config lists its functions.
  const functions = await startFunctionsBackend({
    extraArgs: ['--password-hash-cost', '4'],
    onOutput: (line) => output.push(`functions emulator: ${line}`),
  });
  // The row cap and other shared settings come from the Supabase CLI's config, as for `npm start`.
  const emulator = await startEmulator({
    extraArgs: WASM_TEST_EMULATOR_FLAGS,
    raiseAuthRateLimits: true,
    onOutput: (line) => output.push(line),
  }).catch(async (/** @type {unknown} */ error) => {
    await functions.stop();
    throw error;
  });
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'geocache-webdriver-'));
  const stop = async () => {
    await emulator.stop();
    await functions.stop();
    await rm(scratch, { recursive: true, force: true });
  };
  await withCleanup(stop, async () => {
    say(`emulator for the browser tests: ${emulator.url}`);
    const env = {
      ...toolchain,
      EMULATOR_URL: emulator.url,
      EMULATOR_ANON_KEY: emulator.anonKey,
      EMULATOR_SERVICE_ROLE_KEY: emulator.serviceRoleKey,
      EMULATOR_PUBLISHABLE_KEY: emulator.publishableKey,
      EMULATOR_SECRET_KEY: emulator.secretKey,
      FUNCTIONS_EMULATOR_URL: functions.emulator.url,
      FUNCTIONS_EMULATOR_ANON_KEY: functions.emulator.anonKey,
      FUNCTIONS_EMULATOR_PUBLISHABLE_KEY: functions.emulator.publishableKey,
      WASM_BINDGEN_TEST_WEBDRIVER_JSON: await writeWebdriverConfig(scratch, process.env.CHROMIUM_PATH ?? ''),
      WASM_BINDGEN_TEST_TIMEOUT: '60',
      // ChromeDriver makes a ~30 MB profile under TMPDIR per test binary and leaves it when the runner stops it.
      TMPDIR: scratch,
    };
    try {
      // The npm package's features, and `bench`, whose export has browser tests of its own. Realtime's tests, the
      // standalone client's (the page's wasm/pkg-live) among them, run here.
      await run('wasm-pack', ['test', '--headless', '--chrome', 'wasm', '--features', 'bench'], { env });
      // The page's logbook build (wasm/pkg-logbook): the reads and signs without the auth client, so the auth and
      // realtime tests do not compile in.
      await run('wasm-pack', ['test', '--headless', '--chrome', 'wasm', '--no-default-features', '--features', 'rest'], { env });
    } catch (error) {
      say(`Emulator output:\n${output.join('\n')}`);
      throw error;
    }
  });
}

// Debian's PostgreSQL server binaries, installed only where none are found (POSTGRES_BINDIR: elsewhere).
async function ensurePostgresServer() {
  try {
    findPostgres();
    return;
  } catch (error) {
    if (!findOnPath(['apt-get'])) throw error;
  }
  say('installing: postgresql (apt-get; the tests run their own throwaway cluster)');
  await run('bash', ['-c', 'source scripts/lib/toolchain.sh && apt_install postgresql']);
}

// The clusters live under one scratch directory, removed (with any server a crashed test left running) afterwards.
async function postgresTests() {
  await ensurePostgresServer();
  const scratch = await createScratch();
  await withCleanup(
    () => removeScratch(scratch),
    () => run('node', ['--test', '--test-timeout=180000', 'tests/postgres/'], { env: { GEOCACHE_PG_SCRATCH: scratch } }),
  );
}

/**
 * @param {string} command
 * @param {...string} args
 */
const command = (command, ...args) => () => run(command, args);

/** The Playwright projects (tests/playwright.config.ts), each a run of its own, side by side. */
const E2E_PROJECTS = ['production', 'production-offline', 'dev', 'dev-faults'];

// The order: the wasm packages and the emulator binary first, since most suites need them; then the end-to-end suite
// starts, and runs beside everything else, because its tests mostly wait (for retries, back-offs, page servers) while
// the lints and builds that follow need the cores. The other suites that mostly wait (the npm package's install, the
// conformance and PostgreSQL tests) run beside the steps after them too.
/** The wasm packages and the emulator binary, which the suites below run against. */
const BUILDS = ['build-wasm', 'build-emulator'];

/** @type {import('./lib/step-runner.mjs').Step[]} */
const steps = [
  {
    id: 'setup',
    title: 'Toolchain and dependencies (scripts/setup.sh)',
    always: true,
    action: async () => {
      await run('bash', ['scripts/setup.sh']);
      findBrowser();
    },
  },
  { id: 'fmt', title: 'Rust formatting (cargo fmt --check)', action: command('cargo', 'fmt', '--all', '--check') },
  // The bench build too: ESLint and the type check read bench/parse against its extra export.
  {
    id: 'build-wasm',
    title: 'wasm packages (scripts/build-wasm.sh, and its bench build)',
    action: async () => {
      await run('bash', ['scripts/build-wasm.sh']);
      await run('bash', ['scripts/build-wasm.sh', 'bench']);
    },
  },
  { id: 'build-emulator', title: 'Emulator binary (cargo build -p geocache-emulator)', action: command('cargo', 'build', '-p', 'geocache-emulator') },
  // Each run keeps its own port for the backend its production builds name, so the runs never share one.
  {
    id: 'e2e',
    title: `End-to-end (Playwright, Chromium: ${E2E_PROJECTS.join(', ')}, side by side)`,
    beside: true,
    needs: BUILDS,
    action: () =>
      runSideBySide(
        E2E_PROJECTS.map((project) => ({
          label: `end-to-end, ${project}`,
          command: 'node_modules/.bin/playwright',
          args: ['test', '--config', 'tests/playwright.config.ts', '--project', project, '--output', `tests/test-results/${project}`],
        })),
      ),
  },
  { id: 'clippy', title: 'Rust lints, host (cargo clippy -D warnings)', action: command('cargo', 'clippy', '--workspace', '--all-targets', '--', '-D', 'warnings') },
  { id: 'clippy-wasm', title: 'Rust lints, wasm32 (cargo clippy -p geocache-client)', action: clippyWasm },
  { id: 'cargo-test', title: 'Rust tests: core, wasm (host), emulator (cargo test)', action: command('cargo', 'test', '--workspace') },
  { id: 'typecheck', title: 'TypeScript: app, tests, generated wasm/pkg types (tsc --noEmit)', needs: ['build-wasm'], action: command('npm', 'run', 'typecheck') },
  { id: 'eslint', title: 'ESLint', action: command('node_modules/.bin/eslint', '.') },
  // The import rules themselves: a deliberate cycle and boundary crossings must fail them. The same folder holds the
  // Rust crates' module-graph checks (scripts/lib/rust-module-graph.mjs: no cycles, and the emulator's ground-floor
  // modules import no service), run on the real tree and on deliberate breaches, and the documentation's link check (remark-validate-links), run on README.md and docs/ and on broken pages.
  { id: 'lint-rules', title: 'Import rules, the Rust module graph and the docs\' links catch what they must (node --test)', action: command('node', '--test', 'tests/lint/') },
  { id: 'vitest', title: 'App component tests (Vitest)', needs: ['build-wasm'], action: command('npm', 'test', '-w', 'app') },
  // The benchmark's harness (statistics, targets, report); the measurements themselves are `npm run bench`.
  { id: 'bench-lib', title: 'Benchmark harness unit tests (node --test bench/lib)', action: command('node', '--test', 'bench/lib/') },
  // The npm package as its users get it: packed, installed into a fresh Vite project, run in Chromium; publint, attw.
  { id: 'packaging', title: 'npm package: pack, install, build and run in Chromium; publint, attw (node --test)', beside: true, needs: BUILDS, action: command('node', '--test', '--test-timeout=300000', 'tests/packaging/') },
  { id: 'conformance', title: 'Emulator conformance with @supabase/supabase-js (node --test)', beside: true, needs: BUILDS, action: command('node', '--experimental-websocket', '--test', 'tests/conformance/') },
  { id: 'postgres', title: 'Migration on PostgreSQL: roles, index, parity with the emulator (node --test)', beside: true, needs: ['build-emulator'], action: postgresTests },
  { id: 'wasm-browser', title: 'wasm-bindgen tests in headless Chromium against the emulator', needs: ['build-emulator'], action: wasmBrowserTests },
  { id: 'production-build', title: 'Production build: npm run build output, CSP, lazy wasm (node --test)', needs: BUILDS, action: command('node', '--test', '--test-timeout=300000', 'tests/build/') },
];

const selected = process.argv.slice(2);
const known = steps.filter((step) => !step.always).map((step) => step.id);
for (const name of selected) {
  if (!known.includes(name)) {
    console.error(`error: unknown step '${name}'; steps: ${known.join(' ')}`);
    process.exit(1);
  }
}
try {
  allPassed(await runSteps(steps, selected), Date.now() - started);
} catch (error) {
  if (!(error instanceof StepFailure)) throw error;
  process.exitCode = error.exitCode;
}
