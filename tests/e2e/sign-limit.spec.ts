// The page under the logbook's spam limit: an emulator that limits this machine too, with a budget of two signs per
// address a minute, refuses the third sign as the hosted migration does (PT429, HTTP 429); the page keeps what the
// visitor typed and logs the refusal, and the logbook holds only the first two entries.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { repoRoot } from '../../scripts/lib/repo.mjs';
import { consoleErrorLabels, expect, logbookPage, sign, test, type ConsoleCall } from './fixtures.ts';

const BUDGET = 2;
const MIGRATION = path.join(repoRoot, 'supabase', 'migrations', '20261123000000_geocache_logs_sign_limit.sql');

test.use({ emulatorArgs: ['--sign-limit-loopback', '--sign-limit-per-address-minute', String(BUDGET)] });

/** The migration's message when one address has used its minute's budget (what PostgREST passes on). */
async function perAddressMessage(): Promise<string> {
  const sql = await readFile(MIGRATION, 'utf8');
  const match = /message = '(Too many signs from your network[^']*)'/.exec(sql);
  if (match?.[1] === undefined) throw new Error(`${MIGRATION} has no per-address refusal message`);
  return match[1];
}

/** The error a console call passed as its second argument, with the server's texts. */
async function refusal(call: ConsoleCall) {
  const handle = call.message.args()[1];
  if (handle === undefined) throw new Error('the console call had no error argument');
  return handle.evaluate((value: unknown) => {
    const error = value as { code?: unknown; status?: unknown; details?: unknown; hint?: unknown; outcome?: unknown };
    return {
      isError: value instanceof Error,
      name: value instanceof Error ? value.name : typeof value,
      message: value instanceof Error ? value.message : String(value),
      code: error.code,
      status: error.status,
      details: error.details,
      hint: error.hint,
      outcome: error.outcome,
    };
  });
}

/**
 * Waits until at least `seconds` are left in the current minute: the emulator counts signs per calendar minute of
 * this machine's clock, so signs straddling the minute's turn would each get a fresh budget.
 */
async function untilMinuteHasLeft(page: Page, seconds: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await page.waitForTimeout(left + 50);
}

test('a sign past the address\'s budget is refused: the fields keep it, the page logs the PT429, two entries stay', async ({ page, stack, record }) => {
  const logbook = logbookPage(page);
  const firstLoad = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/rest/v1/geocache_logs'));
  await page.goto('/');
  expect((await firstLoad).status()).toBe(200);
  await expect(logbook.heading).toBeVisible();

  await untilMinuteHasLeft(page, 30);
  const first = { name: 'Ada', message: 'Found it at dawn.' };
  const second = { name: 'Grace', message: 'Left a travel bug.' };
  await sign(page, first);
  await sign(page, second);
  await expect(logbook.entries).toHaveCount(BUDGET);

  const third = { name: 'Linus', message: 'One sign too many this minute.' };
  await logbook.name.fill(third.name);
  await logbook.message.fill(third.message);
  const refused = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes('/rest/v1/geocache_logs'));
  await logbook.submit.click();
  expect((await refused).status()).toBe(429);

  await expect.poll(() => consoleErrorLabels(record)).toEqual(['Error inserting log:']);
  await expect(logbook.submit).toBeEnabled();
  await expect(logbook.name).toHaveValue(third.name);
  await expect(logbook.message).toHaveValue(third.message);
  await expect(logbook.entries).toHaveCount(BUDGET);
  await expect(logbook.entries.nth(0)).toContainText(second.name);
  await expect(logbook.entries.nth(1)).toContainText(first.name);

  const call = record.consoleCalls.find((candidate) => candidate.type === 'error');
  if (call === undefined) throw new Error('no console.error call was recorded');
  expect(await refusal(call)).toEqual({
    isError: true,
    name: 'LogbookError',
    message: await perAddressMessage(),
    code: 'PT429',
    status: 429,
    details: `At most ${BUDGET} signs a minute come from one address.`,
    hint: 'Wait a minute, then sign again.',
    outcome: 'not_stored',
  });

  // What the table holds, read past the page as the service role.
  const stored = await fetch(`${stack.emulator.url}/rest/v1/geocache_logs?select=name,message&order=id.asc`, {
    headers: { apikey: stack.emulator.serviceRoleKey, authorization: `Bearer ${stack.emulator.serviceRoleKey}` },
  });
  expect(stored.status).toBe(200);
  expect(await stored.json()).toEqual([first, second]);
  expect(record.pageErrors).toEqual([]);
});
