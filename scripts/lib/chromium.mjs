// @ts-check
// The flags every harness here starts Debian's Chromium with (the tests, the wasm-bindgen runner, the packaging test
// and the benchmark): headless, on a machine without a display or network.
import { findOnPath } from './find-on-path.mjs';

/** Without the background-networking flags Chromium floods a closed network with refused connections. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What Chromium is called on PATH: Debian's name first. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome'];

/**
 * The Chromium to drive: CHROMIUM_PATH, else the first of Debian's (or another distribution's) names on PATH. Fails
 * with what to do rather than guessing an install location.
 */
export function chromiumPath() {
  const found = process.env.CHROMIUM_PATH || findOnPath(CHROMIUM_NAMES);
  if (!found) throw new Error('Chromium was not found on PATH: run scripts/setup.sh, or set CHROMIUM_PATH.');
  return found;
}
