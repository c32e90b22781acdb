// The served form takes input and signs from its first paint, before any script file has arrived, on the field's
// weak link (throttled through the DevTools protocol, as the benchmark's field visit is): what is typed survives
// React's takeover, and a sign pressed before the client is ready is accepted at once, sent once the client can send
// it (or kept in the outbox offline) and stored once. Until it is stored nothing else competes with it: no manifest,
// no service worker. The scripts are held by request interception until the test has typed and pressed.
import type { BrowserContext, Page } from '@playwright/test';
import { readTable } from './fault-plan.ts';
import { fetchAnew } from './fetch-anew.ts';
import { consoleErrorLabels, expect, logbookPage, test } from './fixtures.ts';
import { requestGate } from './request-gate.ts';

/**
 * The field visit's link: 400 ms round trip, 400 kbit/s down, 200 kbit/s up, a 4× slower CPU. Going offline goes
 * through the same session, whose network conditions would otherwise stand beside Playwright's own.
 */
async function throttleLikeTheField(context: BrowserContext, page: Page): Promise<(offline: boolean) => Promise<void>> {
  const cdp = await context.newCDPSession(page);
  const conditions = (offline: boolean) => cdp.send('Network.emulateNetworkConditions', { offline, latency: 400, downloadThroughput: 50_000, uploadThroughput: 25_000 });
  await cdp.send('Network.enable');
  await conditions(false);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return async (offline) => void (await conditions(offline));
}

/**
 * Holds every script file and .wasm the page asks for until `release()`. Each is fetched as it is asked for (from the
 * test, so an offline page still gets it) and handed over once released.
 */
async function holdScripts(page: Page) {
  const gate = requestGate();
  await page.route(/\/assets\/[^/]+\.(js|wasm)$/, async (route) => {
    gate.held.push(new URL(route.request().url()).pathname);
    const response = await fetchAnew(route.request().url());
    await gate.released;
    await route.fulfill(response);
  });
  return gate;
}

/** Marks the served fields, so a test can tell when React's own have replaced them. */
function markServedFields(page: Page): Promise<void> {
  return page.evaluate(() => {
    for (const id of ['name', 'message']) document.getElementById(id)?.setAttribute('data-served', '');
  });
}

/** Waits until React's form has replaced the served one. */
async function reactTookOver(page: Page): Promise<void> {
  await expect(page.locator('#name:not([data-served])')).toHaveCount(1, { timeout: 60_000 });
}

/** Opens the page with its scripts held: the served form is shown, and no script file has arrived. */
async function openHeld(page: Page, context: BrowserContext) {
  const setOffline = await throttleLikeTheField(context, page);
  const scripts = await holdScripts(page);
  // Not until "load": the page's module script is held, and so is the DOMContentLoaded that waits for it.
  await page.goto('/', { waitUntil: 'commit' });
  const logbook = logbookPage(page);
  await expect(logbook.name).toBeEditable({ timeout: 60_000 });
  await expect(logbook.message).toBeEditable();
  await markServedFields(page);
  // The entry script was asked for and is held: nothing of the page's own code has run.
  expect(scripts.held.length).toBeGreaterThan(0);
  return { logbook, scripts, setOffline };
}

test.describe('the served form', () => {
  test.skip(({ pageServer }) => pageServer !== 'production', 'the served form is the production build\'s prerendered page');

  test('keeps what was typed before the scripts arrived, with its focus and caret, when React takes it over', async ({ page, context }) => {
    const { logbook, scripts } = await openHeld(page, context);
    await logbook.name.pressSequentially('Ann');
    await logbook.message.pressSequentially('Found it');
    // The caret after "Found".
    for (let index = 0; index < 3; index += 1) await page.keyboard.press('ArrowLeft');

    scripts.release();
    await reactTookOver(page);
    await expect(logbook.name).toHaveValue('Ann');
    await expect(logbook.message).toHaveValue('Found it');
    await expect(logbook.message).toBeFocused();
    // Typing goes on where the caret was.
    await page.keyboard.type(' out');
    await expect(logbook.message).toHaveValue('Found out it');
    await expect(logbook.submit).toHaveText('Sign Logbook');
  });

  test('accepts a sign pressed before the client is ready, sends it once it can, stores it once and shows it; nothing else is fetched meanwhile', async ({ page, context, stack }) => {
    // Every registration of a service worker the page asks for, and when.
    await page.addInitScript(() => {
      const calls: string[] = [];
      (window as unknown as { serviceWorkerRegistrations: string[] }).serviceWorkerRegistrations = calls;
      const container = navigator.serviceWorker;
      const register = container.register.bind(container);
      container.register = (...args: Parameters<ServiceWorkerContainer['register']>) => {
        calls.push(String(args[0]));
        return register(...args);
      };
    });
    // The insert is held until the test has seen what the page fetches while it is in flight.
    const insert = requestGate();
    await page.route('**/rest/v1/geocache_logs*', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      insert.held.push('insert');
      await insert.released;
      await route.continue();
    });
    // The live entries' code (its JavaScript and its own .wasm), and whether a sign was in flight when it was asked for.
    const liveAskedWhileHeld: boolean[] = [];
    let insertReleased = false;
    page.on('request', (request) => {
      if (/\/assets\/geocache_live/.test(new URL(request.url()).pathname)) liveAskedWhileHeld.push(insertReleased === false);
    });
    const { logbook, scripts } = await openHeld(page, context);
    await logbook.name.fill('Early bird');
    await logbook.message.fill('Signed before the page had loaded');
    await logbook.submit.click();
    // Accepted at once, by the served page's own inline script.
    await expect(logbook.submit).toHaveText('Signing…');
    await expect(logbook.submit).toBeDisabled();
    await expect(logbook.status).toHaveText('Signing…');

    scripts.release();
    await reactTookOver(page);
    await expect(logbook.submit).toHaveText('Signing…');
    await expect(logbook.status).toHaveText('Signing…');
    // React renders only after the first entries were painted, and the manifest and the service worker would have
    // been asked for by then: while the sign is in flight they wait.
    await expect.poll(() => insert.held.length, { timeout: 60_000 }).toBeGreaterThan(0);
    await expect(page.locator('link[rel="manifest"]')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { serviceWorkerRegistrations: string[] }).serviceWorkerRegistrations)).toEqual([]);
    // The live entries start once a read has settled and the browser is idle: two idle turns after React's takeover
    // give them their chance to be asked for, and they wait too.
    await page.evaluate(async () => {
      for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 }));
    });
    expect(liveAskedWhileHeld).toEqual([]);

    insertReleased = true;
    insert.release();
    await expect(logbook.status).toHaveText('Signed.', { timeout: 60_000 });
    await expect(logbook.entries.filter({ hasText: 'Early bird' })).toHaveCount(1, { timeout: 60_000 });
    await expect(logbook.name).toHaveValue('');
    await expect(logbook.message).toHaveValue('');
    expect((await readTable(stack.emulator)).filter((row) => row.name === 'Early bird')).toHaveLength(1);
    // Once it is stored, the rest comes.
    await expect(page.locator('link[rel="manifest"]')).toHaveCount(1, { timeout: 60_000 });
    await expect.poll(() => page.evaluate(() => (window as unknown as { serviceWorkerRegistrations: string[] }).serviceWorkerRegistrations.length)).toBe(1);
    await expect.poll(() => liveAskedWhileHeld.length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(liveAskedWhileHeld.filter((during) => during)).toEqual([]);
  });

  test('a sign pressed before the client is ready and then refused keeps the text, says why, and keeps nothing for later', async ({ page, context, stack, record }) => {
    // The logbook refuses it as a hosted project's sign limit would.
    await page.route('**/rest/v1/geocache_logs*', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 429,
            contentType: 'application/json',
            body: JSON.stringify({ code: 'P0001', details: null, hint: null, message: 'too many signs' }),
          })
        : route.fallback(),
    );
    const { logbook, scripts } = await openHeld(page, context);
    await logbook.name.fill('Hasty bird');
    await logbook.message.fill('Refused, but not lost');
    await logbook.submit.click();
    await expect(logbook.status).toHaveText('Signing…');

    scripts.release();
    await expect(logbook.status).toHaveText('Not signed: too many signs in a short time; please try again later.', { timeout: 60_000 });
    await reactTookOver(page);
    // The spec's failed submit: the fields keep the text, the button signs again, the page logs the error.
    await expect(logbook.submit).toHaveText('Sign Logbook');
    await expect(logbook.submit).toBeEnabled();
    await expect(logbook.name).toHaveValue('Hasty bird');
    await expect(logbook.message).toHaveValue('Refused, but not lost');
    await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error inserting log:']);
    // A refusal is not kept for a later send, and nothing was stored.
    await expect(logbook.pending).toHaveCount(0);
    await expect(logbook.entries.filter({ hasText: 'Hasty bird' })).toHaveCount(0);
    expect(await readTable(stack.emulator)).toEqual([]);
    // The sign has ended: what waited for it comes.
    await expect(page.locator('link[rel="manifest"]')).toHaveCount(1, { timeout: 60_000 });
  });

  test.describe('offline', () => {
    // The page delivers it when the connection returns. A service worker registered while the context is offline
    // would be a target the offline emulation may reach too late, and could send it first.
    test.use({ serviceWorkers: 'block' });

    test('keeps a sign pressed (Enter) before the client is ready while offline in the outbox, and delivers it once', async ({ page, context, stack }) => {
      const { logbook, scripts, setOffline } = await openHeld(page, context);
      await logbook.name.fill('Offline bird');
      await logbook.message.fill('No signal at the cache');
      await setOffline(true);
      await logbook.name.press('Enter');
      await expect(logbook.status).toHaveText('Signing…');

      scripts.release();
      await expect(logbook.status).toHaveText('Saved on this device: it will be sent when the connection returns.', { timeout: 60_000 });
      await expect(logbook.pending).toHaveCount(1);
      await expect(logbook.name).toHaveValue('Offline bird');
      expect(await readTable(stack.emulator)).toEqual([]);

      await setOffline(false);
      await expect(logbook.status).toHaveText('Signed: the sign saved on this device was sent.', { timeout: 60_000 });
      await expect(logbook.pending).toHaveCount(0);
      await expect(logbook.entries.filter({ hasText: 'Offline bird' })).toHaveCount(1);
      await expect(logbook.name).toHaveValue('');
      expect((await readTable(stack.emulator)).map((row) => row.name)).toEqual(['Offline bird']);
    });
  });
});
