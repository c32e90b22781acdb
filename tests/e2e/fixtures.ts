// Playwright fixtures: every test gets its own emulator (in memory, or over a database file for a test that restarts
// it) and a page server configured for it (the same launchers `npm start` and `npm run preview` use), plus a record
// of what the page logged, requested, popped up and what the Content-Security-Policy blocked. The page server is the
// Vite dev server (project "dev") or the production build served by `vite preview` (project "production").
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect, type ConsoleMessage, type Page } from '@playwright/test';
import { startEmulator, type RunningEmulator } from '../../scripts/lib/emulator.mjs';
import { findFreePort } from '../../scripts/lib/ports.mjs';
import { buildApp, startVite, startVitePreview, type RunningVite } from '../../scripts/lib/vite.mjs';

export type PageServer = 'dev' | 'production';

export interface Stack {
  /** The running emulator; after `restartEmulator` it is the new process. */
  emulator: RunningEmulator;
  /** The emulator's database file (`emulatorDb: 'file'`), for the owner and import commands; null in memory. */
  db: string | null;
  /** The page server: Vite's dev server, or `vite preview` serving the production build. */
  vite: RunningVite;
  /**
   * Stops the emulator (SIGTERM, then waits for it to exit) and starts it again on the same port (the page names
   * that URL) with the same database and JWT secret; resolves with the new process once it is ready. Only a file
   * database (`emulatorDb: 'file'`) keeps its rows across the restart. `whileDown` runs after the old process has
   * exited and before the new one starts (e.g. to wait for the page to notice).
   */
  restartEmulator(whileDown?: () => Promise<void>): Promise<RunningEmulator>;
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
  /** Every `securitypolicyviolation` the page saw, as "directive blocked uri". */
  cspViolations: string[];
}

/** A page configuration variable a test leaves out on purpose. */
export type PageConfigVariable = 'VITE_SUPABASE_URL' | 'VITE_SUPABASE_PUBLISHABLE_KEY';

/** Where the emulator keeps its rows: in memory, or in a database file in a temporary directory of the test's own. */
export type EmulatorDb = 'memory' | 'file';

/** Which of the emulator's public keys the page is built with, under which variable. */
export type PageKey = 'anon' | 'publishable';

interface Fixtures {
  /** VITE_LOGBOOK_OPEN for this test's page. */
  logbookOpen: boolean;
  /** Configuration left empty for this test's page (it must then report the client's own error). */
  missingConfig: PageConfigVariable | null;
  /** VITE_REQUEST_TIMEOUT_MS for this test's page; null leaves it unset (the client's default). */
  requestTimeoutMs: number | null;
  /** The page's key: the legacy anon key (VITE_SUPABASE_ANON_KEY) or the publishable key (VITE_SUPABASE_PUBLISHABLE_KEY). */
  pageKey: PageKey;
  /** More emulator flags for this test (e.g. `--max-rows`). */
  emulatorArgs: readonly string[];
  /** The emulator's database; 'file' for a test that restarts the emulator and expects its rows back. */
  emulatorDb: EmulatorDb;
  /** Set by the tests that provoke a CSP violation on purpose; any other violation fails the test. */
  expectCspViolations: boolean;
  stack: Stack;
  record: PageRecord;
  cspGuard: void;
}

/** Production builds name the backend's URL, so in project "production" every test's emulator binds one port. */
interface ProductionSite {
  /** The port every test's emulator binds (the OS picked it once). */
  backendPort(): Promise<number>;
  /** A build for this configuration (cached: equal configurations share one build). */
  build(env: Record<string, string>): Promise<string>;
}

interface WorkerFixtures {
  pageServer: PageServer;
  productionSite: ProductionSite;
}

/** The emulator's publishable key (its "Publishable key: sb_publishable_..." line). */
export function publishableKeyOf(emulator: RunningEmulator): string {
  return emulator.publishableKey;
}

/** The page's build-time configuration for a test. */
function pageEnv(
  emulator: RunningEmulator,
  logbookOpen: boolean,
  missing: PageConfigVariable | null,
  requestTimeoutMs: number | null,
  pageKey: PageKey,
) {
  const env: Record<string, string> = {
    VITE_SUPABASE_URL: emulator.url,
    VITE_LOGBOOK_OPEN: String(logbookOpen),
  };
  if (pageKey === 'publishable') env.VITE_SUPABASE_PUBLISHABLE_KEY = publishableKeyOf(emulator);
  else env.VITE_SUPABASE_ANON_KEY = emulator.anonKey;
  if (missing !== null) env[missing] = '';
  if (requestTimeoutMs !== null) env.VITE_REQUEST_TIMEOUT_MS = String(requestTimeoutMs);
  return env;
}

/**
 * The page's configuration in a test that changes none of the fixture's options: a build of it made for one test
 * serves every other test that asks for the same (`ProductionSite.build` keys its builds by this object).
 */
export function defaultPageEnv(emulator: RunningEmulator, logbookOpen: boolean): Record<string, string> {
  return pageEnv(emulator, logbookOpen, null, null, 'publishable');
}

/**
 * One JWT secret for every emulator of this worker: the keys are baked into production builds, so equal
 * configurations keep sharing one build although each test gets a fresh in-memory emulator.
 */
const workerJwtSecret = randomBytes(32).toString('base64url');

export const test = base.extend<Fixtures, WorkerFixtures>({
  pageServer: ['dev', { option: true, scope: 'worker' }],
  logbookOpen: [true, { option: true }],
  missingConfig: [null, { option: true }],
  requestTimeoutMs: [null, { option: true }],
  // What owners get from a hosted project today; 'anon' is the legacy JWT key.
  pageKey: ['publishable', { option: true }],
  emulatorArgs: [[], { option: true }],
  emulatorDb: ['memory', { option: true }],
  expectCspViolations: [false, { option: true }],

  productionSite: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const root = await mkdtemp(path.join(os.tmpdir(), 'geocache-e2e-builds-'));
      let backendPort: Promise<number> | undefined;
      const builds = new Map<string, Promise<string>>();
      await use({
        // A first emulator on a port the OS picks; every test's emulator then binds the same one.
        backendPort: () =>
          (backendPort ??= (async () => {
            const probe = await startEmulator({ port: 0, db: ':memory:' });
            await probe.stop();
            return probe.port;
          })()),
        build: (env) => {
          const key = JSON.stringify(env);
          let build = builds.get(key);
          if (build === undefined) {
            const outDir = path.join(root, `build-${builds.size + 1}`);
            build = buildApp({ outDir, env }).then(() => outDir);
            builds.set(key, build);
          }
          return build;
        },
      });
      await rm(root, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],

  stack: async (
    { logbookOpen, missingConfig, requestTimeoutMs, pageKey, emulatorArgs, emulatorDb, pageServer, productionSite },
    use,
    testInfo,
  ) => {
    const output: string[] = [];
    const log = (name: string) => (line: string) => output.push(`[${name}] ${line}`);
    const dataDir = emulatorDb === 'file' ? await mkdtemp(path.join(os.tmpdir(), 'geocache-e2e-data-')) : null;
    const db = dataDir === null ? null : path.join(dataDir, 'geocache.db');
    const start = (port: number) =>
      startEmulator({
        port,
        db: db ?? ':memory:',
        jwtSecret: workerJwtSecret,
        extraArgs: [...emulatorArgs],
        onOutput: log('emulator'),
      });
    let emulator: RunningEmulator | undefined;
    let vite: RunningVite | undefined;
    try {
      emulator = await start(pageServer === 'production' ? await productionSite.backendPort() : 0);
      const env = pageEnv(emulator, logbookOpen, missingConfig, requestTimeoutMs, pageKey);
      vite =
        pageServer === 'production'
          ? await startVitePreview({ outDir: await productionSite.build(env), port: await findFreePort(), onOutput: log('preview') })
          : await startVite({ port: await findFreePort(), env, onOutput: log('vite') });
      const stack: Stack = {
        emulator,
        db,
        vite,
        restartEmulator: async (whileDown) => {
          const { port } = stack.emulator;
          const stopped = await stack.emulator.stop();
          emulator = undefined;
          if (stopped.signal === 'SIGKILL') throw new Error('The emulator did not exit on SIGTERM: it had to be killed.');
          await whileDown?.();
          stack.emulator = emulator = await start(port);
          return emulator;
        },
      };
      await use(stack);
    } finally {
      await vite?.stop();
      await emulator?.stop();
      if (dataDir !== null) await rm(dataDir, { recursive: true, force: true });
      if (testInfo.status !== testInfo.expectedStatus) {
        await testInfo.attach('server output', { body: output.join('\n'), contentType: 'text/plain' });
      }
    }
  },

  baseURL: async ({ stack }, use) => {
    await use(stack.vite.url);
  },

  // Automatic, so it records from the first navigation, including those in beforeEach hooks.
  record: [
    async ({ page }, use) => {
      const record: PageRecord = { consoleCalls: [], requests: [], dialogs: [], pageErrors: [], cspViolations: [] };
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
      // Init scripts run before the page's own and are not subject to its policy.
      await page.exposeFunction('__recordCspViolation', (violation: string) => record.cspViolations.push(violation));
      await page.addInitScript(() => {
        const report = (window as unknown as { __recordCspViolation: (violation: string) => Promise<void> }).__recordCspViolation;
        document.addEventListener('securitypolicyviolation', (event) => {
          void report(`${event.effectiveDirective} blocked ${event.blockedURI}`);
        });
      });
      await use(record);
    },
    { auto: true },
  ],

  // Every test, in both projects: the page works within its Content-Security-Policy (styles, wasm, the backend).
  cspGuard: [
    async ({ record, expectCspViolations }, use) => {
      await use();
      if (!expectCspViolations) expect(record.cspViolations, 'Content-Security-Policy violations').toEqual([]);
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
    // The button reads "Signing…" while a sign is in flight.
    submit: page.getByRole('button', { name: /^(Sign Logbook|Signing…)$/ }),
    /** The page's one polite live region. */
    status: page.getByRole('status'),
    /** Signs kept on this device, waiting to be sent. */
    pending: page.getByTestId('pending-entry'),
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

/** How many entries the page keeps on this device (its IndexedDB copy): 0 before one is kept, -1 before its store exists. */
export async function keptCount(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('geocache-logbook-copy');
        open.onerror = () => reject(open.error ?? new Error('cannot open the copy'));
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('copy')) return resolve(-1);
          // The copy's head record holds its newest entries and how many it keeps in all.
          const read = db.transaction('copy').objectStore('copy').get('head');
          read.onsuccess = () => {
            resolve((read.result as { count?: number } | undefined)?.count ?? 0);
            db.close();
          };
          read.onerror = () => reject(read.error ?? new Error('cannot read the copy'));
        };
      }),
  );
}
