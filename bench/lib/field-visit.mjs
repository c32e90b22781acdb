// @ts-check
/* global document, window, requestAnimationFrame, HTMLInputElement, HTMLTextAreaElement */
// One field visit of one page: a cold first visit on the field's weak link, the visitor typing for 10 s from the
// moment both fields take input, then pressing Sign Logbook. Times run from navigation start, on the page's clock.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.mjs';
import { applyMobileProfile } from './mobile-profile.mjs';
import { installFirstCardProbe, FIRST_CARD_LINE } from './mobile-visits.mjs';

/** 400 ms round trip, 400 kbit/s down, 200 kbit/s up, the CPU 4 times slower than this machine's. */
export const FIELD_PROFILE = Object.freeze({ latencyMs: 400, downloadKbitPerSecond: 400, uploadKbitPerSecond: 200, cpuSlowdown: 4 });

/** A 390 px wide phone. */
export const FIELD_VIEWPORT = Object.freeze({ width: 390, height: 844 });

/** How long the visitor types, from the moment both fields take input. */
export const TYPING_MS = 10_000;

const TYPEABLE_LINE = 'bench:typeable';
const PRESSED_LINE = 'bench:pressed';
const SHOWN_LINE = 'bench:own-entry-shown';

/**
 * Init script (serialised by Playwright: nothing from this module's scope). Stamps three instants on the page's
 * clock, each said on the console once the frame showing it is drawn: both fields take input (present, enabled, not
 * read-only: the served form's, or React's), Sign Logbook pressed, and the visitor's own entry painted in the list.
 */
export function installFieldProbes() {
  /** @param {string} line @param {number} at */
  const say = (line, at) => console.debug(line, at, performance.timeOrigin);
  /** @param {() => boolean} ready @param {string} line */
  const afterFrame = (ready, line) => {
    const watch = () => {
      if (!ready()) return requestAnimationFrame(watch);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        say(line, performance.now());
        channel.port1.close();
      };
      channel.port2.postMessage(null);
    };
    requestAnimationFrame(watch);
  };
  /** @param {Element | null} field */
  const takesInput = (field) =>
    (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) && !field.disabled && !field.readOnly && field.isConnected;
  afterFrame(() => takesInput(document.getElementById('name')) && takesInput(document.getElementById('message')), 'bench:typeable');
  let pressed = false;
  window.addEventListener(
    'click',
    (event) => {
      const target = /** @type {Element | null} */ (event.target);
      if (pressed || target?.closest?.('button[type="submit"]') == null) return;
      pressed = true;
      say('bench:pressed', performance.now());
      const name = /** @type {HTMLInputElement | null} */ (document.getElementById('name'))?.value ?? '';
      afterFrame(
        () => [...document.querySelectorAll('[data-testid="log-entry"]')].some((card) => card.textContent?.includes(name)),
        'bench:own-entry-shown',
      );
    },
    true,
  );
}

/**
 * @typedef {object} FieldRun
 * @property {number | null} typeableMs      both fields take input
 * @property {number | null} firstCardMs     the newest entry painted
 * @property {number | null} signedMs        own entry shown, after 10 s of typing from typeable
 * @property {number | null} pressToShownMs  press of Sign Logbook to own entry shown
 * @property {{ bytes: number, requests: number } | null} beforeTypeable  what crossed the network before typeable
 * @property {string[]} problems
 */

/**
 * A cold field visit of `url`, in a fresh browser profile.
 * @param {{ url: string, timeoutMs: number, name: string }} options
 * @returns {Promise<FieldRun>}
 */
export async function measureFieldVisit({ url, timeoutMs, name }) {
  const profileDir = await mkdtemp(path.join(os.tmpdir(), 'geocache-bench-field-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: FIELD_VIEWPORT,
    isMobile: true,
    hasTouch: true,
  });
  /** @type {string[]} */
  const problems = [];
  /** @type {Map<string, number>} the page's clock at each instant */
  const stamps = new Map();
  /** @type {Promise<{ endWallMs: number, bytes: number }>[]} */
  const responses = [];
  let timeOrigin = 0;
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message.slice(0, 300)}`));
    /** @type {Map<string, () => void>} */
    const waiting = new Map();
    page.on('console', (message) => {
      const [line, at, origin] = message.text().split(' ');
      if (![TYPEABLE_LINE, PRESSED_LINE, SHOWN_LINE, FIRST_CARD_LINE].includes(line) || stamps.has(line)) return;
      stamps.set(line, Number(at));
      timeOrigin = Number(origin);
      waiting.get(line)?.();
    });
    const stamped = (/** @type {string} */ line) =>
      Promise.race([
        new Promise((resolve) => (stamps.has(line) ? resolve(undefined) : waiting.set(line, () => resolve(undefined)))),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${line} within ${timeoutMs / 1000} s`)), timeoutMs)),
      ]);
    context.on('requestfinished', (request) => {
      responses.push(
        (async () => {
          const timing = request.timing();
          if (timing.responseEnd < 0) return { endWallMs: Infinity, bytes: 0 };
          const sizes = await request.sizes().catch(() => ({ responseBodySize: 0, responseHeadersSize: 0 }));
          return { endWallMs: timing.startTime + timing.responseEnd, bytes: sizes.responseBodySize + sizes.responseHeadersSize };
        })(),
      );
    });
    await applyMobileProfile(context, page, FIELD_PROFILE);
    await page.addInitScript(installFirstCardProbe);
    await page.addInitScript(installFieldProbes);

    await page.goto(url, { waitUntil: 'commit', timeout: timeoutMs });
    await stamped(TYPEABLE_LINE);
    const typingEnds = Date.now() + TYPING_MS;
    // The visitor types as a person does, a key at a time, into one field and then the other: keys pressed before the
    // page's scripts take the form over land in the served form.
    await page.locator('#name').click();
    await page.keyboard.type(name, { delay: 120 });
    await page.locator('#message').click();
    while (Date.now() < typingEnds - 300) await page.keyboard.type('tftc ', { delay: 120 });
    await page.waitForTimeout(Math.max(0, typingEnds - Date.now()));
    await page.locator('button[type="submit"]').click();
    await stamped(SHOWN_LINE);
    await stamped(FIRST_CARD_LINE).catch(() => problems.push('the newest entry was not painted'));
    const typeable = stamps.get(TYPEABLE_LINE) ?? null;
    const before = typeable === null ? [] : (await Promise.all(responses)).filter((r) => r.endWallMs <= timeOrigin + typeable);
    const pressed = stamps.get(PRESSED_LINE) ?? null;
    const shown = stamps.get(SHOWN_LINE) ?? null;
    return {
      typeableMs: typeable,
      firstCardMs: stamps.get(FIRST_CARD_LINE) ?? null,
      signedMs: shown,
      pressToShownMs: pressed === null || shown === null ? null : shown - pressed,
      beforeTypeable: typeable === null ? null : { bytes: before.reduce((sum, r) => sum + r.bytes, 0), requests: before.length },
      problems,
    };
  } catch (error) {
    problems.push(/** @type {Error} */ (error).message.split('\n')[0]);
    return {
      typeableMs: stamps.get(TYPEABLE_LINE) ?? null,
      firstCardMs: stamps.get(FIRST_CARD_LINE) ?? null,
      signedMs: null,
      pressToShownMs: null,
      beforeTypeable: null,
      problems,
    };
  } finally {
    await context.close().catch(() => undefined);
    await rm(profileDir, { recursive: true, force: true }).catch(() => undefined);
  }
}
