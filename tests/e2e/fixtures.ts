// Playwright fixtures: every test gets its own in-memory emulator and a Vite dev server configured for it
// (the same launchers `npm start` uses), plus a record of what the page logged, requested and popped up.
import { test as base, expect, type ConsoleMessage, type Page } from '@playwright/test';
import { startEmulator, type RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { findFreePort } from '../../scripts/lib/ports.mjs';
import { startVite, type RunningVite } from '../../scripts/lib/vite.mjs';

export interface Stack {
  emulator: RunningEmulator;
  vite: RunningVite;
}

/** A console.error/warn/log call made by the page's code (not Chromium's own network log lines). */
export interface ConsoleCall {
  type: string;
  message: ConsoleMessage;
}

export interface PageRecord {
  consoleCalls: ConsoleCall[];
  /** Every request the page made, as "METHOD url". */
  requests: string[];
  dialogs: string[];
  pageErrors: Error[];
}

interface Fixtures {
  /** VITE_LOGBOOK_OPEN for this test's page server. */
  logbookOpen: boolean;
  stack: Stack;
  record: PageRecord;
}

export const test = base.extend<Fixtures>({
  logbookOpen: [true, { option: true }],

  stack: async ({ logbookOpen }, use, testInfo) => {
    const output: string[] = [];
    const log = (name: string) => (line: string) => output.push(`[${name}] ${line}`);
    const emulator = await startEmulator({ port: 0, db: ':memory:', onOutput: log('emulator') });
    let vite: RunningVite | undefined;
    try {
      vite = await startVite({
        port: await findFreePort(),
        env: {
          VITE_SUPABASE_URL: emulator.url,
          VITE_SUPABASE_ANON_KEY: emulator.anonKey,
          VITE_LOGBOOK_OPEN: String(logbookOpen),
        },
        onOutput: log('vite'),
      });
      await use({ emulator, vite });
    } finally {
      await vite?.stop();
      await emulator.stop();
      if (testInfo.status !== testInfo.expectedStatus) {
        await testInfo.attach('server output', { body: output.join('\n'), contentType: 'text/plain' });
      }
    }
  },

  baseURL: async ({ stack }, use) => {
    await use(stack.vite.url);
  },

  // Automatic, so it records from the first navigation, including those in beforeEach hooks.
  // Automatic, so it records from the first navigation, including those in beforeEach hooks.
  record: [
    async ({ page }, use) => {
      const record: PageRecord = { consoleCalls: [], requests: [], dialogs: [], pageErrors: [] };
      page.on('console', (message) => {
        // Chromium's own lines ("Failed to load resource", CORS refusals) have no arguments; console API calls do.
        if (message.args().length === 0) return;
        record.consoleCalls.push({ type: message.type(), message });
      });
      page.on('request', (request) => record.requests.push(`${request.method()} ${request.url()}`));
      page.on('dialog', (dialog) => {
        record.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => record.pageErrors.push(error));
      await use(record);
    },
    { auto: true },
  ],
});

export { expect };

/** The console.error calls the page made, each reduced to its first argument (the label the app logs). */
export async function consoleErrorLabels(record: PageRecord): Promise<string[]> {
  const errors = record.consoleCalls.filter((call) => call.type === 'error');
  return Promise.all(errors.map(async (call) => String(await call.message.args()[0]?.jsonValue())));
}

/** The error object a console call passed as its second argument, as plain data. */
export async function loggedError(call: ConsoleCall): Promise<{ isError: boolean; name: string; code: unknown; status: unknown }> {
  const handle = call.message.args()[1];
  if (handle === undefined) throw new Error('the console call had no error argument');
  return handle.evaluate((value: unknown) => ({
    isError: value instanceof Error,
    name: value instanceof Error ? value.name : typeof value,
    code: (value as { code?: unknown }).code,
    status: (value as { status?: unknown }).status,
  }));
}

/** The page's form fields and entry cards, located as a visitor finds them. */
export function logbookPage(page: Page) {
  return {
    name: page.getByLabel('Name:'),
    message: page.getByLabel('Message:'),
    submit: page.getByRole('button', { name: 'Sign Logbook' }),
    entries: page.getByTestId('log-entry'),
    heading: page.getByRole('heading', { level: 1, name: 'Geocache Signing Page' }),
    entriesHeading: page.getByRole('heading', { level: 2, name: 'Logbook Entries' }),
  };
}

/** Fills and submits the form, then waits until the entry is listed and the form is cleared again. */
export async function sign(page: Page, entry: { name: string; message: string }) {
  const logbook = logbookPage(page);
  await logbook.name.fill(entry.name);
  await logbook.message.fill(entry.message);
  const inserted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes('/rest/v1/geocache_logs'));
  await logbook.submit.click();
  expect((await inserted).status()).toBe(201);
  await expect(logbook.name).toHaveValue('');
  await expect(logbook.message).toHaveValue('');
}
