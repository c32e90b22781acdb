// @ts-check
// The npm package (wasm/pkg) as its users get it: `npm pack`ed, checked with publint and attw, installed from the
// tarball into a fresh Vite project outside the workspace, built, served by `vite preview` and run in Chromium
// against an emulator: createClient → listEntries → signLogbook → listEntries.
// Run after `bash scripts/build-wasm.sh` and `cargo build -p geocache-emulator` (npm test's "packaging" step).
import { chromium } from '@playwright/test';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { promisify } from 'node:util';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import { findFreePort } from '../../scripts/lib/ports.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';
import { buildApp, startVitePreview } from '../../scripts/lib/vite.mjs';
import { CHROMIUM_ARGS } from '../../scripts/lib/chromium.mjs';

const run = promisify(execFile);
const packageDir = path.join(repoRoot, 'wasm', 'pkg');
const bin = (/** @type {string} */ name) => path.join(repoRoot, 'node_modules', '.bin', name);
/** @param {string} name */
const installedVersion = (name) =>
  JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;

/** @type {string} */
let scratch;
/** @type {string} */
let tarball;
/** @type {string} */
let unpacked;

before(async () => {
  if (!existsSync(path.join(packageDir, 'package.json'))) {
    throw new Error('wasm/pkg is missing: run `bash scripts/build-wasm.sh` first.');
  }
  // Outside the workspace, so nothing resolves from the workspace's own node_modules.
  scratch = await mkdtemp(path.join(os.tmpdir(), 'geocache-packaging-'));
  const { stdout } = await run('npm', ['pack', packageDir, '--pack-destination', scratch, '--json'], { cwd: scratch });
  tarball = path.join(scratch, JSON.parse(stdout)[0].filename);
  unpacked = path.join(scratch, 'unpacked');
  await mkdir(unpacked);
  await run('tar', ['-xzf', tarball, '-C', unpacked]);
});

after(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test('the tarball holds the module, its types, the README with a usage example, and the MIT license', async () => {
  const files = await readdir(path.join(unpacked, 'package'));
  for (const file of ['package.json', 'README.md', 'LICENSE', 'geocache_client.js', 'geocache_client_bg.wasm', 'geocache_client.d.ts']) {
    assert.ok(files.includes(file), `${file} is not in the tarball (it has ${files.join(', ')})`);
  }
  const manifest = JSON.parse(readFileSync(path.join(unpacked, 'package', 'package.json'), 'utf8'));
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(path.join(unpacked, 'package', 'LICENSE'), 'utf8'), /^MIT License/);
  assert.deepEqual(manifest.exports['.'], { types: './geocache_client.d.ts', default: './geocache_client.js' });
  assert.equal(manifest.repository.directory, 'wasm');
  const readme = readFileSync(path.join(unpacked, 'package', 'README.md'), 'utf8');
  for (const call of ['createClient(', 'listEntries(', 'signLogbook(']) assert.ok(readme.includes(call), `the README never shows ${call}`);
});

test('the benchmark export and the global panic hook are left out of the default build', () => {
  const types = readFileSync(path.join(unpacked, 'package', 'geocache_client.d.ts'), 'utf8');
  assert.ok(types.includes('export function createClient('), 'the declarations lack createClient');
  assert.ok(!types.includes('parseEntriesForBenchmark'), 'parseEntriesForBenchmark is in the npm package');
  // console_error_panic_hook reads `Error.stack` through an import of its own, which no other code here needs.
  const glue = readFileSync(path.join(unpacked, 'package', 'geocache_client_bg.js'), 'utf8');
  assert.ok(!glue.includes('__wbg_stack_'), 'the panic hook (its Error.stack import) is in the npm package');
  assert.ok(!glue.includes('parseEntriesForBenchmark'), 'the glue exports parseEntriesForBenchmark');
});

test('publint: no errors, warnings or suggestions', async () => {
  const { stdout } = await run(bin('publint'), ['run', path.join(unpacked, 'package'), '--pack', 'false', '--strict', '--level', 'suggestion']);
  assert.match(stdout, /All good!/, stdout);
});

test('are the types wrong: the types resolve for bundlers and Node (ESM)', async () => {
  // ESM only, like every wasm-bindgen bundler package: require() from CommonJS is not offered.
  const { stdout } = await run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii']).catch((error) => {
    throw new Error(`attw found problems:\n${error.stdout}${error.stderr}`);
  });
  // attw exits non-zero on any problem the profile does not ignore; the bundler and ESM resolutions must be green.
  assert.match(stdout, /node16 \(from ESM\): 🟢 \(ESM\)/u, stdout);
  assert.match(stdout, /bundler: 🟢/u, stdout);
});

test('installed from the tarball into a fresh Vite project, the built page signs the logbook in Chromium', async (t) => {
  const project = path.join(scratch, 'app');
  await mkdir(path.join(project, 'src'), { recursive: true });
  const manifest = {
    name: 'geocache-client-packaging-test',
    private: true,
    type: 'module',
    dependencies: { 'geocache-client': `file:${tarball}` },
    devDependencies: { vite: installedVersion('vite'), 'vite-plugin-wasm': installedVersion('vite-plugin-wasm') },
  };
  await writeFile(path.join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  await writeFile(
    path.join(project, 'vite.config.js'),
    "import { defineConfig } from 'vite';\nimport wasm from 'vite-plugin-wasm';\n\nexport default defineConfig({ plugins: [wasm()] });\n",
  );
  await writeFile(
    path.join(project, 'index.html'),
    '<!doctype html>\n<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>geocache-client</title></head>\n' +
      '<body><pre id="result">running</pre><script type="module" src="/src/main.js"></script></body></html>\n',
  );
  // What the README shows: the page reports what it read and signed, or the error it got.
  await writeFile(
    path.join(project, 'src', 'main.js'),
    `import { createClient } from 'geocache-client';

const params = new URLSearchParams(location.search);
const result = document.getElementById('result');
try {
  const client = createClient(params.get('url'), params.get('key'));
  const before = await client.listEntries();
  const countBefore = before.length;
  before.free();
  await client.signLogbook({ name: 'Packaging test', message: 'Installed from the tarball' });
  const after = await client.listEntries();
  const newest = after.get(0);
  result.textContent = JSON.stringify({ countBefore, countAfter: after.length, name: newest.name, message: newest.message });
  after.free();
  client.dispose();
} catch (error) {
  result.textContent = JSON.stringify({ error: String(error) });
}
`,
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: project });

  const vite = path.join(project, 'node_modules', '.bin', 'vite');
  const outDir = path.join(project, 'dist');
  await buildApp({ outDir, cwd: project, binary: vite, extraArgs: ['--logLevel', 'warn'] });
  const preview = await startVitePreview({ outDir, cwd: project, binary: vite, port: await findFreePort() });
  t.after(() => preview.stop());
  const emulator = await startEmulator();
  t.after(() => emulator.stop());

  const executablePath = process.env.CHROMIUM_PATH;
  assert.ok(executablePath, 'CHROMIUM_PATH names no Chromium (npm test sets it from PATH)');
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS.filter((arg) => arg !== '--headless') });
  t.after(() => browser.close());
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  const query = new URLSearchParams({ url: emulator.url, key: emulator.publishableKey });
  await page.goto(`${preview.url}?${query}`);
  // A string: it runs in the page, not here.
  await page.waitForFunction("document.getElementById('result')?.textContent !== 'running'", undefined, { timeout: 30_000 });
  const result = JSON.parse((await page.textContent('#result')) ?? '');
  assert.deepEqual(result, { countBefore: 0, countAfter: 1, name: 'Packaging test', message: 'Installed from the tarball' });
  assert.deepEqual(errors, []);
});
