// The open logbook in a real browser against the emulator: signing, ordering, local times and validation (hostile
// text: hostile-texts.spec.ts).
import { consoleErrorLabels, expect, logbookPage, sign, test } from './fixtures.ts';
import { requestGate } from './request-gate.ts';

/** A zone with a 45-minute offset, so a time shown in UTC can never pass for local time. */
test.use({ locale: 'de-DE', timezoneId: 'Asia/Kathmandu' });

const POSTGREST_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{0,5}[1-9])?\+00:00$/;

test.beforeEach(async ({ page }) => {
  const firstLoad = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  await page.goto('/');
  expect((await firstLoad).status()).toBe(200);
  await expect(logbookPage(page).heading).toBeVisible();
  await expect(logbookPage(page).entriesHeading).toBeVisible();
});

test('signing twice lists both entries, newest first, with local times', async ({ page, record }) => {
  const logbook = logbookPage(page);
  await expect(logbook.entries).toHaveCount(0);
  await expect(logbook.message).toHaveAttribute('rows', '4');

  const first = { name: 'Ada', message: 'Found it at dawn. TFTC!' };
  const second = { name: 'Grace', message: 'Log was damp; left a travel bug.' };
  await sign(page, first);
  await expect(logbook.entries).toHaveCount(1);
  await sign(page, second);
  await expect(logbook.entries).toHaveCount(2);

  const [newest, oldest] = [logbook.entries.nth(0), logbook.entries.nth(1)];
  await expect(newest).toContainText(second.name);
  await expect(newest).toContainText(second.message);
  await expect(oldest).toContainText(first.name);
  await expect(oldest).toContainText(first.message);

  const instants: number[] = [];
  for (const card of [newest, oldest]) {
    const time = card.locator('time');
    const dateTime = (await time.getAttribute('datetime')) ?? '';
    expect(dateTime).toMatch(POSTGREST_TIMESTAMP);
    instants.push(Date.parse(dateTime));
    const formatted = await page.evaluate((value) => {
      const instant = new Date(value);
      return {
        local: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(instant),
        utc: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(instant),
        locale: Intl.DateTimeFormat().resolvedOptions().locale,
      };
    }, dateTime);
    expect(formatted.locale).toBe('de-DE');
    await expect(time).toHaveText(formatted.local);
    expect(formatted.local).not.toBe(formatted.utc);
  }
  expect(instants[0]).toBeGreaterThanOrEqual(instants[1] ?? Infinity);

  expect(record.requests.some((request) => /\.wasm\b/.test(request)), 'the open logbook loads the wasm client').toBe(true);
  expect(await consoleErrorLabels(record)).toEqual([]);
  expect(record.pageErrors).toEqual([]);
});

test('a stored sign is shown as the server stored it at once, and the list is still reloaded after it', async ({ page, record }) => {
  const logbook = logbookPage(page);
  // The live channel would show the sign as it arrives (live.spec.ts): nobody answers its socket here.
  await page.routeWebSocket(/\/realtime\/v1\/websocket/, () => undefined);
  const loaded = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  await page.reload();
  await loaded;
  await expect(logbook.entriesHeading).toBeVisible();
  // The reload after the sign waits until the entry has been looked at.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reloadHeld!: () => void;
  const reloading = new Promise<void>((resolve) => (reloadHeld = resolve));
  await page.route(
    (url) => url.pathname === '/rest/v1/geocache_logs',
    async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      reloadHeld();
      await released;
      await route.continue();
    },
  );
  const entry = { name: 'Ada', message: 'Shown as stored, before the list is read again.' };
  await sign(page, entry);
  await reloading;
  await expect(logbook.entries).toHaveCount(1);
  const card = logbook.entries.first();
  await expect(card).toContainText(entry.name);
  await expect(card).toContainText(entry.message);
  expect(await card.locator('time').getAttribute('datetime')).toMatch(POSTGREST_TIMESTAMP);
  const reloaded = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  release();
  expect((await reloaded).status()).toBe(200);
  await expect(logbook.entries).toHaveCount(1);
  await expect(card).toContainText(entry.name);
  expect(await consoleErrorLabels(record)).toEqual([]);
});

test('one click makes one entry: the button is disabled while a sign is in flight', async ({ page }) => {
  const logbook = logbookPage(page);
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/rest/v1/geocache_logs')) posts.push(request.url());
  });
  // The table's requests wait until the second click and the shortcut have been tried: the sign is in flight
  // throughout, however long the machine takes to get there.
  const table = requestGate();
  await table.hold(page, (url) => url.pathname === '/rest/v1/geocache_logs');
  await logbook.name.fill('Ada');
  await logbook.message.fill('slow network');
  await logbook.submit.click();
  await expect(logbook.submit).toBeDisabled();
  await logbook.submit.click({ force: true, noWaitAfter: true }).catch(() => undefined);
  await logbook.message.press('Control+Enter').catch(() => undefined);
  await expect(logbook.submit).toBeDisabled();
  table.release();
  await expect(logbook.entries).toHaveCount(1);
  await expect(logbook.submit).toBeEnabled();
  expect(posts).toHaveLength(1);
});

test('required fields block an empty submit and nothing is sent', async ({ page, record }) => {
  const logbook = logbookPage(page);
  await expect(logbook.name).toHaveAttribute('required', '');
  await expect(logbook.message).toHaveAttribute('required', '');
  const missing = async () => ({
    name: await logbook.name.evaluate((field) => (field as HTMLInputElement).validity.valueMissing),
    message: await logbook.message.evaluate((field) => (field as HTMLTextAreaElement).validity.valueMissing),
  });

  await logbook.submit.click();
  expect(await missing()).toEqual({ name: true, message: true });

  await logbook.name.fill('Ada');
  await logbook.submit.click();
  expect(await missing()).toEqual({ name: false, message: true });

  await logbook.name.fill('');
  await logbook.message.fill('a message without a name');
  await logbook.submit.click();
  expect(await missing()).toEqual({ name: true, message: false });

  await page.waitForTimeout(300);
  expect(record.requests.filter((request) => request.startsWith('POST '))).toEqual([]);
  await expect(logbook.entries).toHaveCount(0);
  await expect(logbook.message).toHaveValue('a message without a name');
});
