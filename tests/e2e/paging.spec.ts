// Hosted Supabase caps every read at `max_rows` rows (1,000 by default); the page reads past the cap in keyset
// pages. Against the emulator with its default cap and with a cap of 7, a logbook of 2,345 entries is shown whole,
// newest first, the oldest reachable by scrolling; and a page built with the publishable key lists and signs.
import type { Page } from '@playwright/test';
import type { RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { expect, logbookPage, publishableKeyOf, sign, test, type PageRecord } from './fixtures.ts';

const ENTRIES = 2_345;

/** "Entry 0001" is the oldest, "Entry 2345" the newest. */
const entryName = (number: number) => `Entry ${String(number).padStart(4, '0')}`;

/** Stores the entries oldest first, in bulk, as the service role (the emulator assigns id and created_at). */
async function seed(emulator: RunningEmulator, count: number) {
  const rows = Array.from({ length: count }, (_, index) => ({ name: entryName(index + 1), message: `message ${index + 1}` }));
  const response = await fetch(`${emulator.url}/rest/v1/geocache_logs`, {
    method: 'POST',
    headers: {
      apikey: emulator.serviceRoleKey,
      authorization: `Bearer ${emulator.serviceRoleKey}`,
      'content-type': 'application/json',
      prefer: 'return=minimal',
    },
    body: JSON.stringify(rows),
  });
  expect(response.status, await response.text()).toBe(201);
}

/** The page's reads of the list, decoded. */
function listReads(record: PageRecord) {
  return record.requests
    .filter((request) => request.startsWith('GET ') && request.includes('/rest/v1/geocache_logs'))
    .map((request) => decodeURIComponent(request));
}

/** Scrolls the window to the end of the list until the oldest entry is the last card, at the last index. */
async function scrollToOldest(page: Page) {
  const cards = logbookPage(page).entries;
  await expect
    .poll(
      async () => {
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        const last = cards.last();
        return [await last.getAttribute('data-index'), (await last.textContent()) ?? ''];
      },
      // A hang guard: under a 7-row cap the list arrives in 335 pages one after another, minutes on a slow machine.
      { timeout: 200_000 },
    )
    .toEqual([String(ENTRIES - 1), expect.stringContaining(entryName(1))]);
  await expect(cards.last()).toBeInViewport();
}

/** Every card in the document holds the entry its position says (newest first): nothing skipped or repeated. */
async function expectCardsInPlace(page: Page) {
  const cards = await logbookPage(page).entries.evaluateAll((elements) =>
    elements.map((element) => [Number(element.getAttribute('data-index')), element.textContent ?? ''] as const),
  );
  expect(cards.length).toBeGreaterThan(0);
  for (const [index, text] of cards) expect(text, `card ${index}`).toContain(entryName(ENTRIES - index));
}

/** The whole logbook is shown, newest first: the newest entry on top, the oldest last after scrolling. */
async function expectWholeLogbook(page: Page) {
  const cards = logbookPage(page).entries;
  await expect(cards.first()).toContainText(entryName(ENTRIES));
  await expect(cards.first()).toHaveAttribute('data-index', '0');
  await scrollToOldest(page);
  await expectCardsInPlace(page);
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
  await expect(cards.first()).not.toHaveAttribute('data-index', '0');
  await expectCardsInPlace(page);
}

test.describe('the emulator\'s default row cap (1,000)', () => {
  test('2,345 entries are all shown, the oldest reachable by scrolling', async ({ page, stack, record }) => {
    test.setTimeout(300_000);
    await seed(stack.emulator, ENTRIES);
    await page.goto('/');
    await expectWholeLogbook(page);
    const reads = listReads(record);
    // At least three pages of 1,000, each in (created_at desc, id desc) order; the later ones after a cursor.
    expect(reads.length, reads.join('\n')).toBeGreaterThanOrEqual(3);
    for (const read of reads) expect(read).toContain('order=created_at.desc,id.desc');
    expect(reads.filter((read) => read.includes('or=(created_at.lt.')).length).toBeGreaterThanOrEqual(2);
  });
});

test.describe('a row cap of 7 (--max-rows 7)', () => {
  test.use({ emulatorArgs: ['--max-rows', '7'] });

  test('2,345 entries are all shown, the oldest reachable by scrolling', async ({ page, stack, record }) => {
    test.setTimeout(420_000);
    await seed(stack.emulator, ENTRIES);
    // The cap holds: one read brings at most 7 rows.
    const capped = await fetch(`${stack.emulator.url}/rest/v1/geocache_logs?select=*`, {
      headers: { apikey: stack.emulator.anonKey, authorization: `Bearer ${stack.emulator.anonKey}` },
    });
    expect(((await capped.json()) as unknown[]).length).toBe(7);

    await page.goto('/');
    await expectWholeLogbook(page);
    expect(listReads(record).length).toBeGreaterThanOrEqual(Math.ceil(ENTRIES / 7));
  });

  test('a sign brings the list up to date, keeping every entry', async ({ page, stack }) => {
    test.setTimeout(300_000);
    await seed(stack.emulator, 30);
    await page.goto('/');
    const logbook = logbookPage(page);
    await expect(logbook.entries.first()).toContainText(entryName(30));
    await sign(page, { name: 'Zed', message: 'past the cap' });
    await expect(logbook.entries.first()).toContainText('Zed');
    await expect(page.locator('[data-testid="log-entry"][data-index="1"]')).toContainText(entryName(30));
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(logbook.entries.last()).toContainText(entryName(1));
    await expect(logbook.entries.last()).toHaveAttribute('data-index', '30');
  });
});

for (const pageKey of ['publishable', 'anon'] as const) {
  test.describe(`the page configured with the ${pageKey === 'anon' ? 'legacy anon' : 'publishable'} key`, () => {
    test.use({ pageKey });

    test('lists the entries and signs, sending that key', async ({ page, stack }) => {
      const key = pageKey === 'anon' ? stack.emulator.anonKey : publishableKeyOf(stack.emulator);
      await seed(stack.emulator, 3);
      const keys: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/rest/v1/')) keys.push(request.headers().apikey ?? '(none)');
      });
      await page.goto('/');
      const logbook = logbookPage(page);
      await expect(logbook.entries).toHaveCount(3);
      await expect(logbook.entries.first()).toContainText(entryName(3));

      await sign(page, { name: 'Pia', message: `signed with the ${pageKey} key` });
      await expect(logbook.entries).toHaveCount(4);
      await expect(logbook.entries.first()).toContainText('Pia');
      expect(keys.length).toBeGreaterThan(0);
      expect(new Set(keys)).toEqual(new Set([key]));
    });
  });
}
