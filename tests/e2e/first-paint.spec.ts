// A first visit (nothing kept on the device) paints the first page of entries as soon as the wasm client has read
// it, before React's code is even asked for; React, the logbook's code, the service worker and the manifest come
// after. A read that fails still brings React, which reports it as before.
import type { Page } from '@playwright/test';
import { consoleErrorLabels, expect, logbookPage, test } from './fixtures.ts';
import { requestGate } from './request-gate.ts';

/** React's entry module (dev) or chunk (production), which main.tsx imports to render the page. */
const RENDER_APP_CODE = /\/(src\/app\/render-app\.tsx|assets\/render-app-[\w-]+\.js)$/;
/** The logbook component's module (dev) or chunk (production). */
const LOGBOOK_CODE = /\/(src\/features\/logbook\/components\/logbook\.tsx|assets\/logbook-[\w-]{8}\.js)$/;
const TABLE_URL = '**/rest/v1/geocache_logs*';
const pathOf = (url: URL | string) => new URL(url).pathname;

/** Stores entries directly in the emulator, one after another (the last one is the newest). */
async function seedEntries(emulator: { url: string; anonKey: string }, entries: { name: string; message: string }[]) {
  for (const entry of entries) {
    const response = await fetch(`${emulator.url}/rest/v1/geocache_logs`, {
      method: 'POST',
      headers: { apikey: emulator.anonKey, authorization: `Bearer ${emulator.anonKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(entry),
    });
    expect(response.status).toBe(201);
  }
}

/** The cards shown, as "name: message", in order. */
function shownCards(page: Page): Promise<string[]> {
  return page
    .getByTestId('log-entry')
    .evaluateAll((cards) => cards.map((card) => `${card.querySelector('.entry-name')?.textContent}: ${card.querySelector('.entry-message')?.textContent}`));
}

/** The page's performance marks whose names start with "geocache:". */
function marks(page: Page): Promise<string[]> {
  return page.evaluate(() => performance.getEntriesByType('mark').map((mark) => mark.name).filter((name) => name.startsWith('geocache:')));
}

test('a first visit whose read fails still loads React, which shows the logbook and reports the failure', async ({ page, stack, record, pageServer }) => {
  await seedEntries(stack.emulator, [{ name: 'Seed', message: 'hidden by the failure' }]);
  await page.route(TABLE_URL, (route) =>
    route.request().method() === 'GET' ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'Service Unavailable' }) : route.continue(),
  );
  const order: string[] = [];
  page.on('response', (response) => {
    if (response.url().includes('/rest/v1/geocache_logs')) order.push('read answered');
  });
  page.on('request', (request) => {
    if (RENDER_APP_CODE.test(pathOf(request.url()))) order.push('react asked for');
  });

  await page.goto('/');
  const logbook = logbookPage(page);
  await expect(logbook.entriesHeading).toBeVisible();
  await expect(logbook.name).toBeEditable();
  await expect.poll(async () => (await consoleErrorLabels(record)).length).toBeGreaterThan(0);
  for (const label of await consoleErrorLabels(record)) expect(label).toBe('Error fetching logs:');
  await expect(logbook.entries).toHaveCount(0);
  expect(order).toContain('read answered');
  // With a served logbook to paint into, React is asked for once the read has failed (nothing to wait for any
  // longer), not before; the dev server serves none, so React is asked for at once there.
  if (pageServer === 'production') expect(order.indexOf('react asked for')).toBeGreaterThan(order.indexOf('read answered'));
  expect(record.pageErrors).toEqual([]);
});

test.describe('the production build', () => {
  // The dev server serves no prerendered logbook to paint into: there, React renders the first entries.
  test.skip(({ pageServer }) => pageServer !== 'production', "the served logbook, index.html's hints, the manifest and the service worker are the production build's");

  test('a first visit paints the first page from the network before React is asked for, and React takes over the same cards', async ({ page, stack, record }) => {
    await seedEntries(stack.emulator, [
      { name: 'Ada', message: 'First in' },
      { name: 'Bo', message: '<b>not bold</b>' },
      { name: 'Cy', message: 'Newest' },
    ]);
    const expected = ['Cy: Newest', 'Bo: <b>not bold</b>', 'Ada: First in'];

    // React's and the logbook's code are held; when each is asked for, the cards already on the page are counted.
    const cardsWhenAsked: Record<string, number> = {};
    const code = requestGate();
    for (const [name, pattern] of [['react', RENDER_APP_CODE], ['logbook', LOGBOOK_CODE]] as const) {
      await code.hold(page, (url) => pattern.test(pathOf(url)), async () => {
        cardsWhenAsked[name] ??= await page.getByTestId('log-entry').count();
      });
    }

    await page.goto('/');
    const logbook = logbookPage(page);
    await expect(logbook.entries).toHaveCount(3);
    expect(await shownCards(page)).toEqual(expected);
    await expect(logbook.entries.first().locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}/);
    // Painted as text: the message's markup is shown, not parsed.
    await expect(logbook.entries.locator('b')).toHaveCount(0);
    await expect(logbook.name).toBeEditable();
    await expect.poll(() => cardsWhenAsked).toEqual({ react: 3, logbook: 3 });
    const beforeReact = await marks(page);
    expect(beforeReact).toContain('geocache:first-page-painted');
    expect(beforeReact).not.toContain('geocache:kept-entries-painted');
    expect(beforeReact).not.toContain('geocache:react-render');

    code.release();
    await expect(logbook.name).toBeEnabled();
    await expect(logbook.submit).toBeEnabled();
    // The served form takes input before React renders, so enabled fields do not mean React has: wait for its mark.
    await expect.poll(() => marks(page)).toContain('geocache:react-render');
    await expect(logbook.entries).toHaveCount(3);
    expect(await shownCards(page)).toEqual(expected);
    expect(await consoleErrorLabels(record)).toEqual([]);
    expect(record.pageErrors).toEqual([]);
  });

  test("a first visit asks at once for what the first entries need; the manifest and the worker come once they're painted", async ({ page, stack }) => {
    const served = await (await page.request.get('/')).text();
    // The served page's inline script lists them, and asks for them when the device has nothing to paint.
    const inline = /<script id="geocache-early-paint" ([^>]*)>/.exec(served)?.[1] ?? '';
    expect(inline).toMatch(/data-first-visit-wasm="\/assets\/geocache_client_bg-[\w-]{8}\.wasm"/);
    expect(inline).toMatch(/data-first-visit-scripts="[^"]*\/assets\/prefetch-entries-[\w-]{8}\.js[^"]*"/);
    expect(inline).toMatch(/data-first-visit-scripts="[^"]*\/assets\/client-[\w-]{8}\.js[^"]*"/);
    expect(served).not.toMatch(/render-app-|\/assets\/logbook-[\w-]{8}\.js|register-service-worker|rel="manifest"/);

    await seedEntries(stack.emulator, [{ name: 'Ada', message: 'Hello' }]);
    // The first page is held: until it is painted, nothing but the first entries' own files is fetched.
    let releaseRead!: () => void;
    const readReleased = new Promise<void>((resolve) => (releaseRead = resolve));
    let readAsked!: () => void;
    const readAskedFor = new Promise<void>((resolve) => (readAsked = resolve));
    await page.route(TABLE_URL, async (route) => {
      if (route.request().method() === 'GET') {
        readAsked();
        await readReleased;
      }
      await route.continue();
    });
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(pathOf(request.url())));
    await page.goto('/');
    await readAskedFor;
    await expect(page.locator('link[rel="preload"][as="fetch"][type="application/wasm"][href^="/assets/geocache_client_bg-"]')).toHaveCount(1);
    await expect(page.locator('link[rel="modulepreload"][href^="/assets/prefetch-entries-"]')).not.toHaveCount(0);
    // Time for anything that was not waiting to be asked for.
    await page.waitForTimeout(500);
    expect(fetched.filter((file) => /render-app-|\/assets\/logbook-[\w-]{8}\.js$|register-service-worker|workbox|manifest\.webmanifest|icon-/.test(file))).toEqual([]);
    await expect(page.locator('link[rel="manifest"]')).toHaveCount(0);
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0);

    releaseRead();
    await expect(logbookPage(page).entries).toHaveCount(1);
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
    await expect.poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(1);
    await expect(logbookPage(page).name).toBeEnabled();
  });
});
