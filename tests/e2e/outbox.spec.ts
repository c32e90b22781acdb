// Signs that cannot reach the server wait in the device's outbox (IndexedDB) and are stored exactly once when the
// connection returns: across a reload and across two tabs, each state said in the live region, and the page
// accessible (axe-core) in each of them.
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page, Route } from '@playwright/test';
import { readTable } from './fault-plan.ts';
import { expect, logbookPage, test } from './fixtures.ts';

const INSERTS = '**/rest/v1/geocache_logs';

/** No serious or critical accessibility violation on the page as it stands. */
async function expectAccessible(page: Page, state: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(grave.map((violation) => `${violation.id}: ${violation.help}`), `axe in state "${state}"`).toEqual([]);
}

/**
 * Makes every insert of the context fail as a dropped connection would, until `unblock` is called: every tab's, and
 * the service worker's (production), whose Background Sync sends the outbox as soon as the connection returns.
 */
async function blockInserts(context: BrowserContext): Promise<() => Promise<void>> {
  const handler = (route: Route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback());
  await context.route(INSERTS, handler);
  return () => context.unroute(INSERTS, handler);
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(logbookPage(page).status).toHaveText('No entries yet.');
});

test('a sign made offline survives a reload and is stored once when the network returns', async ({ page, context, stack }) => {
  const logbook = logbookPage(page);
  await expectAccessible(page, 'no entries');
  await context.setOffline(true);
  await logbook.name.fill('Ada');
  await logbook.message.fill('Signed in the woods');
  await logbook.submit.click();
  await expect(logbook.status).toHaveText('Saved on this device: it will be sent when the connection returns.');
  await expect(logbook.pending).toHaveCount(1);
  await expect(logbook.pending).toContainText('Waiting to be sent');
  await expect(logbook.name).toHaveValue('Ada');
  await expectAccessible(page, 'saved on this device');

  // Back online, but the inserts still do not get through: the sign keeps waiting, across a reload.
  const unblock = await blockInserts(context);
  await context.setOffline(false);
  await page.reload();
  await expect(logbook.pending).toHaveCount(1);
  await expect(logbook.pending).toContainText('Ada');
  expect(await readTable(stack.emulator)).toEqual([]);

  await unblock();
  await expect(logbook.pending).toHaveCount(0, { timeout: 30_000 });
  await expect(logbook.entries).toHaveCount(1);
  await expect(logbook.entries.first()).toContainText('Signed in the woods');
  const rows = await readTable(stack.emulator);
  expect(rows.map((row) => [row.name, row.message])).toEqual([['Ada', 'Signed in the woods']]);
  await expectAccessible(page, 'sent');
});

test('two tabs with the same outbox deliver it once', async ({ page, context, stack }) => {
  const logbook = logbookPage(page);
  await context.setOffline(true);
  await logbook.name.fill('Grace');
  await logbook.message.fill('Two tabs, one entry');
  await logbook.submit.click();
  await expect(logbook.pending).toHaveCount(1);

  const second = await context.newPage();
  const unblock = await blockInserts(context);
  await context.setOffline(false);
  await second.goto('/');
  await expect(logbookPage(second).pending).toHaveCount(1);
  await unblock();
  await Promise.all([
    second.evaluate(() => window.dispatchEvent(new Event('online'))),
    page.evaluate(() => window.dispatchEvent(new Event('online'))),
  ]);
  for (const tab of [page, second]) {
    await expect(logbookPage(tab).pending).toHaveCount(0, { timeout: 30_000 });
    await expect(logbookPage(tab).entries).toHaveCount(1);
  }
  expect((await readTable(stack.emulator)).map((row) => row.name)).toEqual(['Grace']);
});

test('a sign the server refuses is not kept: the fields keep the text and the reason is said', async ({ page }) => {
  const logbook = logbookPage(page);
  await page.route(INSERTS, (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ code: '42501', message: 'denied' }) })
      : route.fallback(),
  );
  await logbook.name.fill('Eve');
  await logbook.message.fill('Not allowed');
  await logbook.submit.click();
  await expect(logbook.status).toHaveText('Not signed: the logbook does not accept signs from this page.');
  await expect(logbook.pending).toHaveCount(0);
  await expect(logbook.name).toHaveValue('Eve');
  await expectAccessible(page, 'not signed');
});

test('the service worker sends a kept sign when the connection returns, with no tab open', async ({ page, context, stack, pageServer }) => {
  test.skip(pageServer !== 'production', 'Background Sync is the production build\'s service worker');
  const logbook = logbookPage(page);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await context.setOffline(true);
  await logbook.name.fill('Hedy');
  await logbook.message.fill('Sent by the worker');
  await logbook.submit.click();
  await expect(logbook.pending).toHaveCount(1);
  await page.close();

  await context.setOffline(false);
  await expect.poll(async () => (await readTable(stack.emulator)).map((row) => row.name), { timeout: 30_000 }).toEqual(['Hedy']);
});
