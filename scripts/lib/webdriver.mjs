// @ts-check
// The browser the wasm-bindgen tests run in. wasm-bindgen-test-runner reads its WebDriver capabilities from the file
// WASM_BINDGEN_TEST_WEBDRIVER_JSON names (or a webdriver.json in the crate), so the Chromium binary comes from
// CHROMIUM_PATH at run time instead of a path written into the repository.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHROMIUM_ARGS } from './chromium.mjs';

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
