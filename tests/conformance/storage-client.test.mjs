// @ts-check
// The storage cases (storage-cases.mjs) with this package's `client.storage`: wasm/pkg loaded into headless Chromium,
// each case on a fresh in-memory emulator started with the case's policies, as storage.test.mjs runs them with
// @supabase/supabase-js's own storage client. The case module is served to the page and runs there, unchanged.
// Run after `bash scripts/build-wasm.sh`.
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { STORAGE_CASES } from './storage-cases.mjs';
import { startBackend } from './support.mjs';
import { openClientPage } from './wasm-page.mjs';

const CASES_PATH = '/storage-cases.mjs';
const casesFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'storage-cases.mjs');

test('the storage cases with geocache-client in Chromium', async (t) => {
  const page = await openClientPage(t, { [CASES_PATH]: casesFile });
  for (const storageCase of STORAGE_CASES) {
    await t.test(storageCase.name, async (t) => {
      const { emulator } = await startBackend(t, {
        extraArgs: storageCase.policies.flatMap((policy) => ['--storage-policy', policy]),
      });
      await page.evaluate(
        async ({ casesPath, name, url, anonKey, serviceRoleKey }) => {
          const { createClient } = /** @type {any} */ (globalThis).geocacheClient;
          /** @type {{ STORAGE_CASES: import('./storage-cases.mjs').StorageCase[] }} */
          const { STORAGE_CASES: cases } = await import(casesPath);
          const storageCase = cases.find((candidate) => candidate.name === name);
          if (storageCase === undefined) throw new Error(`no case named ${name}`);
          const options = () => ({ auth: { persistSession: false, autoRefreshToken: false } });
          const user = createClient(url, anonKey, options());
          const email = `storage-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
          const { error } = await user.auth.signUp({ email, password: 'a long enough password' });
          if (error !== null) throw new Error(`sign-up failed: ${error.message}`);
          const clients = {
            admin: createClient(url, serviceRoleKey, options()),
            anon: createClient(url, anonKey, options()),
            user,
          };
          const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
          // The cases' own `fetch(url)` of public and signed URLs skips the browser's HTTP cache, as Node's fetch
          // has none: a signed URL read before it expired would be answered from the cache after. The client's
          // requests (Request objects) go through untouched.
          const plainFetch = globalThis.fetch;
          globalThis.fetch = (input, init) =>
            typeof input === 'string' ? plainFetch(input, { cache: 'no-store', ...init }) : plainFetch(input, init);
          try {
            await storageCase.run({ ...clients, url, sleep });
          } finally {
            globalThis.fetch = plainFetch;
            for (const client of Object.values(clients)) client.free();
          }
        },
        {
          casesPath: CASES_PATH,
          name: storageCase.name,
          url: emulator.url,
          anonKey: emulator.anonKey,
          serviceRoleKey: emulator.serviceRoleKey,
        },
      );
    });
  }
});
