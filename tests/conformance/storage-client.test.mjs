// @ts-check
// The storage cases of storage-cases.client.mjs, side by side: @supabase/supabase-js's storage client in Node and this
// package's `client.storage` (wasm/pkg, loaded into headless Chromium) against one emulator. Each side gets fresh
// buckets; both must give the case's expected answer, bucket names aside. Run after `bash scripts/build-wasm.sh`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startBackend } from './support.mjs';
import { storageCases } from './storage-cases.client.mjs';
import { openClientPage } from './wasm-page.mjs';

const PASSWORD = 'correct horse battery staple';
const SERVER_SIDE = { auth: { persistSession: false, autoRefreshToken: false } };
let counter = 0;
const unique = (/** @type {string} */ label) => `${label}-${process.pid}-${Date.now()}-${(counter += 1)}`;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two fresh buckets, private and public, each holding `a.txt`.
 * @param {import('@supabase/supabase-js').SupabaseClient} service
 */
async function freshBuckets(service) {
  /** @type {string[]} */
  const ids = [];
  for (const isPublic of [false, true]) {
    const id = unique(isPublic ? 'open' : 'closed');
    const created = await service.storage.createBucket(id, { public: isPublic });
    assert.equal(created.error, null);
    const uploaded = await service.storage.from(id).upload('a.txt', 'found it', { contentType: 'text/plain' });
    assert.equal(uploaded.error, null);
    ids.push(id);
  }
  const [bucket = '', publicBucket = ''] = ids;
  return { bucket, publicBucket };
}

/**
 * The answer with this side's bucket names replaced by the placeholders the expectations use.
 * @param {unknown} answer
 * @param {{ bucket: string, publicBucket: string }} buckets
 */
function placeholders(answer, { bucket, publicBucket }) {
  return JSON.parse(JSON.stringify(answer).replaceAll(publicBucket, 'PUBLIC_BUCKET').replaceAll(bucket, 'BUCKET'));
}

test('storage cases: supabase-js in Node and geocache-client in Chromium answer alike', async (t) => {
  const { emulator, service } = await startBackend(t);
  const page = await openClientPage(t);
  const keys = { service: emulator.serviceRoleKey, anon: emulator.anonKey, authenticated: emulator.anonKey };

  for (const storageCase of storageCases) {
    await t.test(storageCase.name, async () => {
      const key = keys[storageCase.role];

      const nodeBuckets = await freshBuckets(service);
      const supabase = createClient(emulator.url, key, SERVER_SIDE);
      if (storageCase.role === 'authenticated') {
        const signUp = await supabase.auth.signUp({ email: `${unique('walker')}@example.com`, password: PASSWORD });
        assert.equal(signUp.error, null);
      }
      const nodeAnswer = await storageCase.run({ storage: supabase.storage, ...nodeBuckets, sleep });

      const pageBuckets = await freshBuckets(service);
      const pageAnswer = await page.evaluate(
        async ({ source, url, key, role, email, password, buckets }) => {
          const { createClient } = /** @type {any} */ (globalThis).geocacheClient;
          const client = createClient(url, key, { auth: { persistSession: false } });
          if (role === 'authenticated') {
            const signUp = await client.auth.signUp({ email, password });
            if (signUp.error) throw signUp.error;
          }
          const run = new Function(`return ({ ${source} }).run`)();
          const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
          return run({ storage: client.storage, ...buckets, sleep });
        },
        {
          source: storageCase.run.toString(),
          url: emulator.url,
          key,
          role: storageCase.role,
          email: `${unique('walker')}@example.com`,
          password: PASSWORD,
          buckets: pageBuckets,
        },
      );

      assert.deepEqual(placeholders(nodeAnswer, nodeBuckets), storageCase.expected, 'supabase-js');
      assert.deepEqual(placeholders(pageAnswer, pageBuckets), storageCase.expected, 'geocache-client');
    });
  }
});
