// The default page: the logbook is closed, so only the teaser shows and nothing talks to the backend.
import { expect, test } from './fixtures.ts';

test.use({ logbookOpen: false });

test('a closed logbook shows only the teaser, loads no wasm and calls no backend', async ({ page, stack, record }) => {
  await page.goto('/');
  const main = page.getByRole('main');
  await expect(main).toBeVisible();
  expect((await main.textContent())?.trim().length ?? 0).toBeGreaterThan(40);

  await expect(page.getByRole('heading', { name: 'Geocache Signing Page' })).toHaveCount(0);
  await expect(page.locator('form, input, textarea, button, a[href]')).toHaveCount(0);
  await expect(page.getByTestId('log-entry')).toHaveCount(0);

  await page.waitForLoadState('networkidle');
  const backendOrigin = new URL(stack.emulator.url).origin;
  expect(record.requests.filter((request) => request.includes(backendOrigin))).toEqual([]);
  expect(record.requests.filter((request) => /\.wasm\b|geocache_client|wasm\/pkg/.test(request))).toEqual([]);
  expect(record.consoleCalls.filter((call) => call.type === 'error')).toEqual([]);
  expect(record.pageErrors).toEqual([]);
});
