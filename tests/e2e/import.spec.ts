// A hosted logbook brought home: the table as the hosted dashboard's CSV export writes it, imported with
// `geocache-emulator import` into the database the emulator serves, is shown by the page newest first with the same
// ids (as served) and the same instants in the visitor's local time.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { emulatorBinary } from '../../scripts/lib/repo.mjs';
import { expect, logbookPage, test } from './fixtures.ts';

/** A zone with a 45-minute offset, so a time shown in UTC can never pass for local time. */
test.use({ emulatorDb: 'file', locale: 'en-GB', timezoneId: 'Asia/Kathmandu' });

/** The dashboard's export: ids from the hosted identity, PostgreSQL's timestamp text, CRLF, no final line break. */
const DASHBOARD_CSV = [
  'id,created_at,name,message',
  '3,2026-11-20 10:11:12.12345+00,Ada,"Found it, TFTC"',
  '7,2026-11-21 06:00:00+00,Grace,"Log was ""damp"""',
  '12,2025-12-31 23:59:59.999999+00,Linus,Older than the rest',
  '15,2026-11-21 06:00:00+00,Margaret," same minute, larger id "',
].join('\r\n');

/** Newest first: by time, then by id. `clock` is the time of day in Kathmandu (UTC+05:45), worked out by hand. */
const EXPECTED = [
  { id: 15, name: 'Margaret', message: ' same minute, larger id ', at: '2026-11-21T06:00:00+00:00', clock: '11:45' },
  { id: 7, name: 'Grace', message: 'Log was "damp"', at: '2026-11-21T06:00:00+00:00', clock: '11:45' },
  { id: 3, name: 'Ada', message: 'Found it, TFTC', at: '2026-11-20T10:11:12.12345+00:00', clock: '15:56' },
  { id: 12, name: 'Linus', message: 'Older than the rest', at: '2025-12-31T23:59:59.999999+00:00', clock: '05:44' },
];

test('entries imported from the dashboard\'s CSV are shown newest first with their ids and local times', async ({ page, stack }) => {
  const db = stack.db;
  if (db === null) throw new Error('the emulator has no database file');
  const file = path.join(path.dirname(db), 'geocache_logs_rows.csv');
  await writeFile(file, DASHBOARD_CSV);
  // Into the database the emulator is serving.
  const { stdout } = await promisify(execFile)(emulatorBinary, ['import', '--db', db, file]);
  expect(stdout).toContain('added 4 entries');

  const firstLoad = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  await page.goto('/');
  const served = (await (await firstLoad).json()) as { id: number; created_at: string; message: string }[];
  expect(served.map(({ id, created_at, message }) => ({ id, created_at, message }))).toEqual(
    EXPECTED.map(({ id, at, message }) => ({ id, created_at: at, message })),
  );

  const logbook = logbookPage(page);
  await expect(logbook.entries).toHaveCount(EXPECTED.length);
  for (const [index, entry] of EXPECTED.entries()) {
    const card = logbook.entries.nth(index);
    await expect(card).toContainText(entry.name);
    await expect(card).toContainText(entry.message.trim());
    const time = card.locator('time');
    const dateTime = (await time.getAttribute('datetime')) ?? '';
    expect(dateTime, 'the instant to the microsecond, as served').toBe(entry.at);
    // The browser's own formatting of the instant (its ICU, not Node's), which must hold the local clock time.
    const local = await page.evaluate(
      (value) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(value)),
      entry.at,
    );
    expect(local).toContain(entry.clock);
    await expect(time).toHaveText(local);
  }
});
