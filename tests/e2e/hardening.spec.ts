// The page never goes blank: when the logbook's code, the wasm client or React itself cannot be loaded, or the
// logbook throws while rendering, the page says so in plain text, logs the error with console.error, and
// "Try again" brings the logbook back once the cause is gone. Nothing here needs a hook in the page's code: the
// failures are made with page.route (the network) and an init script (a browser built-in that throws).
import type { Page, Request } from '@playwright/test';
import { consoleErrorLabels, expect, loggedError, logbookPage, test, type PageRecord } from './fixtures.ts';

/**
 * The wasm binary, as the page fetches it (dev: wasm/pkg-logbook via /@fs/; production: /assets/*.wasm, which
 * index.html also preloads, a request of type "other").
 */
const isWasmBinary = (request: Request) =>
  ['fetch', 'other'].includes(request.resourceType()) && new URL(request.url()).pathname.endsWith('.wasm');
/** The logbook component's module (dev) or chunk (production): the code main.tsx and App.tsx import lazily. */
const LOGBOOK_CODE = /\/(src\/features\/logbook\/components\/logbook\.tsx|assets\/logbook-[\w-]{8}\.js)$/;
/** React's entry module (dev) or chunk (production), which main.tsx imports to render the logbook. */
const RENDER_APP_CODE = /\/(src\/app\/render-app\.tsx|assets\/render-app-[\w-]+\.js)$/;
const pathOf = (url: URL | string) => new URL(url).pathname;

function failure(page: Page) {
  return {
    message: page.getByRole('alert'),
    tryAgain: page.getByRole('button', { name: 'Try again' }),
  };
}

/** The console.error calls' labels, and what the first one logged. */
async function loggedErrors(record: PageRecord) {
  const call = record.consoleCalls.find((candidate) => candidate.type === 'error');
  return { labels: await consoleErrorLabels(record), first: call && (await loggedError(call)) };
}

/** The logbook is back and usable: title, form and list heading. */
async function expectLogbook(page: Page) {
  const logbook = logbookPage(page);
  await expect(logbook.heading).toBeVisible();
  await expect(logbook.entriesHeading).toBeVisible();
  await expect(logbook.name).toBeEditable();
  await expect(failure(page).message).toHaveCount(0);
}

/** Stores an entry directly in the emulator, as a visitor's earlier sign would have. */
async function seedEntry(emulator: { url: string; anonKey: string }, entry: { name: string; message: string }) {
  const response = await fetch(`${emulator.url}/rest/v1/geocache_logs`, {
    method: 'POST',
    headers: { apikey: emulator.anonKey, authorization: `Bearer ${emulator.anonKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(entry),
  });
  expect(response.status).toBe(201);
}

test('a .wasm that cannot be fetched: the page says so and logs it; "Try again" brings the logbook once it loads', async ({ page, record }) => {
  let blocked = 0;
  await page.route(
    (url) => pathOf(url).endsWith('.wasm'),
    (route) => {
      if (!isWasmBinary(route.request())) return route.continue();
      blocked += 1;
      return route.abort('failed');
    },
  );
  await page.goto('/');

  await expect(failure(page).message).toHaveText('The logbook could not be loaded.');
  await expect(logbookPage(page).heading).toBeVisible();
  await expect(page.locator('#root')).not.toBeEmpty();
  await expect(failure(page).tryAgain).toBeEnabled();
  expect(blocked).toBeGreaterThan(0);
  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error loading the logbook:']);
  expect((await loggedErrors(record)).first).toEqual({ isError: true, name: 'TypeError', code: undefined, status: undefined });
  expect(record.pageErrors).toEqual([]);

  // The browser keeps the wasm module's failure for the life of the document, so "Try again" reloads the page.
  await page.unrouteAll();
  await failure(page).tryAgain.click();
  await expectLogbook(page);
  expect(await consoleErrorLabels(record)).toEqual(['Error loading the logbook:']);
  expect(record.pageErrors).toEqual([]);
});

test("the logbook's code answering 404: the page says so; \"Try again\" imports it again without a reload", async ({ page, record }) => {
  await page.route(
    (url) => LOGBOOK_CODE.test(pathOf(url)),
    (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' }),
  );
  await page.goto('/');

  await expect(failure(page).message).toHaveText('The logbook could not be loaded.');
  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error loading the logbook:']);
  expect((await loggedErrors(record)).first?.isError).toBe(true);

  await page.unrouteAll();
  // A reload would lose this.
  await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
  await failure(page).tryAgain.click();
  await expectLogbook(page);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  expect(await consoleErrorLabels(record)).toEqual(['Error loading the logbook:']);
  expect(record.pageErrors).toEqual([]);
});

test('React itself failing to load: #root says so in text; "Try again" renders the logbook', async ({ page, record }) => {
  await page.route(
    (url) => RENDER_APP_CODE.test(pathOf(url)),
    (route) => route.abort('failed'),
  );
  await page.goto('/');

  await expect(failure(page).message).toHaveText('The logbook could not be loaded.');
  await expect(logbookPage(page).heading).toBeVisible();
  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error loading the page:']);
  expect((await loggedErrors(record)).first).toEqual({ isError: true, name: 'TypeError', code: undefined, status: undefined });

  await page.unrouteAll();
  await failure(page).tryAgain.click();
  await expectLogbook(page);
  expect(await consoleErrorLabels(record)).toEqual(['Error loading the page:']);
  expect(record.pageErrors).toEqual([]);
});

test('a render error inside the logbook shows "could not be shown" instead of a blank page; "Try again" shows it again', async ({ page, stack, record }) => {
  await seedEntry(stack.emulator, { name: 'Ada', message: 'Rendered after all.' });
  // While the flag is up, formatting an entry's time throws as a trapped wasm call would: a render error in a card.
  await page.addInitScript(() => {
    const state = window as unknown as { __breakRendering: boolean };
    state.__breakRendering = true;
    const prototype = Intl.DateTimeFormat.prototype;
    const format = Object.getOwnPropertyDescriptor(prototype, 'format');
    if (!format?.get) throw new Error('Intl.DateTimeFormat.prototype.format is not an accessor');
    Object.defineProperty(prototype, 'format', {
      ...format,
      get(this: Intl.DateTimeFormat) {
        if (state.__breakRendering) throw new WebAssembly.RuntimeError('unreachable');
        return format.get?.call(this) as unknown;
      },
    });
  });
  await page.goto('/');

  await expect(failure(page).message).toHaveText('The logbook could not be shown.');
  await expect(logbookPage(page).heading).toBeVisible();
  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error showing the logbook:']);
  expect((await loggedErrors(record)).first).toEqual({ isError: true, name: 'RuntimeError', code: undefined, status: undefined });
  // Caught by the boundary: nothing reached the page as an uncaught error.
  expect(record.pageErrors).toEqual([]);

  await page.evaluate(() => Object.assign(window, { __breakRendering: false }));
  await failure(page).tryAgain.click();
  await expectLogbook(page);
  await expect(logbookPage(page).entries).toHaveCount(1);
  await expect(logbookPage(page).entries.first()).toContainText('Rendered after all.');
  expect(await consoleErrorLabels(record)).toEqual(['Error showing the logbook:']);
});
