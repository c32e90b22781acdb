// @ts-check
// The new-format API keys through supabase-js, as a hosted project answers them: the publishable key reads and signs
// like the anon key, the secret key acts as the service role, and the gateway refuses unknown `sb_` keys, a bearer
// `sb_` key that is not the apikey, and a secret key sent from a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { TABLE, sampleEntries, signInOrder, startBackend } from './support.mjs';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

test('the printed keys have the Supabase CLI forms', async (t) => {
  const { emulator } = await startBackend(t);
  assert.match(emulator.publishableKey, /^sb_publishable_[A-Za-z0-9_-]+$/);
  assert.match(emulator.secretKey, /^sb_secret_[A-Za-z0-9_-]+$/);
  // The same JWT secret gives the same keys on every start.
  const { emulator: again } = await startBackend(t);
  assert.deepEqual([again.publishableKey, again.secretKey], [emulator.publishableKey, emulator.secretKey]);
});

test('the publishable key signs and reads the logbook like the anon key, and may not delete', async (t) => {
  const { publishable } = await startBackend(t);
  const inserted = await signInOrder(publishable, sampleEntries(2));

  const read = await publishable.from(TABLE).select('*').order('id');
  assert.deepEqual(read, { success: true, error: null, data: inserted, count: null, status: 200, statusText: 'OK' });

  const removed = await publishable.from(TABLE).delete().gt('id', 0);
  assert.equal(removed.status, 401);
  assert.equal(removed.error?.code, '42501');
});

test('the secret key acts as the service role', async (t) => {
  const { publishable, secret } = await startBackend(t);
  await signInOrder(publishable, sampleEntries(3));
  const backdated = await secret
    .from(TABLE)
    .insert({ name: 'n', message: 'm', created_at: '2024-05-01T00:00:00+00:00' })
    .select();
  assert.equal(backdated.error, null);
  assert.equal(backdated.data?.[0]?.created_at, '2024-05-01T00:00:00+00:00');

  const removed = await secret.from(TABLE).delete().gt('id', 0).select('id');
  assert.equal(removed.error, null);
  assert.equal(removed.data?.length, 4);
});

test('the emulator endpoints take the secret key, not the publishable key', async (t) => {
  const { emulator } = await startBackend(t);
  const sms = (/** @type {string} */ key) => fetch(`${emulator.url}/emulator/v1/sms`, { headers: { apikey: key } });
  assert.equal((await sms(emulator.secretKey)).status, 200);
  const refused = await sms(emulator.publishableKey);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).message, 'This endpoint requires the service_role key');
});

test('a signed-in user with the publishable key acts as that user', async (t) => {
  const { emulator, publishable } = await startBackend(t);
  const signUp = await publishable.auth.signUp({ email: 'walker@example.com', password: 'correct horse battery' });
  assert.equal(signUp.error, null);
  const session = signUp.data.session;
  assert.ok(session);
  // authenticated (not anon) may not backdate an entry: 403, where anon gets 401.
  const response = await fetch(`${emulator.url}/rest/v1/${TABLE}`, {
    method: 'POST',
    headers: {
      apikey: emulator.publishableKey,
      authorization: `Bearer ${session.access_token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name: 'n', message: 'm', created_at: '2024-05-01T00:00:00Z' }),
  });
  assert.equal(response.status, 403);
  const user = await publishable.auth.getUser();
  assert.equal(user.data.user?.email, 'walker@example.com');
});

test('unknown sb_ keys are refused with 401', async (t) => {
  const { emulator } = await startBackend(t);
  for (const key of ['sb_publishable_not-this-project', 'sb_secret_not-this-project', 'sb_temp_abc']) {
    const client = createClient(emulator.url, key, { auth: { persistSession: false, autoRefreshToken: false } });
    const result = await client.from(TABLE).select('*');
    assert.equal(result.status, 401, key);
    assert.equal(result.error?.message, 'Invalid API key', key);
  }
});

test('a bearer sb_ key must be the apikey itself', async (t) => {
  const { emulator } = await startBackend(t);
  const response = await fetch(`${emulator.url}/rest/v1/${TABLE}?select=*`, {
    headers: { apikey: emulator.publishableKey, authorization: `Bearer ${emulator.secretKey}` },
  });
  assert.equal(response.status, 401);
  assert.equal((await response.json()).message, 'Invalid API key in Authorization header');
});

test('a secret key from a browser is refused; the publishable key and the legacy service_role key are not', async (t) => {
  const { emulator } = await startBackend(t);
  /** @param {string} key */
  const browserClient = (key) =>
    createClient(emulator.url, key, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { 'User-Agent': BROWSER } },
    });

  const refused = await browserClient(emulator.secretKey).from(TABLE).select('*');
  assert.equal(refused.status, 401);
  assert.equal(refused.error?.message, 'Forbidden use of secret API key in browser');
  const refusedAuth = await browserClient(emulator.secretKey).auth.signUp({
    email: 'walker@example.com',
    password: 'correct horse battery',
  });
  assert.equal(refusedAuth.error?.status, 401);

  assert.equal((await browserClient(emulator.publishableKey).from(TABLE).select('*')).status, 200);
  assert.equal((await browserClient(emulator.serviceRoleKey).from(TABLE).select('*')).status, 200);
});
