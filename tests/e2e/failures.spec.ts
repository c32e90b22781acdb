// Failed calls in the browser: the page logs exactly the spec's message, keeps the form, shows an empty list, and its
// live region says what happened in plain words (a failed read is never "No entries yet.").
import type { Page, Route } from '@playwright/test';
import { consoleErrorLabels, expect, loggedError, logbookPage, test, type PageRecord } from './fixtures.ts';

const TABLE_URL = '**/rest/v1/geocache_logs*';

async function openLogbook(page: Page) {
  const firstLoad = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  await page.goto('/');
  await firstLoad;
  await expect(logbookPage(page).heading).toBeVisible();
}

/** Submits the filled form and waits for the page's console.error; returns what it logged. */
async function submitAndExpectInsertError(page: Page, record: PageRecord) {
  const logbook = logbookPage(page);
  await logbook.name.fill('Ada');
  await logbook.message.fill('This must survive a failure.');
  await logbook.submit.click();
  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error inserting log:']);
  await expect(logbook.submit).toBeEnabled();
  await expect(logbook.name).toHaveValue('Ada');
  await expect(logbook.message).toHaveValue('This must survive a failure.');
  await expect(logbook.entries).toHaveCount(0);
  const call = record.consoleCalls.find((candidate) => candidate.type === 'error');
  if (call === undefined) throw new Error('no console.error call was recorded');
  return loggedError(call);
}

test('a sign while the emulator is stopped keeps the fields and logs "Error inserting log:"', async ({ page, stack, record }) => {
  await openLogbook(page);
  await stack.emulator.stop();
  const error = await submitAndExpectInsertError(page, record);
  expect(error).toEqual({ isError: true, name: 'LogbookError', code: 'network_error', status: 0 });
});

test('a sign made offline is kept on the device and logs "Error inserting log:" as a failed insert does', async ({ page, context, record, pageServer }) => {
  await openLogbook(page);
  // The production build registers its service worker once the list is read; offline before that, it cannot.
  if (pageServer === 'production') {
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
  }
  await context.setOffline(true);
  const error = await submitAndExpectInsertError(page, record);
  expect(error).toEqual({ isError: true, name: 'LogbookError', code: 'network_error', status: 0 });
  await expect(logbookPage(page).status).toHaveText('Saved on this device: it will be sent when the connection returns.');
});

test('a sign the server refuses with 500 keeps the fields and logs "Error inserting log:"', async ({ page, record }) => {
  await openLogbook(page);
  await page.route(TABLE_URL, (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({ status: 500, contentType: 'text/plain', body: 'Internal Server Error' })
      : route.continue(),
  );
  const error = await submitAndExpectInsertError(page, record);
  expect(error).toEqual({ isError: true, name: 'LogbookError', code: 'server_error', status: 500 });
});

test('a sign refused with a PostgREST error keeps the fields and passes the code on', async ({ page, record }) => {
  await openLogbook(page);
  await page.route(TABLE_URL, (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({ code: '42501', details: null, hint: null, message: 'new row violates row-level security policy for table "geocache_logs"' }),
        })
      : route.continue(),
  );
  const error = await submitAndExpectInsertError(page, record);
  expect(error).toEqual({ isError: true, name: 'LogbookError', code: '42501', status: 401 });
});

const failedLoads: { title: string; code: string; status: number; respond: (route: Route) => Promise<void> }[] = [
  {
    title: 'a server error',
    code: 'server_error',
    status: 503,
    respond: (route) => route.fulfill({ status: 503, contentType: 'text/plain', body: 'Service Unavailable' }),
  },
  { title: 'a network failure', code: 'network_error', status: 0, respond: (route) => route.abort('connectionrefused') },
  {
    title: 'a schema mismatch',
    code: 'schema_mismatch',
    status: 200,
    respond: (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify([{ id: 1, created_at: 5, name: 'Ada', message: 'wrong type' }]),
      }),
  },
];

for (const failure of failedLoads) {
  test(`a failed load (${failure.title}) logs "Error fetching logs:" and shows an empty list`, async ({ page, stack, record }) => {
    // A stored entry that would be listed if the load succeeded.
    const seeded = await fetch(`${stack.emulator.url}/rest/v1/geocache_logs`, {
      method: 'POST',
      headers: { apikey: stack.emulator.anonKey, authorization: `Bearer ${stack.emulator.anonKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Seed', message: 'hidden by the failure' }),
    });
    expect(seeded.status).toBe(201);
    await page.route(TABLE_URL, (route) => (route.request().method() === 'GET' ? failure.respond(route) : route.continue()));

    await page.goto('/');
    await expect(logbookPage(page).entriesHeading).toBeVisible();
    await expect.poll(async () => (await consoleErrorLabels(record)).length).toBeGreaterThan(0);
    // React's StrictMode mounts twice in development, so the load may run (and fail) twice.
    for (const label of await consoleErrorLabels(record)) expect(label).toBe('Error fetching logs:');
    const call = record.consoleCalls.find((candidate) => candidate.type === 'error');
    if (call === undefined) throw new Error('no console.error call was recorded');
    const error = await loggedError(call);
    expect(error).toEqual({ isError: true, name: 'LogbookError', code: failure.code, status: failure.status });
    await expect(logbookPage(page).entries).toHaveCount(0);
    await expect(logbookPage(page).name).toBeEditable();
    // Not "No entries yet.": an entry is stored, the page could not read it.
    await expect(logbookPage(page).status).toHaveText('The entries could not be loaded.');
  });
}

test('an offline visit with no entries kept says so, not "No entries yet."', async ({ page, context, record, pageServer }) => {
  test.skip(pageServer !== 'production', 'an offline visit is served by the production build\'s service worker');
  await page.goto('/');
  await expect(logbookPage(page).status).toHaveText('No entries yet.');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await context.setOffline(true);
  await page.reload();
  await expect(logbookPage(page).status).toHaveText('Offline: no entries are kept on this device.');
  await expect(logbookPage(page).name).toBeEditable();
  // The read's failure is logged as the spec logs it, and nothing else.
  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error fetching logs:']);
});
