// @ts-check
// The npm package as built (wasm/pkg, wasm-pack's bundler target), loaded into a headless Chromium page without a
// bundler: a small server hands out the package's files, and in place of the `.wasm` module the bundler would resolve
// it sends a JS module that instantiates the wasm with the package's own glue and re-exports its exports by name.
// The page comes from its own localhost port, so its calls to the emulator go through CORS as an app's would.
// Run after `bash scripts/build-wasm.sh`.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../scripts/lib/chromium.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';

const packageDir = path.join(repoRoot, 'wasm', 'pkg');
const WASM_FILE = 'geocache_client_bg.wasm';

/**
 * The JS module served in place of the wasm file: the instance's exports under their own names.
 * @param {Buffer} bytes
 */
function wasmShim(bytes) {
  const module = new WebAssembly.Module(new Uint8Array(bytes));
  const importModules = [...new Set(WebAssembly.Module.imports(module).map((entry) => entry.module))];
  const exportNames = WebAssembly.Module.exports(module).map((entry) => entry.name);
  const lines = importModules.map((name, index) => `import * as imports${index} from ${JSON.stringify(name)};`);
  const importObject = importModules.map((name, index) => `${JSON.stringify(name)}: imports${index}`).join(', ');
  lines.push(
    `const { instance } = await WebAssembly.instantiateStreaming(fetch('/raw/${WASM_FILE}'), { ${importObject} });`,
    ...exportNames.map((name) => `export const ${name} = instance.exports.${name};`),
  );
  return lines.join('\n');
}

/**
 * Serves wasm/pkg on a free port until the test ends, and `modules` (URL path → file) beside it.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} modules
 * @returns {Promise<string>} the page's URL
 */
async function servePackage(t, modules) {
  if (!existsSync(path.join(packageDir, WASM_FILE))) {
    throw new Error('wasm/pkg is missing: run `bash scripts/build-wasm.sh` first.');
  }
  const wasm = await readFile(path.join(packageDir, WASM_FILE));
  const shim = wasmShim(wasm);
  const page = '<!doctype html><title>geocache-client</title><script type="module">'
    + 'import * as client from "/geocache_client.js"; globalThis.geocacheClient = client; globalThis.ready = true;'
    + '</script>';
  const server = http.createServer((request, response) => {
    const name = (request.url ?? '/').split('?')[0] ?? '/';
    const send = (/** @type {string} */ type, /** @type {string | Buffer} */ body) =>
      response.writeHead(200, { 'content-type': type }).end(body);
    if (name === '/') return send('text/html', page);
    if (name === `/${WASM_FILE}`) return send('text/javascript', shim);
    if (name === `/raw/${WASM_FILE}`) return send('application/wasm', wasm);
    const file = modules[name] ?? (/^\/[\w.-]+\.js$/.test(name) ? path.join(packageDir, name.slice(1)) : undefined);
    if (file !== undefined) {
      readFile(file).then(
        (body) => send('text/javascript', body),
        () => response.writeHead(404).end(),
      );
      return undefined;
    }
    return response.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => new Promise((resolve) => server.close(() => resolve(undefined))));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return `http://localhost:${address.port}/`;
}

/**
 * A Chromium page with the package loaded as `globalThis.geocacheClient`, closed when the test ends. `modules` are
 * more ES modules the page may import, by URL path (e.g. `{ '/cases.mjs': '/abs/path/cases.mjs' }`).
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} [modules]
 */
export async function openClientPage(t, modules = {}) {
  const url = await servePackage(t, modules);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  t.after(() => browser.close());
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForFunction(() => /** @type {any} */ (globalThis).ready === true, undefined, { timeout: 30_000 }).catch((error) => {
    throw new Error(`the package did not load: ${errors.join('; ') || error.message}`);
  });
  return page;
}
