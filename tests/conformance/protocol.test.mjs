// @ts-check
// What a Supabase project answers besides rows: errors for unknown names and malformed parameters, API keys
// (which keys are accepted and how refusals look) and CORS for a page served from another origin.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { JWT_SECRET_VARIABLE, startEmulator } from '../../scripts/lib/emulator.mjs';
import { TABLE, claims, jwt, rest, sampleEntries, signInOrder, startBackend } from './support.mjs';

/** Supabase CLI's default JWT secret: public, so the emulator uses it only when given (and on loopback only). */
const SUPABASE_CLI_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
/** The anon key every local Supabase project prints (`supabase status`), signed with the secret above. */
const SUPABASE_DEMO_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';

test('an unknown table is PGRST205 with status 404', async (t) => {
  const { anon } = await startBackend(t);
  const result = await anon.from('guestbook').select('*');
  assert.equal(result.success, false);
  assert.equal(result.data, null);
  assert.equal(result.count, null);
  assert.equal(result.status, 404);
  assert.equal(result.statusText, 'Not Found');
  const error = result.error;
  assert.ok(error !== null);
  assert.equal(error.code, 'PGRST205');
  assert.equal(error.message, "Could not find the table 'public.guestbook' in the schema cache");
  assert.equal(error.details, null);
  assert.ok(error.hint === null || typeof error.hint === 'string');

  const insert = await anon.from('guestbook').insert({ name: 'a', message: 'b' });
  assert.equal(insert.status, 404);
  assert.equal(insert.error?.code, 'PGRST205');
});

test('an unknown column in select, order or a filter is 42703 with status 400', async (t) => {
  const { anon } = await startBackend(t);
  await signInOrder(anon, sampleEntries(1));

  const selected = await anon.from(TABLE).select('name, mood');
  assert.equal(selected.status, 400);
  assert.equal(selected.statusText, 'Bad Request');
  assert.equal(selected.data, null);
  assert.equal(selected.error?.code, '42703');
  assert.equal(selected.error?.message, 'column geocache_logs.mood does not exist');

  const filtered = await anon.from(TABLE).select('*').eq('mood', 'happy');
  assert.equal(filtered.status, 400);
  assert.equal(filtered.error?.code, '42703');
  assert.equal(filtered.error?.message, 'column geocache_logs.mood does not exist');

  const ordered = await anon.from(TABLE).select('*').order('mood');
  assert.equal(ordered.status, 400);
  assert.equal(ordered.error?.code, '42703');
});

test('malformed select, order and filter parameters are refused with PGRST100, never run', async (t) => {
  const { anon, emulator } = await startBackend(t);
  const [row] = await signInOrder(anon, sampleEntries(1));
  const malformed = [
    'select=*&order=created_at.sideways',
    'select=*&id=between.1',
    'select=*&id=eq',
    'select=name;drop table geocache_logs',
    'select=*&order=id.desc;drop table geocache_logs',
  ];
  for (const query of malformed) {
    const response = await rest(emulator, `/rest/v1/${TABLE}?${query.replaceAll(' ', '%20')}`);
    const body = await response.json();
    assert.equal(response.status, 400, `${query}: ${JSON.stringify(body)}`);
    assert.equal(body.code, 'PGRST100', `${query}: ${JSON.stringify(body)}`);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'hint', 'message'], query);
  }
  const { data } = await anon.from(TABLE).select('*');
  assert.deepEqual(data, [row], 'the table is intact');

  const quoted = await anon.from(TABLE).select('*').eq('name', "x' or '1'='1");
  assert.equal(quoted.error, null);
  assert.deepEqual(quoted.data, [], 'a quote in a filter value is data, not SQL');
});

test('without a secret the keys are the emulator\'s own, not the public demo keys', async (t) => {
  const { emulator } = await startBackend(t, { env: { [JWT_SECRET_VARIABLE]: undefined } });
  assert.notEqual(emulator.anonKey, SUPABASE_DEMO_ANON_KEY);
  assert.deepEqual(claims(emulator.anonKey), { iss: 'supabase-demo', role: 'anon', exp: 1983812996 });
  const refused = await createClient(emulator.url, SUPABASE_DEMO_ANON_KEY).from(TABLE).select('*');
  assert.equal(refused.status, 401);
});

test('given the Supabase CLI secret, the keys are the local Supabase demo keys', async (t) => {
  const { emulator } = await startBackend(t, { jwtSecret: SUPABASE_CLI_SECRET });
  assert.equal(emulator.anonKey, SUPABASE_DEMO_ANON_KEY);
  assert.equal(emulator.anonKey, jwt({ iss: 'supabase-demo', role: 'anon', exp: 1983812996 }, { secret: SUPABASE_CLI_SECRET }));
  assert.equal(
    emulator.serviceRoleKey,
    jwt({ iss: 'supabase-demo', role: 'service_role', exp: 1983812996 }, { secret: SUPABASE_CLI_SECRET }),
  );
  assert.deepEqual(claims(emulator.serviceRoleKey), { iss: 'supabase-demo', role: 'service_role', exp: 1983812996 });
  assert.match(emulator.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

test('--jwt-secret signs the printed keys; keys signed with the default secret are then refused', async (t) => {
  const secret = 'a-different-secret-for-this-test-with-32-plus-chars';
  const emulator = await startEmulator({ jwtSecret: secret });
  t.after(() => emulator.stop());
  assert.equal(emulator.anonKey, jwt({ iss: 'supabase-demo', role: 'anon', exp: 1983812996 }, { secret }));

  const accepted = await createClient(emulator.url, emulator.anonKey).from(TABLE).select('*');
  assert.deepEqual(accepted.data, []);

  const refused = await createClient(emulator.url, SUPABASE_DEMO_ANON_KEY).from(TABLE).select('*');
  assert.equal(refused.status, 401);
  assert.equal(refused.data, null);
  assert.equal(typeof refused.error?.message, 'string');
});

test('any key signed with the secret whose role is anon or service_role is accepted', async (t) => {
  const { emulator } = await startBackend(t, { jwtSecret: SUPABASE_CLI_SECRET });
  const now = Math.floor(Date.now() / 1000);
  for (const role of ['anon', 'service_role']) {
    const key = jwt({ role, iat: now, exp: now + 3600, ref: 'local' }, { secret: SUPABASE_CLI_SECRET });
    const response = await rest(emulator, `/rest/v1/${TABLE}?select=*`, { headers: { apikey: key, authorization: `Bearer ${key}` } });
    assert.equal(response.status, 200, role);
    assert.deepEqual(await response.json(), []);
  }
});

test('missing, wrong, forged, unsigned and expired keys get 401 with a JSON message', async (t) => {
  const { emulator } = await startBackend(t, { jwtSecret: SUPABASE_CLI_SECRET });
  const now = Math.floor(Date.now() / 1000);
  /** @type {[string, Record<string, string>][]} */
  const cases = [
    ['no apikey and no Authorization', {}],
    ['a key that is not a JWT', { apikey: 'not-a-key', authorization: 'Bearer not-a-key' }],
    ['a bad signature', bothHeaders(jwt({ role: 'anon', exp: now + 3600 }, { secret: 'someone-elses-secret-with-32-or-more-chars' }))],
    ['alg none', bothHeaders(jwt({ role: 'anon', exp: now + 3600 }, { alg: 'none' }))],
    ['an expired key', bothHeaders(jwt({ role: 'anon', exp: now - 60 }, { secret: SUPABASE_CLI_SECRET }))],
    ['an unknown role', bothHeaders(jwt({ role: 'postgres', exp: now + 3600 }, { secret: SUPABASE_CLI_SECRET }))],
  ];
  for (const [label, headers] of cases) {
    const response = await fetch(`${emulator.url}/rest/v1/${TABLE}?select=*`, { headers });
    assert.equal(response.status, 401, label);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/, label);
    const body = await response.json();
    assert.equal(typeof body.message, 'string', `${label}: ${JSON.stringify(body)}`);
    assert.ok(body.message.length > 0, label);
  }

  const insert = await fetch(`${emulator.url}/rest/v1/${TABLE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sneaky', message: 'no key' }),
  });
  assert.equal(insert.status, 401);
  const { count } = await createClient(emulator.url, emulator.serviceRoleKey).from(TABLE).select('*', { count: 'exact', head: true });
  assert.equal(count, 0, 'the refused insert stored nothing');
});

test('supabase-js with a wrong key gets status 401 and an error', async (t) => {
  const { emulator } = await startBackend(t);
  const result = await createClient(emulator.url, 'wrong-key').from(TABLE).select('*');
  assert.equal(result.success, false);
  assert.equal(result.status, 401);
  assert.equal(result.data, null);
  assert.equal(typeof result.error?.message, 'string');
});

test('CORS preflight allows a page on another origin to send supabase-js requests', async (t) => {
  const { emulator } = await startBackend(t);
  const origin = 'http://127.0.0.1:5173';
  const requested = ['apikey', 'authorization', 'content-type', 'content-profile', 'prefer', 'x-client-info'];
  for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
    const response = await fetch(`${emulator.url}/rest/v1/${TABLE}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': requested.join(',') },
    });
    assert.ok(response.status === 200 || response.status === 204, `preflight ${method}: status ${response.status}`);
    const allowOrigin = response.headers.get('access-control-allow-origin');
    assert.ok(allowOrigin === '*' || allowOrigin === origin, `allow-origin ${allowOrigin}`);
    const allowMethods = (response.headers.get('access-control-allow-methods') ?? '').toUpperCase();
    assert.ok(allowMethods === '*' || allowMethods.split(/\s*,\s*/).includes(method), `allow-methods ${allowMethods}`);
    // `*` does not cover Authorization, so every requested header must be listed (or mirrored).
    const allowHeaders = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    for (const header of requested) assert.ok(allowHeaders.includes(header), `allow-headers lacks ${header}: ${allowHeaders}`);
  }

  const actual = await rest(emulator, `/rest/v1/${TABLE}?select=*`, { headers: { origin, prefer: 'count=exact' } });
  assert.equal(actual.status, 200);
  const allowOrigin = actual.headers.get('access-control-allow-origin');
  assert.ok(allowOrigin === '*' || allowOrigin === origin, `allow-origin ${allowOrigin}`);
  // supabase-js reads the count from Content-Range, which a browser hides unless it is exposed.
  const exposed = (actual.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
  assert.ok(exposed.includes('content-range') || exposed.includes('*'), `expose-headers ${exposed}`);
});

/** @param {string} key */
function bothHeaders(key) {
  return { apikey: key, authorization: `Bearer ${key}` };
}
