// A page built or served without its backend configuration, or with a request timeout that is not a positive whole
// number: the teaser does not care; the open logbook shows an empty list and logs the configuration error (the
// client's own, "supabaseUrl is required." / "supabaseKey is required.", or the page's for REQUEST_TIMEOUT_MS)
// through the page's usual "Error fetching logs:" path, and calls no backend.
import { consoleErrorLabels, expect, logbookPage, test, type PageConfigVariable } from './fixtures.ts';

interface Case {
  title: string;
  config: { missingConfig?: PageConfigVariable; requestTimeoutMs?: number };
  code: string;
  message: string;
}

const CASES: Case[] = [
  { title: 'without VITE_SUPABASE_URL', config: { missingConfig: 'VITE_SUPABASE_URL' }, code: 'url_required', message: 'supabaseUrl is required.' },
  { title: 'without VITE_SUPABASE_PUBLISHABLE_KEY', config: { missingConfig: 'VITE_SUPABASE_PUBLISHABLE_KEY' }, code: 'key_required', message: 'supabaseKey is required.' },
  {
    title: 'with REQUEST_TIMEOUT_MS=0 (not a positive whole number)',
    config: { requestTimeoutMs: 0 },
    code: 'request_timeout_invalid',
    message: 'VITE_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647, e.g. 30000 (got "0").',
  },
];

for (const { title, config, code, message } of CASES) {
  test.describe(title, () => {
    test.use(config);

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
