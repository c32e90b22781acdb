// The live logbook: its realtime client's own wasm is fetched only once the first entries are on screen; an entry
// signed elsewhere shows on an open page without a reload, once, announced; entries signed while the page's socket
// was down show once it has reconnected, also when the emulator itself was stopped and started again; a reader
// further down keeps their place; the teaser opens no socket.
import type { Page } from '@playwright/test';
import type { RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { expect, logbookPage, test } from './fixtures.ts';

const TABLE_PATH = '/rest/v1/geocache_logs';

/** Stores entries as another visitor would, with the service role (no page involved). */
async function insertElsewhere(emulator: RunningEmulator, entries: { name: string; message: string }[]): Promise<void> {
  const response = await fetch(`${emulator.url}${TABLE_PATH}`, {
    method: 'POST',
    headers: {
      apikey: emulator.serviceRoleKey,
      authorization: `Bearer ${emulator.serviceRoleKey}`,
      'content-type': 'application/json',
      prefer: 'return=minimal',
    },
    body: JSON.stringify(entries),
  });
  expect(response.status, await response.text()).toBe(201);
}

/** The entries the emulator holds, read with the service role. */
async function storedMessages(emulator: RunningEmulator): Promise<string[]> {
  const response = await fetch(`${emulator.url}${TABLE_PATH}?select=message&order=created_at.asc`, {
    headers: { apikey: emulator.serviceRoleKey, authorization: `Bearer ${emulator.serviceRoleKey}` },
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { message: string }[]).map((row) => row.message);
}

/** Closes every realtime socket the emulator holds, as a restart would. */
async function dropSockets(emulator: RunningEmulator): Promise<number> {
  const response = await fetch(`${emulator.url}/emulator/v1/realtime/sockets`, {
    method: 'DELETE',
    headers: { apikey: emulator.serviceRoleKey, authorization: `Bearer ${emulator.serviceRoleKey}` },
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { dropped: number }).dropped;
}

/**
 * Counts the page's realtime sockets and the successful joins of its postgres_changes channel (the server's ok
 * reply to each join). The dev server's own socket (hot reload) is not one.
 */
function watchJoins(page: Page): { readonly count: () => number; readonly sockets: () => number; readonly closed: () => number } {
  let joins = 0;
  let sockets = 0;
  let closed = 0;
  page.on('websocket', (socket) => {
    if (!new URL(socket.url()).pathname.startsWith('/realtime/')) return;
    sockets += 1;
    socket.on('close', () => {
      closed += 1;
    });
    socket.on('framereceived', ({ payload }) => {
      const text = typeof payload === 'string' ? payload : payload.toString('utf8');
      if (text.includes('phx_reply') && text.includes('"ok"') && text.includes('postgres_changes')) joins += 1;
    });
  });
  return { count: () => joins, sockets: () => sockets, closed: () => closed };
}

/**
 * Lets the page's realtime sockets through, except while held: a socket the page opens then waits, unconnected, until
 * `release`. Entries stored meanwhile are stored before the page can rejoin, whatever the scheduler does, so they can
 * only reach it through the catch-up read that follows the rejoin.
 */
async function socketGate(page: Page): Promise<{ hold: () => void; release: () => void }> {
  let held: Promise<void> | undefined;
  let release = () => undefined as void;
  await page.routeWebSocket(/\/realtime\/v1\/websocket/, async (socket) => {
    await held;
    socket.connectToServer();
  });
  return {
    hold: () => {
      held = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
  };
}

/** The page's list reads since `from` that asked only for newer entries (a catch-up). */
function catchUpReads(requests: readonly string[], from: number): string[] {
  return requests
    .slice(from)
    .filter((request) => request.startsWith('GET ') && request.includes(TABLE_PATH) && decodeURIComponent(request).includes('created_at=gte.'));
}

test.describe('the open logbook', () => {
  test("fetches the live client's wasm only once the first entries are on screen, then joins", async ({ page, stack, pageServer }) => {
    // The dev server may reload the page once it has optimized its dependencies: a first visit is the production build's.
    test.skip(pageServer !== 'production', 'what a first visit downloads is the production build\'s');
    await insertElsewhere(stack.emulator, [{ name: 'Ann', message: 'Already here' }]);
    const joins = watchJoins(page);
    const logbook = logbookPage(page);
    /** Each .wasm the page asked for, and how many entries it showed then. */
    const fetched: { file: string; shown: number }[] = [];
    await page.route(
      (url) => url.pathname.endsWith('.wasm'),
      async (route) => {
        const file = new URL(route.request().url()).pathname.split('/').pop() ?? '';
        fetched.push({ file: file.replace(/-[\w-]{8}\.wasm$|\.wasm$/, ''), shown: await logbook.entries.count() });
        await route.continue();
      },
    );
    // The first read is held until the logbook client has had time to load everything it would load without it.
    let releaseRead: () => void = () => undefined;
    const readHeld = new Promise<void>((resolve) => (releaseRead = resolve));
    let firstRead = true;
    await page.route(
      (url) => url.pathname === TABLE_PATH,
      async (route) => {
        if (firstRead && route.request().method() === 'GET') {
          firstRead = false;
          await readHeld;
        }
        await route.continue();
      },
    );
    await page.goto('/');
    await expect.poll(() => fetched.map(({ file }) => file)).toContain('geocache_client_bg');
    await page.waitForTimeout(3_000);
    expect(fetched.map(({ file }) => file), 'nothing of the live client before the first entries').toEqual(['geocache_client_bg']);
    releaseRead();
    await expect(logbook.entries).toHaveCount(1);
    await expect.poll(joins.count).toBe(1);
    expect(fetched).toEqual([
      { file: 'geocache_client_bg', shown: 0 },
      { file: 'geocache_live_bg', shown: 1 },
    ]);
  });

  // How soon it shows is a speed target, measured by the benchmark (bench/lib/live-bench.mjs). Here, that it comes
  // over the channel: once the reader has joined, its reads of the list fail, so no read can bring the entries.
  test('an entry signed in one browser shows in another over the channel, once, and is announced', async ({ page, browser, baseURL }) => {
    const readerJoins = watchJoins(page);
    await page.goto('/');
    const reader = logbookPage(page);
    await expect(reader.status).toHaveText('No entries yet.');
    await expect.poll(readerJoins.count).toBe(1);
    await page.route(
      (url) => url.pathname === TABLE_PATH,
      (route) => (route.request().method() === 'GET' ? route.abort('failed') : route.fallback()),
    );

    const elsewhere = await browser.newContext({ baseURL });
    try {
      const signerPage = await elsewhere.newPage();
      await signerPage.goto('/');
      const signer = logbookPage(signerPage);
      await expect(signer.status).toHaveText('No entries yet.');
      await signer.name.fill('Bo');
      await signer.message.fill('Signed in the other browser');
      const inserted = signerPage.waitForResponse(
        (response) => response.request().method() === 'POST' && response.url().includes(TABLE_PATH),
      );
      await signer.submit.click();
      expect((await inserted).status()).toBe(201);

      const arrived = reader.entries.filter({ hasText: 'Signed in the other browser' });
      await expect(arrived).toHaveCount(1);
      await expect(reader.status).toHaveText('A new entry arrived.');
      // The signer sees its own sign once, and is not told it arrived from elsewhere.
      await expect(signer.entries.filter({ hasText: 'Signed in the other browser' })).toHaveCount(1);
      await expect(signer.status).toHaveText('Signed.');

      // A second entry: announced again (the text changes), each shown once.
      await expect(signer.name).toHaveValue('');
      await signer.name.fill('Cy');
      await signer.message.fill('And a second one');
      await signer.submit.click();
      await expect(reader.entries.filter({ hasText: 'And a second one' })).toHaveCount(1);
      await expect(reader.status).toHaveText('2 new entries arrived.');
      await expect(reader.entries).toHaveCount(2);
      await expect(reader.entries.first()).toContainText('And a second one');
    } finally {
      await elsewhere.close();
    }
  });

  test('entries signed while the socket was down show once it has reconnected, each once', async ({ page, stack, record }) => {
    await insertElsewhere(stack.emulator, [{ name: 'Ann', message: 'Before the drop' }]);
    const joins = watchJoins(page);
    const sockets = await socketGate(page);
    await page.goto('/');
    const logbook = logbookPage(page);
    await expect(logbook.entries).toHaveCount(1);
    await expect.poll(joins.count).toBe(1);

    const requestsBefore = record.requests.length;
    // The page's next socket waits until these are stored: what it shows next comes from its catch-up read, not
    // from the channel.
    sockets.hold();
    expect(await dropSockets(stack.emulator)).toBeGreaterThanOrEqual(1);
    await insertElsewhere(stack.emulator, [
      { name: 'Bo', message: 'While the socket was down' },
      { name: 'Cy', message: 'Also while it was down' },
    ]);
    expect(joins.count()).toBe(1);
    sockets.release();

    await expect.poll(joins.count, { timeout: 30_000 }).toBe(2);
    await expect(logbook.entries).toHaveCount(3);
    await expect(logbook.entries.nth(0)).toContainText('Also while it was down');
    await expect(logbook.entries.nth(1)).toContainText('While the socket was down');
    await expect(logbook.entries.nth(2)).toContainText('Before the drop');
    await expect(logbook.status).toHaveText(/^(2 new entries arrived|A new entry arrived)\.$/);
    // They came from the read that follows the new join: the rows from a minute before the newest shown.
    expect(catchUpReads(record.requests, requestsBefore).length).toBeGreaterThanOrEqual(1);
    expect(joins.sockets()).toBe(2);

    // And the channel works again.
    await insertElsewhere(stack.emulator, [{ name: 'Dee', message: 'After the reconnect' }]);
    await expect(logbook.entries.first()).toContainText('After the reconnect');
    await expect(logbook.entries).toHaveCount(4);
  });

  test.describe('over an emulator that is stopped and started again', () => {
    // A database file, so the rows (and the keys beside it) outlive the process.
    test.use({ emulatorDb: 'file' });

    test('entries signed while it was down show once the page has reconnected, each once', async ({ page, stack, record }) => {
      await insertElsewhere(stack.emulator, [{ name: 'Ann', message: 'Before the restart' }]);
      const joins = watchJoins(page);
      const sockets = await socketGate(page);
      await page.goto('/');
      const logbook = logbookPage(page);
      await expect(logbook.entries).toHaveCount(1);
      await expect.poll(joins.count).toBe(1);

      const requestsBefore = record.requests.length;
      const { port } = stack.emulator;
      const restarted = await stack.restartEmulator(async () => {
        // The page's socket closes, and its first two reconnects (1 s, then 2 s later) find nothing listening. Its
        // next socket waits until the emulator is back and these are stored.
        await expect.poll(joins.closed, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
        sockets.hold();
      });
      expect(restarted.port).toBe(port);
      // The same database: the entry from before the restart is still stored.
      expect(await storedMessages(restarted)).toEqual(['Before the restart']);
      await insertElsewhere(restarted, [
        { name: 'Bo', message: 'While the emulator was restarting' },
        { name: 'Cy', message: 'Also while it was restarting' },
      ]);
      // Signed before the page was back: what it shows next comes from its catch-up read, not from the channel.
      expect(joins.count()).toBe(1);
      sockets.release();

      await expect.poll(joins.count, { timeout: 30_000 }).toBe(2);
      await expect(logbook.entries).toHaveCount(3);
      await expect(logbook.entries.nth(0)).toContainText('Also while it was restarting');
      await expect(logbook.entries.nth(1)).toContainText('While the emulator was restarting');
      await expect(logbook.entries.nth(2)).toContainText('Before the restart');
      await expect(logbook.status).toHaveText(/^(2 new entries arrived|A new entry arrived)\.$/);
      expect(catchUpReads(record.requests, requestsBefore).length).toBeGreaterThanOrEqual(1);

      // And the channel works on the new process.
      await insertElsewhere(restarted, [{ name: 'Dee', message: 'After the restart' }]);
      await expect(logbook.entries.first()).toContainText('After the restart');
      await expect(logbook.entries).toHaveCount(4);
    });
  });

  test('a reader scrolled down keeps their place when entries arrive above', async ({ page, stack }) => {
    const seeded = Array.from({ length: 80 }, (_, index) => ({ name: `Finder ${index + 1}`, message: `Entry number ${index + 1}` }));
    for (const entry of seeded) await insertElsewhere(stack.emulator, [entry]);
    const joins = watchJoins(page);
    await page.goto('/');
    const logbook = logbookPage(page);
    await expect(logbook.entries.first()).toContainText('Entry number 80');
    await expect.poll(joins.count).toBe(1);

    await page.evaluate(() => window.scrollTo(0, 2_500));
    // The card at the window's top edge, and where its top is.
    const readPlace = () =>
      page.evaluate(() => {
        const cards = [...document.querySelectorAll<HTMLElement>('[data-testid="log-entry"]')];
        const card = cards.find((element) => element.getBoundingClientRect().bottom > 0);
        const text = card?.querySelector('[dir="auto"]')?.textContent ?? '';
        return { text, top: Math.round(card?.getBoundingClientRect().top ?? Number.NaN) };
      });
    await expect.poll(async () => (await readPlace()).text).toMatch(/^Finder \d+$/);
    const before = await readPlace();
    const scrolledBefore = await page.evaluate(() => window.scrollY);

    await insertElsewhere(stack.emulator, [
      { name: 'New 1', message: 'Arrived above' },
      { name: 'New 2', message: 'Arrived above too' },
      { name: 'New 3', message: 'Arrived above as well' },
    ]);
    await expect(logbook.status).toHaveText('3 new entries arrived.');

    // The same card at the same place on screen; the page grew above it.
    await expect.poll(readPlace).toEqual(before);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(scrolledBefore);

    // Back at the top, the new entries are there, once each.
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(logbook.entries.first()).toContainText('Arrived above as well');
    await expect(logbook.entries.filter({ hasText: /^New \d/ })).toHaveCount(3);
  });
});

test.describe('the teaser', () => {
  test.use({ logbookOpen: false });

  test('opens no socket', async ({ page }) => {
    const joins = watchJoins(page);
    await page.goto('/');
    await expect(page.getByRole('main')).toBeVisible();
    await page.waitForLoadState('networkidle');
    // Longer than the page takes to load its client and subscribe when the logbook is open.
    await page.waitForTimeout(2_000);
    expect(joins.sockets()).toBe(0);
  });
});
