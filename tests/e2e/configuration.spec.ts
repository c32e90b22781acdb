// A page built or served without its backend configuration: the teaser does not care; the open logbook shows an
// empty list and logs the client's own error ("supabaseUrl is required." / "supabaseKey is required.") through
// the page's usual "Error fetching logs:" path, and calls no backend.
import { consoleErrorLabels, expect, logbookPage, test, type PageConfigVariable } from './fixtures.ts';

const CASES: { missing: PageConfigVariable; code: string; message: string }[] = [
  { missing: 'VITE_SUPABASE_URL', code: 'url_required', message: 'supabaseUrl is required.' },
  { missing: 'VITE_SUPABASE_ANON_KEY', code: 'key_required', message: 'supabaseKey is required.' },
];

for (const { missing, code, message } of CASES) {
  test.describe(`without ${missing}`, () => {
    test.use({ missingConfig: missing });

    test(`the open logbook logs "Error fetching logs:" with "${message}"`, async ({ page, record, stack }) => {
      await page.goto('/');
      await expect(logbookPage(page).heading).toBeVisible();
      await expect.poll(async () => (await consoleErrorLabels(record)).length).toBeGreaterThan(0);
      // React's StrictMode mounts twice in development, so the load may run (and fail) twice.
      for (const label of await consoleErrorLabels(record)) expect(label).toBe('Error fetching logs:');
      const call = record.consoleCalls.find((candidate) => candidate.type === 'error');
      const logged = await call?.message.args()[1]?.evaluate((error: unknown) => ({
        isError: error instanceof Error,
        name: (error as Error).name,
        message: (error as Error).message,
        code: (error as { code?: unknown }).code,
      }));
      expect(logged).toEqual({ isError: true, name: 'ConfigError', message, code });
      await expect(logbookPage(page).entries).toHaveCount(0);
      await expect(logbookPage(page).name).toBeEditable();
      const backendOrigin = new URL(stack.emulator.url).origin;
      expect(record.requests.filter((request) => request.includes(backendOrigin))).toEqual([]);
      expect(record.pageErrors).toEqual([]);
    });

    test.describe('with the logbook closed', () => {
      test.use({ logbookOpen: false });

      test('the teaser shows as usual, with nothing logged', async ({ page, record }) => {
        await page.goto('/');
        await expect(page.getByRole('main')).toBeVisible();
        expect((await page.getByRole('main').textContent())?.trim().length ?? 0).toBeGreaterThan(40);
        await page.waitForLoadState('networkidle');
        expect(record.consoleCalls.filter((entry) => entry.type === 'error' || entry.type === 'warning')).toEqual([]);
        expect(record.pageErrors).toEqual([]);
      });
    });
  });
}
