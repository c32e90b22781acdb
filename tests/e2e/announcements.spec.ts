// The page's one polite live region announces every state of the list and of a sign, and axe-core finds no serious
// or critical accessibility violation while the page is in each of them.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page, Route } from '@playwright/test';
import { TABLE_PATH } from './fault-plan.ts';
import { expect, keptCount, logbookPage, sign, test } from './fixtures.ts';

const TABLE = `**${TABLE_PATH}*`;

/** No serious or critical accessibility violation on the page as it stands. */
async function expectAccessible(page: Page, state: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(grave.map((violation) => `${violation.id}: ${violation.help}`), `axe in state "${state}"`).toEqual([]);
}

/** The live region says `text`, politely, and the page is accessible while it does. */
async function expectAnnounced(page: Page, text: string): Promise<void> {
  const status = logbookPage(page).status;
  await expect(status).toHaveText(text);
  await expect(status).toHaveAttribute('aria-live', 'polite');
  await expect(page.getByRole('status')).toHaveCount(1);
  await expectAccessible(page, text);
}

/** Holds every request of `method` to the table until the returned function is called. */
async function hold(page: Page, method: string): Promise<() => Promise<void>> {
  const held: Route[] = [];
  let open = false;
  const handler = (route: Route) => {
    if (route.request().method() !== method) return route.fallback();
    if (open) return route.fallback();
    held.push(route);
    return undefined;
  };
  await page.route(TABLE, handler);
  return async () => {
    open = true;
    await page.unroute(TABLE, handler);
    await Promise.all(held.map((route) => route.fallback()));
  };
}

test('the list: loading, no entries yet, and offline with the entries kept on this device', async ({ page }) => {
  const release = await hold(page, 'GET');
  await page.goto('/');
  await expectAnnounced(page, 'Loading entries…');
  await release();
  await expectAnnounced(page, 'No entries yet.');

  await sign(page, { name: 'Ada', message: 'Kept' });
  await expect(logbookPage(page).entries).toHaveCount(1);
  // The copy is kept once the reload after the sign ends (the entry shows before it: the insert returns the row);
  // then a visit whose reads cannot get through shows it.
  await expect.poll(() => keptCount(page)).toBe(1);
  await page.route(TABLE, (route) => (route.request().method() === 'GET' ? route.abort('internetdisconnected') : route.fallback()));
  await page.reload();
  await expect(logbookPage(page).entries).toHaveCount(1);
  await expectAnnounced(page, 'Offline: showing the entries kept on this device.');
});

test('a read that failed with nothing kept: the entries could not be loaded, never "No entries yet."', async ({ page }) => {
  await page.route(TABLE, (route) => (route.request().method() === 'GET' ? route.abort('connectionrefused') : route.fallback()));
  await page.goto('/');
  await expectAnnounced(page, 'The entries could not be loaded.');
});

test('a sign: signing, signed, saved on this device, and not signed with the reason', async ({ page, context }) => {
  const logbook = logbookPage(page);
  await page.goto('/');
  await expect(logbook.status).toHaveText('No entries yet.');

  const release = await hold(page, 'POST');
  await logbook.name.fill('Ada');
  await logbook.message.fill('One');
  await logbook.submit.click();
  await expectAnnounced(page, 'Signing…');
  await release();
  await expectAnnounced(page, 'Signed.');

  await page.route(TABLE, (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ code: '22P02', message: 'invalid input', details: null, hint: null }) })
      : route.fallback(),
  );
  await logbook.name.fill('Bo');
  await logbook.message.fill('Refused');
  await logbook.submit.click();
  await expectAnnounced(page, 'Not signed: the logbook refused it.');
  await page.unrouteAll();

  await context.setOffline(true);
  await logbook.name.fill('Cy');
  await logbook.message.fill('Later');
  await logbook.submit.click();
  await expectAnnounced(page, 'Saved on this device: it will be sent when the connection returns.');
  await context.setOffline(false);
});
