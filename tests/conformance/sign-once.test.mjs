// @ts-check
// Signs stored once per Idempotency-Key through supabase-js, answered as PostgREST answers the hosted migration
// (supabase/migrations/*_geocache_logs_sign_receipts.sql): a resend stores nothing and is still a 201, a malformed key
// is PT400, no key stores every request, concurrent requests with one key store one row, a browser's preflight lets
// the header through, and a resend is never refused by the sign limit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { TABLE, rest, startBackend } from './support.mjs';

const MALFORMED = {
  code: 'PT400',
  details: 'A sign\'s key is a UUID written as 8-4-4-4-12 hexadecimal digits, such as 123e4567-e89b-42d3-a456-426614174000.',
  hint: 'Send a new random UUID with each sign and the same one when sending it again, or leave the header out.',
  message: 'The Idempotency-Key header is not a UUID.',
};

/**
 * @param {import('@supabase/supabase-js').SupabaseClient} client
 * @param {string} name
 */
async function stored(client, name) {
  const { data, error } = await client.from(TABLE).select('id').eq('name', name);
  assert.equal(error, null);
  return /** @type {unknown[]} */ (data).length;
}

test('a resend with the same key stores nothing and is answered 201, [] with return=representation', async (t) => {
  const { anon } = await startBackend(t);
  const key = randomUUID();
  const entry = { name: 'Ada', message: 'TFTC' };
  const first = await anon.from(TABLE).insert(entry).setHeader('Idempotency-Key', key);
  assert.deepEqual(first, { success: true, error: null, data: null, count: null, status: 201, statusText: 'Created' });
  const again = await anon.from(TABLE).insert(entry).setHeader('Idempotency-Key', key);
  assert.deepEqual(again, first);
  const shown = await anon.from(TABLE).insert(entry).select().setHeader('Idempotency-Key', key.toUpperCase());
  assert.deepEqual(shown, { success: true, error: null, data: [], count: null, status: 201, statusText: 'Created' });
  assert.equal(await stored(anon, 'Ada'), 1);
});

test('a skipped insert is answered as PostgREST answers it on the wire', async (t) => {
  const { emulator } = await startBackend(t);
  const key = randomUUID();
  const send = () =>
    rest(emulator, `/rest/v1/${TABLE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ name: 'Ada', message: 'TFTC' }),
    });
  assert.equal((await send()).status, 201);
  const again = await send();
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('content-range'), '*/*');
  assert.equal(await again.text(), '');
});

test('requests without a key are each stored', async (t) => {
  const { anon } = await startBackend(t);
  for (let index = 0; index < 2; index += 1) {
    const { error } = await anon.from(TABLE).insert({ name: 'Ada', message: 'TFTC' });
    assert.equal(error, null);
  }
  assert.equal(await stored(anon, 'Ada'), 2);
});

test('concurrent requests with one key store one row', async (t) => {
  const { anon } = await startBackend(t);
  const key = randomUUID();
  const results = await Promise.all(
    Array.from({ length: 12 }, () => anon.from(TABLE).insert({ name: 'Ada', message: 'TFTC' }).setHeader('Idempotency-Key', key)),
  );
  for (const result of results) assert.equal(result.status, 201, JSON.stringify(result.error));
  assert.equal(await stored(anon, 'Ada'), 1);
});

test('a malformed key is refused with the migration\'s PT400 and stores nothing', async (t) => {
  const { anon } = await startBackend(t);
  for (const key of ['not-a-uuid', randomUUID().replaceAll('-', ''), `{${randomUUID()}}`, '']) {
    const result = await anon.from(TABLE).insert({ name: 'Ada', message: 'TFTC' }).setHeader('Idempotency-Key', key);
    assert.equal(result.status, 400, key);
    assert.deepEqual(result.error, MALFORMED, key);
  }
  assert.equal(await stored(anon, 'Ada'), 0);
});

test('a preflight reflects the idempotency-key header it asks for', async (t) => {
  const { emulator } = await startBackend(t);
  const response = await fetch(`${emulator.url}/rest/v1/${TABLE}`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://127.0.0.1:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'apikey,authorization,content-type,idempotency-key',
    },
  });
  assert.ok(response.ok, `${response.status}`);
  const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(',').map((header) => header.trim());
  assert.ok(allowed.includes('idempotency-key'), allowed.join(','));
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
});

test('a resend is never refused by the sign limit', async (t) => {
  const { anon } = await startBackend(t, {
    extraArgs: ['--sign-limit-loopback', '--sign-limit-per-address-minute', '1'],
  });
  const key = randomUUID();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const result = await anon.from(TABLE).insert({ name: 'Ada', message: 'TFTC' }).setHeader('Idempotency-Key', key);
    assert.equal(result.status, 201, JSON.stringify(result.error));
  }
  const other = await anon.from(TABLE).insert({ name: 'Bob', message: 'TFTC' }).setHeader('Idempotency-Key', randomUUID());
  assert.equal(other.status, 429);
  assert.equal(await stored(anon, 'Ada'), 1);
});
