// The production build as an installable, offline page: the open logbook's title, form and heading are in the
// served HTML (painted before any script, shown with JavaScript off), a service worker keeps the page's own files
// (never the backend's answers) so a reload works offline and goes live once back online, a new deploy is picked up,
// the manifest is valid, the wasm travels compressed, and the teaser's build registers no worker and retires the logbook's.
import { AxeBuilder } from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { findFreePort } from '../../scripts/lib/ports.mjs';
import { startVitePreview, type RunningVite } from '../../scripts/lib/vite.mjs';
import type { RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { defaultPageEnv, expect, logbookPage, test } from './fixtures.ts';

test.skip(({ pageServer }) => pageServer !== 'production', 'checks the production build (project "production")');

const UPDATE_TEXT = 'A new version is available.';
/** The update prompt: a labelled region, said by the page's one live region. */
const updatePrompt = (page: Page) => page.getByRole('region', { name: 'New version' });

/** Waits until the page's service worker is active, and returns its script's URL. */
async function activeWorker(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return registration.active?.scriptURL ?? '';
  });
}

/** Every URL the page's origin keeps in Cache Storage. */
async function cachedUrls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      urls.push(...(await cache.keys()).map((request) => request.url));
    }
    return urls;
  });
}

/** The entry script a build's index.html loads (its hashed name differs between builds of different code). */
async function entryScript(outDir: string): Promise<string> {
  const html = await readFile(path.join(outDir, 'index.html'), 'utf8');
  const src = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
  if (src === undefined) throw new Error(`${outDir}/index.html has no module script`);
  return src;
}

/** The entry script the document in `page` was loaded with. */
function shownEntryScript(page: Page): Promise<string | null | undefined> {
  return page.evaluate(() => document.querySelector('script[type="module"]')?.getAttribute('src'));
}

/**
 * A build of the page for `emulator`, the logbook open or closed: the one the other tests of this worker use (so it
 * is built once), or with another request timeout, which makes a build that differs in code.
 */
function pageEnv(emulator: RunningEmulator, logbookOpen: boolean, timeoutMs?: number): Record<string, string> {
  const env = defaultPageEnv(emulator, logbookOpen);
  return timeoutMs === undefined ? env : { ...env, VITE_REQUEST_TIMEOUT_MS: String(timeoutMs) };
}

/** How Playwright reports a visit the page replaced with a navigation of its own (a worker's reload of it). */
const REPLACED_VISIT = /net::ERR_ABORTED|is interrupted by another navigation/;
/** How Playwright reports a read whose document a navigation replaced half-way. */
const REPLACED_DOCUMENT = /Execution context was destroyed/;

/** Goes to `url`; a visit the page replaced with a reload of its own is not an error (the caller checks where it ends). */
async function visitUnlessReloaded(page: Page, url: string): Promise<void> {
  await page.goto(url).catch((error: unknown) => {
    if (!(error instanceof Error && REPLACED_VISIT.test(error.message))) throw error;
  });
}

/** Reads from the current document; undefined when a reload replaced the document half-way (the caller polls again). */
async function inDocument<T>(read: () => Promise<T>): Promise<T | undefined> {
  return read().catch((error: unknown) => {
    if (error instanceof Error && REPLACED_DOCUMENT.test(error.message)) return undefined;
    throw error;
  });
}

/** Serves builds on one port in turn, as a host serves one deploy after another at one address. */
function deploys() {
  let port: number | undefined;
  let running: RunningVite | undefined;
  return {
    async serve(outDir: string): Promise<string> {
      await running?.stop();
      port ??= await findFreePort();
      running = await startVitePreview({ outDir, port });
      return running.url;
    },
    stop: () => running?.stop(),
  };
}

test.describe('the open logbook', () => {
  test('is in the served HTML: with JavaScript off, the title, the form, its note that signing needs JavaScript and the heading show', async ({ browser, stack }) => {
    const context = await browser.newContext({ javaScriptEnabled: false, baseURL: stack.vite.url });
    try {
      const page = await context.newPage();
      await page.goto('/');
      const logbook = logbookPage(page);
      await expect(logbook.heading).toBeVisible();
      await expect(logbook.entriesHeading).toBeVisible();
      for (const control of [logbook.name, logbook.message, logbook.submit]) await expect(control).toBeVisible();
      // The form takes input (as with scripts, before they arrive); the page's policy refuses its own submission.
      await expect(logbook.name).toBeEditable();
      // Chromium's switch stops scripts but still parses <noscript> as a page with scripts does (its content as text):
      // the note is there to be shown where scripting is off.
      expect(await page.locator('form.sign-form + noscript').textContent()).toContain('Signing the logbook needs JavaScript, which is off in this browser.');
      // Styled by the stylesheets linked from the HTML (the logbook's own too), not by a script.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('main.logbook') ?? document.body).maxWidth)).toBe('672px');
    } finally {
      await context.close();
    }
  });

  test('is taken over by the page: the same form, enabled, and no second copy', async ({ page }) => {
    await page.goto('/');
    const logbook = logbookPage(page);
    await expect(logbook.submit).toBeEnabled();
    await expect(logbook.name).toBeEnabled();
    await expect(page.locator('main.logbook')).toHaveCount(1);
    await expect(page.locator('form')).toHaveCount(1);
  });

  test('reloads offline after a first visit: the title and the form are shown', async ({ page, context }) => {
    await page.goto('/');
    await expect(logbookPage(page).submit).toBeEnabled();
    expect(await activeWorker(page)).toMatch(/\/service-worker\.js$/);

    await context.setOffline(true);
    await page.reload();
    const logbook = logbookPage(page);
    await expect(logbook.heading).toBeVisible();
    await expect(logbook.entriesHeading).toBeVisible();
    // The page's own form (the logbook's code and the wasm client came from the worker's cache).
    await expect(logbook.submit).toBeEnabled();
    await expect(logbook.name).toBeEnabled();
  });

  test('an offline visit goes live once back online: the live client\'s wasm comes from the worker\'s cache', async ({ page, context, stack }) => {
    await page.goto('/');
    await expect(logbookPage(page).submit).toBeEnabled();
    await activeWorker(page);

    const liveWasm: boolean[] = [];
    page.on('response', (response) => {
      if (/\/assets\/geocache_live_bg-[\w-]{8}\.wasm$/.test(response.url())) liveWasm.push(response.fromServiceWorker());
    });
    let joined = false;
    page.on('websocket', (socket) => {
      socket.on('framereceived', ({ payload }) => {
        const text = typeof payload === 'string' ? payload : payload.toString('utf8');
        if (text.includes('phx_reply') && text.includes('"ok"') && text.includes('postgres_changes')) joined = true;
      });
    });
    await context.setOffline(true);
    await page.reload();
    await expect(logbookPage(page).submit).toBeEnabled();
    // The live client loaded offline, from the precache: once back online its channel joins by itself.
    await expect.poll(() => liveWasm).toEqual([true]);
    await context.setOffline(false);
    await expect.poll(() => joined, { timeout: 30_000 }).toBe(true);

    const response = await fetch(`${stack.emulator.url}/rest/v1/geocache_logs`, {
      method: 'POST',
      headers: {
        apikey: stack.emulator.serviceRoleKey,
        authorization: `Bearer ${stack.emulator.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'Bo', message: 'Signed while this page was live again' }),
    });
    expect(response.status).toBe(201);
    await expect(logbookPage(page).entries.filter({ hasText: 'Signed while this page was live again' })).toHaveCount(1);
  });

  test('its worker answers the page\'s own files and never the backend', async ({ page, stack }) => {
    await page.goto('/');
    await activeWorker(page);
    const responses: { url: string; fromWorker: boolean }[] = [];
    page.on('response', (response) => responses.push({ url: response.url(), fromWorker: response.fromServiceWorker() }));
    const read = page.waitForResponse((response) => response.url().includes('/rest/v1/geocache_logs'));
    await page.reload();
    expect((await read).status()).toBe(200);
    await expect(logbookPage(page).submit).toBeEnabled();

    const backendOrigin = new URL(stack.emulator.url).origin;
    const pageOrigin = new URL(stack.vite.url).origin;
    const backend = responses.filter(({ url }) => url.startsWith(backendOrigin));
    expect(backend.length).toBeGreaterThan(0);
    expect(backend.filter(({ fromWorker }) => fromWorker)).toEqual([]);
    // The document and the wasm client came from the worker.
    expect(responses.find(({ url }) => url === `${pageOrigin}/`)?.fromWorker).toBe(true);
    expect(responses.find(({ url }) => /\/assets\/geocache_client_bg-[\w-]{8}\.wasm$/.test(url))?.fromWorker).toBe(true);

    const cached = await cachedUrls(page);
    expect(cached.some((url) => url.endsWith('.wasm'))).toBe(true);
    expect(cached.some((url) => url.includes('/index.html'))).toBe(true);
    for (const url of cached) expect(url.startsWith(`${pageOrigin}/`), url).toBe(true);

    // Offline, a read of the backend fails instead of being answered from a cache.
    await page.context().setOffline(true);
    const outcome = await page.evaluate(async (url) => {
      try {
        return String((await fetch(`${url}/rest/v1/geocache_logs?select=*`)).status);
      } catch (error) {
        return (error as Error).name;
      }
    }, stack.emulator.url);
    expect(outcome).toBe('TypeError');
  });

  test('is installable: the manifest is linked, served and valid, with its icons', async ({ page, stack }) => {
    await page.goto('/');
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#3d6b2f');

    const cdp = await page.context().newCDPSession(page);
    const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; data?: string };
    expect(manifest.url).toBe(new URL('/manifest.webmanifest', stack.vite.url).href);
    expect(manifest.errors).toEqual([]);
    const data = JSON.parse(manifest.data ?? '{}') as { name: string; short_name: string; start_url: string; display: string; theme_color: string; icons: { src: string; sizes: string; purpose: string }[] };
    expect(data).toMatchObject({ name: 'Geocache Signing Page', short_name: 'Geocache', start_url: '/', display: 'standalone', theme_color: '#3d6b2f' });
    expect(data.icons.map(({ sizes, purpose }) => `${sizes} ${purpose}`)).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
    for (const icon of data.icons) {
      const response = await page.request.get(new URL(icon.src, manifest.url).href);
      expect(response.status(), icon.src).toBe(200);
      expect(response.headers()['content-type']).toBe('image/png');
      const body = await response.body();
      // The PNG header's width, which must match the size the manifest states.
      expect(`${body.readUInt32BE(16)}x${body.readUInt32BE(20)}`).toBe(icon.sizes);
    }
  });

  test('gets its wasm client compressed', async ({ page }) => {
    const wasm = page.waitForResponse((response) => /\/assets\/geocache_client_bg-[\w-]{8}\.wasm$/.test(response.url()));
    await page.goto('/');
    const response = await wasm;
    expect(response.fromServiceWorker()).toBe(false);
    const headers = await response.allHeaders();
    expect(headers['content-type']).toBe('application/wasm');
    expect(headers['content-encoding']).toBe('br');
    const sizes = await response.request().sizes();
    expect(sizes.responseBodySize).toBeLessThan((await response.body()).length * 0.6);
  });
});

test.describe('a new deploy', () => {
  test.setTimeout(240_000);

  let served: ReturnType<typeof deploys>;
  test.beforeEach(() => {
    served = deploys();
  });
  test.afterEach(async () => {
    await served.stop();
  });

  async function twoBuilds(build: (env: Record<string, string>) => Promise<string>, emulator: RunningEmulator) {
    const [first, second] = await Promise.all([build(pageEnv(emulator, true)), build(pageEnv(emulator, true, 30_001))]);
    const [firstEntry, secondEntry] = await Promise.all([entryScript(first), entryScript(second)]);
    expect(firstEntry).not.toBe(secondEntry);
    return { first, second, firstEntry, secondEntry };
  }

  test('is offered while the old one is open, and shown after "Reload"', async ({ page, productionSite, stack }) => {
    const builds = await twoBuilds((env) => productionSite.build(env), stack.emulator);
    const url = await served.serve(builds.first);
    await page.goto(url);
    await activeWorker(page);
    expect(await shownEntryScript(page)).toBe(builds.firstEntry);

    await served.serve(builds.second);
    await page.reload();
    // The open page still runs the old build (from the worker) and offers the new one.
    const prompt = updatePrompt(page);
    await expect(prompt).toContainText(UPDATE_TEXT);
    expect(await shownEntryScript(page)).toBe(builds.firstEntry);
    // Said by the page's one polite live region; the prompt is not a second one.
    await expect(logbookPage(page).status).toHaveText(UPDATE_TEXT);
    await expect(page.getByRole('status')).toHaveCount(1);
    await expect(page.locator('[aria-live]')).toHaveCount(1);
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);

    await prompt.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => shownEntryScript(page).catch(() => null)).toBe(builds.secondEntry);
    await expect(logbookPage(page).submit).toBeEnabled();
    await expect(prompt).toHaveCount(0);
  });

  test('is shown on the next visit once the old page is closed', async ({ context, productionSite, stack }) => {
    const builds = await twoBuilds((env) => productionSite.build(env), stack.emulator);
    const url = await served.serve(builds.first);
    const first = await context.newPage();
    await first.goto(url);
    await activeWorker(first);

    await served.serve(builds.second);
    const second = await context.newPage();
    await first.close();
    await second.goto(url);
    await expect(updatePrompt(second)).toContainText(UPDATE_TEXT);
    await second.close();

    const next = await context.newPage();
    await expect
      .poll(async () => {
        await next.goto(url);
        return shownEntryScript(next);
      })
      .toBe(builds.secondEntry);
    await expect(logbookPage(next).submit).toBeEnabled();
  });

  test('of the teaser retires the logbook\'s worker: the teaser is shown, nothing is kept', async ({ context, productionSite, stack }) => {
    const [logbook, teaser] = await Promise.all([productionSite.build(pageEnv(stack.emulator, true)), productionSite.build(pageEnv(stack.emulator, false))]);
    const url = await served.serve(logbook);
    const page = await context.newPage();
    await page.goto(url);
    await activeWorker(page);
    expect((await cachedUrls(page)).length).toBeGreaterThan(0);

    await served.serve(teaser);
    // The old worker answers a visit with the kept logbook; the browser's update check after it fetches the teaser's
    // service-worker.js, which removes itself and its caches and reloads every page it controlled. That reload may
    // cancel a visit of ours in flight, which is the browser doing what the worker asked, not a failure: what the
    // product promises is where the page ends, on the teaser with no worker and nothing kept. The browser schedules
    // its update check itself, and a busy machine delays it and the new worker's install: a deadline only a stuck
    // browser misses, not the default one.
    await expect
      .poll(
        async () => {
          await visitUnlessReloaded(page, url);
          return inDocument(() => page.locator('main.teaser').count());
        },
        { timeout: 90_000 },
      )
      .toBe(1);
    await expect.poll(() => inDocument(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length))).toBe(0);
    await expect.poll(() => inDocument(() => cachedUrls(page))).toEqual([]);
    await expect(page.locator('main.teaser')).toBeVisible();
    await expect(logbookPage(page).heading).toHaveCount(0);
  });
});

test.describe('the teaser', () => {
  test.use({ logbookOpen: false });

  test('registers no service worker, loads no registration code and precaches nothing', async ({ page, record, stack }) => {
    await page.goto('/');
    await expect(page.locator('main.teaser')).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0);
    expect(record.requests.filter((request) => /service-worker|workbox|register/.test(request))).toEqual([]);
    // Its service-worker.js (for visitors who still run the logbook's) only removes itself and its caches.
    const worker = await (await fetch(new URL('/service-worker.js', stack.vite.url))).text();
    expect(worker).toContain('unregister');
    expect(worker).not.toMatch(/precache|\.wasm|logbook/);
  });
});
