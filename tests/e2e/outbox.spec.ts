// Signs that cannot reach the server wait in the device's outbox (IndexedDB) and are stored exactly once when the
// connection returns: across a reload and across two tabs, each state said in the live region, and the page
// accessible (axe-core) in each of them. Whoever delivers or refuses a kept sign (this tab, another tab, the service
// worker), the tab that made it clears its fields or says why; a delivery that stalls does not hold up the others.
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page, Route } from '@playwright/test';
import { faultControl, readTable, TABLE_PATH } from './fault-plan.ts';
import { consoleErrorLabels, expect, loggedError, logbookPage, test, type PageRecord } from './fixtures.ts';

const INSERTS = '**/rest/v1/geocache_logs*';

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

/** Makes this tab's own inserts fail as a dropped connection would: only another tab or the worker can deliver. */
async function blockThisTab(page: Page): Promise<void> {
  await page.route(INSERTS, (route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback()));
}

/** Signs while the context is offline, so the sign is kept on the device; the fields keep its text. */
async function signOffline(page: Page, context: BrowserContext, entry: { name: string; message: string }): Promise<void> {
  const logbook = logbookPage(page);
  await context.setOffline(true);
  await logbook.name.fill(entry.name);
  await logbook.message.fill(entry.message);
  await logbook.submit.click();
  await expect(logbook.status).toHaveText('Saved on this device: it will be sent when the connection returns.');
  await expect(logbook.pending).toHaveCount(1);
}

/** The errors the page logged as `Error inserting log:`, as plain data. */
async function insertErrors(record: PageRecord) {
  const labels = await consoleErrorLabels(record);
  const calls = record.consoleCalls.filter((call) => call.type === 'error').filter((_call, index) => labels[index] === 'Error inserting log:');
  return Promise.all(calls.map((call) => loggedError(call)));
}

const SENT = 'Signed: the sign saved on this device was sent.';
const REFUSED = 'Not signed: the logbook had an error; please try again.';
/** Every insert answered 500 by the emulator (final: never resent), whoever sends it (a tab or the service worker). */
const REFUSE_INSERTS = { rules: [{ methods: ['POST' as const], paths: [TABLE_PATH], fault: { kind: 'status' as const, status: 500, body: 'postgrest' as const } }] };

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

test('a kept sign delivered by another tab clears the fields of the tab that made it, which says it was sent', async ({ page, context, stack }) => {
  const logbook = logbookPage(page);
  await signOffline(page, context, { name: 'Ada', message: 'Sent from the other tab' });
  await blockThisTab(page);
  await context.setOffline(false);

  // The second tab's first round sends it (or, in production, the service worker's Background Sync does).
  const second = await context.newPage();
  await second.goto('/');
  await expect(logbook.name).toHaveValue('', { timeout: 30_000 });
  await expect(logbook.message).toHaveValue('');
  await expect(logbook.status).toHaveText(SENT);
  await expect(logbook.pending).toHaveCount(0);
  await expect(logbook.entries).toHaveCount(1);
  await expect(logbookPage(second).entries).toHaveCount(1);
  expect((await readTable(stack.emulator)).map((row) => row.message)).toEqual(['Sent from the other tab']);
  await expectAccessible(page, 'sent by another tab');
});

test('a kept sign delivered by the service worker clears the fields of the open tab, which says it was sent', async ({ page, context, stack, pageServer }) => {
  test.skip(pageServer !== 'production', 'Background Sync is the production build\'s service worker');
  const logbook = logbookPage(page);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await signOffline(page, context, { name: 'Hedy', message: 'Sent by the worker' });
  await blockThisTab(page);
  await context.setOffline(false);

  await expect(logbook.name).toHaveValue('', { timeout: 30_000 });
  await expect(logbook.message).toHaveValue('');
  await expect(logbook.status).toHaveText(SENT);
  await expect(logbook.pending).toHaveCount(0);
  await expect(logbook.entries).toHaveCount(1);
  expect((await readTable(stack.emulator)).map((row) => row.name)).toEqual(['Hedy']);
});

test('a kept sign refused when another tab delivers it is said, and logged, in the tab that made it', async ({ page, context, stack, record }) => {
  const logbook = logbookPage(page);
  await signOffline(page, context, { name: 'Eve', message: 'Refused elsewhere' });
  // The offline sign did not reach the server: logged as the seed logs an insert that fails.
  expect(await insertErrors(record)).toEqual([{ isError: true, name: 'LogbookError', code: 'network_error', status: 0 }]);
  await blockThisTab(page);
  await faultControl(stack.emulator).install(REFUSE_INSERTS);
  await context.setOffline(false);

  const second = await context.newPage();
  await second.goto('/');
  await expect(logbook.status).toHaveText(REFUSED, { timeout: 30_000 });
  await expect(logbook.pending).toHaveCount(0);
  // The fields keep the text, as after any refusal.
  await expect(logbook.name).toHaveValue('Eve');
  await expect(logbook.message).toHaveValue('Refused elsewhere');
  await expect.poll(() => insertErrors(record)).toEqual([
    { isError: true, name: 'LogbookError', code: 'network_error', status: 0 },
    { isError: true, name: 'LogbookError', code: 'XX000', status: 500 },
  ]);
  await faultControl(stack.emulator).clear();
  expect(await readTable(stack.emulator)).toEqual([]);
  await expectAccessible(page, 'refused elsewhere');
});

test('a kept sign the service worker sends with no tab open and the server refuses is reported by the next visit, once', async ({ page, context, stack, pageServer }) => {
  test.skip(pageServer !== 'production', 'Background Sync is the production build\'s service worker');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await signOffline(page, context, { name: 'Mallory', message: 'Refused by the worker' });
  await page.close();
  const faults = faultControl(stack.emulator);
  await faults.install(REFUSE_INSERTS);
  await context.setOffline(false);
  // The worker sends it (and is refused) with no tab open.
  await expect.poll(async () => (await faults.stats())[0]?.fired ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);

  const next = await context.newPage();
  const nextRecord: PageRecord = { consoleCalls: [], requests: [], dialogs: [], pageErrors: [], cspViolations: [] };
  next.on('console', (message) => {
    if (message.args().length > 0) nextRecord.consoleCalls.push({ type: message.type(), message });
  });
  await next.goto('/');
  const logbook = logbookPage(next);
  await expect(logbook.status).toHaveText(REFUSED);
  await expect(logbook.pending).toHaveCount(0);
  await expect.poll(() => insertErrors(nextRecord)).toEqual([{ isError: true, name: 'LogbookError', code: 'XX000', status: 500 }]);
  // Said once: the visit after that has nothing to report. (Counted by the messages' text: the reload ends the
  // first document, and with it the logged values insertErrors reads.)
  const insertLines = () => nextRecord.consoleCalls.filter((call) => call.type === 'error' && call.message.text().startsWith('Error inserting log:'));
  expect(insertLines()).toHaveLength(1);
  await next.reload();
  await expect(logbook.status).toHaveText('No entries yet.');
  expect(insertLines()).toHaveLength(1);
  expect(await faults.stats()).toEqual([{ matched: 1, fired: 1 }]);
  await faults.clear();
  expect(await readTable(stack.emulator)).toEqual([]);
});

test.describe('a delivery with no answer', () => {
  // The deadline a stalled delivery is given up after: the page's request timeout.
  test.use({ requestTimeoutMs: 3_000 });

  test('is given up after the request timeout, so it does not hold up the other tabs', async ({ page, context, stack }) => {
    const logbook = logbookPage(page);
    await signOffline(page, context, { name: 'Ida', message: 'Past a stalled request' });
    // The first delivery, whoever makes it (this tab, or in production the service worker), never gets an answer:
    // it holds the outbox's lock until its deadline. Later requests get through.
    // (Not unrouted: that would let the held request go on.)
    let stalled: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (stalled = resolve));
    let held = 0;
    await context.route(INSERTS, (route) => {
      if (route.request().method() !== 'POST' || held > 0) return route.fallback();
      held += 1;
      stalled();
      return undefined;
    });
    await context.setOffline(false);
    await reached;

    const second = await context.newPage();
    await second.goto('/');
    await expect(logbookPage(second).entries).toHaveCount(1, { timeout: 60_000 });
    await expect(logbookPage(second).pending).toHaveCount(0);
    await expect(logbook.name).toHaveValue('');
    await expect(logbook.status).toHaveText(SENT);
    expect((await readTable(stack.emulator)).map((row) => row.name)).toEqual(['Ida']);
  });
});
