// The screenshot of the open logbook that the README shows (tests/output/logbook.png).
import path from 'node:path';
import { repoRoot } from '../../scripts/lib/repo.mjs';
import { expect, logbookPage, sign, test } from './fixtures.ts';

test.use({ locale: 'en-GB', timezoneId: 'Europe/London', viewport: { width: 1000, height: 800 } });

test('screenshot of the open logbook with a few entries', async ({ page }) => {
  const firstLoad = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  await page.goto('/');
  await firstLoad;
  const logbook = logbookPage(page);
  const entries = [
    { name: 'Ada', message: 'Found it at dawn behind the old oak. TFTC!' },
    { name: 'Grace', message: 'Log was a bit damp; dropped off a travel bug for the next finder.' },
    { name: 'Linus', message: 'Third try, finally. The riddle on the teaser was the real puzzle.' },
  ];
  for (const entry of entries) await sign(page, entry);
  await expect(logbook.entries).toHaveCount(entries.length);
  await expect(logbook.entries.first()).toContainText('Linus');

  const file = path.join(repoRoot, 'tests', 'output', 'logbook.png');
  const png = await page.screenshot({ path: file, fullPage: true });
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
});
