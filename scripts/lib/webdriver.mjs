// @ts-check
// The browser the wasm-bindgen tests run in. wasm-bindgen-test-runner reads its WebDriver capabilities from the file
// WASM_BINDGEN_TEST_WEBDRIVER_JSON names (or a webdriver.json in the crate), so the Chromium binary comes from
// CHROMIUM_PATH at run time instead of a path written into the repository.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHROMIUM_ARGS } from './chromium.mjs';


/**
 * The first of `names` found on PATH, or undefined.
 * @param {string[]} names
 * @param {NodeJS.ProcessEnv} [env]
 */
export function findOnPath(names, env = process.env) {
  for (const name of names) {
    try {
      const found = execFileSync('sh', ['-c', 'command -v "$1"', 'sh', name], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (found) return found;
    } catch {
      // not on PATH: try the next name
    }
  }
  return undefined;
}

/**
 * The WebDriver capabilities for `binary`.
 * @param {string} binary
 */
export function webdriverCapabilities(binary) {
  if (!path.isAbsolute(binary)) throw new Error(`the Chromium binary must be an absolute path, not ${JSON.stringify(binary)}`);
  return { 'goog:chromeOptions': { binary, args: CHROMIUM_ARGS } };
}

/**
 * Writes webdriver.json for `binary` into `dir`; resolves to the file's path (for WASM_BINDGEN_TEST_WEBDRIVER_JSON).
 * @param {string} dir
 * @param {string} binary
 */
export async function writeWebdriverConfig(dir, binary) {
  const file = path.join(dir, 'webdriver.json');
  await writeFile(file, `${JSON.stringify(webdriverCapabilities(binary), null, 2)}\n`);
  return file;
}
