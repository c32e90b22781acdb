// The logbook kept on the device (IndexedDB): a repeat visit shows it with no network at all (the service worker
// serves the page), and a repeat visit online asks only for the entries newer than it and shows each once.
import type { Page, Request } from '@playwright/test';
import type { RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { TABLE_PATH } from './fault-plan.ts';
import { fetchAnew } from './fetch-anew.ts';
import { expect, keptCount, logbookPage, sign, test } from './fixtures.ts';
import { requestGate } from './request-gate.ts';

test.skip(({ pageServer }) => pageServer !== 'production', 'an offline visit needs the service worker of the production build');

const OFFLINE_STATUS = 'Offline: showing the entries kept on this device.';

/** Stores an entry as another visitor would, with the service role (no page involved). */
async function insertElsewhere(emulator: RunningEmulator, entry: { name: string; message: string }): Promise<void> {
  const response = await fetch(`${emulator.url}${TABLE_PATH}`, {
    method: 'POST',
    headers: {
      apikey: emulator.serviceRoleKey,
      authorization: `Bearer ${emulator.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(entry),
  });
  if (response.status !== 201) throw new Error(`inserting ${entry.name}: ${response.status} ${await response.text()}`);
}

/** Waits until the page's service worker is active (it then serves the page without a network). */
async function workerReady(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
}

function isListRead(request: Request): boolean {
  return request.method() === 'GET' && new URL(request.url()).pathname === TABLE_PATH;
}

test('a repeat visit without a network shows the title, the form and the entries seen before', async ({ page, context }) => {
  const logbook = logbookPage(page);
  await page.goto('/');
  await expect(logbook.status).toHaveText('No entries yet.');
  await sign(page, { name: 'Ada', message: 'Seen before' });
  await expect(logbook.entries).toHaveCount(1);
  await workerReady(page);
  await expect.poll(() => keptCount(page)).toBe(1);

  await context.setOffline(true);
  await page.reload();
  await expect(logbook.heading).toBeVisible();
  await expect(logbook.name).toBeEnabled();
  await expect(logbook.submit).toBeEnabled();
  await expect(logbook.entries).toHaveCount(1);
  await expect(logbook.entries.first()).toContainText('Seen before');
  await expect(logbook.status).toHaveText(OFFLINE_STATUS);
});

test('a repeat visit online asks only for entries newer than the copy and shows each entry once', async ({ page, stack }) => {
  const logbook = logbookPage(page);
  await page.goto('/');
  await sign(page, { name: 'Ada', message: 'First' });
  await expect(logbook.entries).toHaveCount(1);
  await expect.poll(() => keptCount(page)).toBe(1);

  await insertElsewhere(stack.emulator, { name: 'Bo', message: 'Second' });
  const reads: string[] = [];
  page.on('request', (request) => {
    if (isListRead(request)) reads.push(request.url());
  });
  const answered = page.waitForResponse((response) => isListRead(response.request()));
  await page.reload();
  await answered;
  await expect(logbook.entries).toHaveCount(2);
  await expect(logbook.entries.nth(0)).toContainText('Second');
  await expect(logbook.entries.nth(1)).toContainText('First');
  await expect.poll(() => keptCount(page)).toBe(2);
  // Every list read of this visit was a catch-up read: the whole list was not read again.
  expect(reads.length).toBeGreaterThan(0);
  for (const url of reads) expect(new URL(url).searchParams.get('created_at')).toMatch(/^gte\./);
  // Ada's entry came back in the minute of overlap and is still shown once.
  await expect(page.getByTestId('log-entry').filter({ hasText: 'First' })).toHaveCount(1);
});

test.describe('before the wasm client or React has arrived', () => {
  // Without the worker, page.route sees the page's own requests (the worker would answer the .wasm from its cache).
  test.use({ serviceWorkers: 'block' });

  test('a repeat visit shows the entries kept on the device, the form taking input before the client is ready', async ({ page }) => {
    const logbook = logbookPage(page);
    await page.goto('/');
    await sign(page, { name: 'Ada', message: 'Kept here' });
    await expect(logbook.entries).toHaveCount(1);
    await expect.poll(() => keptCount(page)).toBe(1);

    // The .wasm is held until the kept entry has been seen.
    const wasm = requestGate();
    await wasm.hold(page, (url) => url.pathname.endsWith('.wasm'));
    const reads: string[] = [];
    page.on('request', (request) => {
      if (isListRead(request)) reads.push(request.url());
    });
    await page.reload();
    await expect(logbook.entries).toHaveCount(1);
    await expect(logbook.entries.first()).toContainText('Kept here');
    // Asked for once the kept entry is shown.
    await expect.poll(() => wasm.held.length).toBe(1);
    await expect(logbook.name).toBeEditable();
    await expect(logbook.submit).toBeEnabled();
    expect(reads).toEqual([]);

    wasm.release();
    await expect(logbook.name).toBeEnabled();
    await expect(logbook.submit).toBeEnabled();
    await expect.poll(() => reads.length).toBeGreaterThan(0);
    await expect(logbook.entries).toHaveCount(1);
  });

  test("a repeat visit paints the kept entries from the served page's inline script before any script file has loaded", async ({ page }) => {
    const logbook = logbookPage(page);
    await page.goto('/');
    await sign(page, { name: 'Ada', message: 'Painted by the page itself' });
    await expect(logbook.entries).toHaveCount(1);
    await expect.poll(() => keptCount(page)).toBe(1);

    // Every script file is held: whatever shows the entry now is the HTML's own inline script.
    const scripts = requestGate();
    await scripts.hold(page, (url) => url.pathname.endsWith('.js'));
    // The load event waits for the held entry script.
    await page.reload({ waitUntil: 'commit' });
    await expect(logbook.entries).toHaveCount(1);
    await expect(logbook.entries.first()).toContainText('Painted by the page itself');
    await expect(logbook.name).toBeEditable();
    expect(scripts.held.length).toBeGreaterThan(0);
    expect(await page.evaluate(() => performance.getEntriesByName('geocache:kept-entries-painted').length)).toBe(1);
    // A repeat visit asks for none of a first visit's files before its entries are shown.
    await expect(page.locator('link[rel="preload"][href$=".wasm"], link[rel="modulepreload"][href*="/prefetch-entries-"]')).toHaveCount(0);

    scripts.release();
    await expect(logbook.name).toBeEnabled();
    await expect(logbook.entries).toHaveCount(1);
    await expect(logbook.entries.first()).toContainText('Painted by the page itself');
  });

  test.describe('on a host whose own policy blocks the inline script', () => {
    test.use({ expectCspViolations: true });

    test('the entry script reads and paints the kept entries itself', async ({ page, record }) => {
      const logbook = logbookPage(page);
      await page.goto('/');
      await sign(page, { name: 'Ada', message: 'Painted without the inline script' });
      await expect.poll(() => keptCount(page)).toBe(1);

      // The served page's policy without the inline script's hash, as a host's stricter header would leave it.
      await page.route(
        (url) => url.pathname === '/',
        async (route) => {
          const response = await fetchAnew(route.request().url());
          const body = response.body.toString('utf8').replace(/ 'sha256-[\w+/=]+'/g, '');
          await route.fulfill({ ...response, body });
        },
      );
      await page.reload();
      await expect(logbook.entries).toHaveCount(1);
      await expect(logbook.entries.first()).toContainText('Painted without the inline script');
      await expect(logbook.name).toBeEnabled();
      expect(record.cspViolations.some((violation) => violation.startsWith('script-src-elem blocked inline'))).toBe(true);
      expect(await page.evaluate(() => 'geocacheEarlyPaint' in window)).toBe(false);
      expect(await page.evaluate(() => performance.getEntriesByName('geocache:kept-entries-painted').length)).toBe(1);
    });
  });

  test('a repeat visit paints the kept entries before React has loaded, and React takes over the same cards', async ({ page }) => {
    const logbook = logbookPage(page);
    await page.goto('/');
    await sign(page, { name: 'Ada', message: 'Painted early' });
    await expect(logbook.entries).toHaveCount(1);
    await expect.poll(() => keptCount(page)).toBe(1);

    // React's chunk is held: whatever shows the entry now is the entry script's own paint into the served HTML.
    const react = requestGate();
    await react.hold(page, (url) => /\/assets\/render-app-[\w-]+\.js$/.test(url.pathname));
    await page.reload();
    await expect(logbook.entries).toHaveCount(1);
    await expect(logbook.entries.first()).toContainText('Painted early');
    await expect(logbook.entries.first().locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}/);
    await expect(logbook.name).toBeEditable();

    react.release();
    await expect(logbook.name).toBeEnabled();
    await expect(logbook.entries).toHaveCount(1);
    await expect(logbook.entries.first()).toContainText('Painted early');
  });
});
