// @ts-check
// Debian's Chromium through playwright-core (browser downloads do not work here): no browser download; a fresh browser, and so a
// fresh temporary profile, for every measurement.
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/lib/chromium.mjs';

export const CHROMIUM_PATH = chromiumPath();

export { CHROMIUM_ARGS };

/** A desktop viewport; the same for both pages. */
export const VIEWPORT = { width: 1280, height: 800 };

/** @param {string[]} [extraArgs] */
export function launchBrowser(extraArgs = []) {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true });
}

/**
 * Closes the browser (Playwright kills the browser process it launched if it does not exit); never waits more
 * than the grace period, so one stuck renderer cannot hang the whole benchmark.
 * @param {import('playwright-core').Browser} browser
 */
export async function closeBrowser(browser, graceMs = 15_000) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const closing = browser.close().catch(() => undefined);
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  if ((await Promise.race([closing, late])) === 'late') console.warn('bench: a browser did not close within 15 s');
  clearTimeout(timer);
}

/** The Chromium version string, e.g. "156.0.8078.79". */
export async function chromiumVersion() {
  const browser = await launchBrowser();
  try {
    return browser.version();
  } finally {
    await closeBrowser(browser);
  }
}
