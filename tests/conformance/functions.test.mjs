// @ts-check
// Edge Functions through the emulator, called by @supabase/supabase-js's own functions client: the case table our
// wasm client also runs in Chromium (functions-cases.js), then what only a second backend or a session can show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { CASES, buildOptions, mismatch, normalize } from './functions-cases.js';
import { startFunctionServer, startFunctionsBackend } from '../fixtures/function-server.mjs';

/** Nothing listens on this privileged port on a test machine. */
const UNREACHABLE_URL = 'http://127.0.0.1:47';
const SERVER_SIDE = { auth: { persistSession: false, autoRefreshToken: false } };

/**
 * Whether this supabase-js still sends a publishable key as the functions' bearer when no one is signed in (today's
 * rule sends none): asked of the client itself, so the table's shared expectation applies once it is upgraded.
 */
async function sendsKeyAsBearer() {
  /** @type {string | null} */
  let authorization = null;
  /** @type {typeof fetch} */
  const capture = async (_input, init) => {
    authorization = new Headers(init?.headers).get('authorization');
    return new Response('{}', { headers: { 'content-type': 'application/json' } });
  };
  await createClient('http://127.0.0.1:47', 'sb_publishable_probe', { ...SERVER_SIDE, global: { fetch: capture } }).functions.invoke('probe');
  return authorization !== null;
}

/**
 * `expect` with `override` merged in, key by key.
 * @param {Record<string, unknown>} expect
 * @param {Record<string, unknown>} override
 * @returns {Record<string, unknown>}
 */
function merged(expect, override) {
  /** @type {Record<string, unknown>} */
  const result = { ...expect };
  for (const [key, value] of Object.entries(override)) {
    const base = result[key];
    const bothObjects = typeof value === 'object' && value !== null && typeof base === 'object' && base !== null;
    result[key] = bothObjects
      ? merged(/** @type {Record<string, unknown>} */ (base), /** @type {Record<string, unknown>} */ (value))
      : value;
  }
  return result;
}

test('supabase-js runs every case of the shared table against the emulator', async (t) => {
  const backend = await startFunctionsBackend();
  t.after(() => backend.stop());
  const { emulator } = backend;
  const keyAsBearer = await sendsKeyAsBearer();
  for (const testCase of CASES) {
    await t.test(testCase.title, async () => {
      const url = testCase.backend === 'unreachable' ? UNREACHABLE_URL : emulator.url;
      const key = testCase.key === 'anon' ? emulator.anonKey : emulator.publishableKey;
      const client = createClient(url, key, SERVER_SIDE);
      const result = await client.functions.invoke(testCase.name, buildOptions(testCase));
      const facts = await normalize(/** @type {{ data: unknown, error: unknown, response?: Response }} */ (result));
      const expect =
        keyAsBearer && testCase.expectWithKeyAsBearer ? merged(testCase.expect, testCase.expectWithKeyAsBearer) : testCase.expect;
      assert.equal(mismatch(expect, facts), null, JSON.stringify(facts));
    });
  }
});

test('a function server that is down is a relay error (5xx, x-relay-error: true)', async (t) => {
  const down = await startFunctionServer();
  await down.stop();
  const backend = await startFunctionsBackend({ functionsUrl: down.url });
  t.after(() => backend.stop());
  const client = createClient(backend.emulator.url, backend.emulator.publishableKey, SERVER_SIDE);
  const { data, error, response } = await client.functions.invoke('echo', { body: { a: 1 } });
  assert.equal(data, null);
  assert.equal(error?.name, 'FunctionsRelayError');
  assert.ok(response !== undefined && response.status >= 500, String(response?.status));
  assert.equal(response?.headers.get('x-relay-error'), 'true');
  // A missing function is still the platform's own 404, server or no server.
  const missing = await client.functions.invoke('missing');
  assert.equal(missing.error?.name, 'FunctionsHttpError');
  assert.equal(missing.response?.status, 404);
  assert.equal(missing.response?.headers.get('x-relay-error'), null);
});

test('verify_jwt: a signed-in user\'s token passes where the publishable key alone does not', async (t) => {
  const backend = await startFunctionsBackend();
  t.after(() => backend.stop());
  const client = createClient(backend.emulator.url, backend.emulator.publishableKey, SERVER_SIDE);
  const before = await client.functions.invoke('guarded');
  assert.equal(before.response?.status, 401);
  // An anonymous call to a function with verify_jwt on needs no key at all to be refused, and with it off none to pass.
  const bare = await fetch(`${backend.emulator.url}/functions/v1/guarded`, { method: 'POST' });
  assert.equal(bare.status, 401);
  assert.deepEqual(await bare.json(), { code: 'UNAUTHORIZED_NO_AUTH_HEADER', message: 'Missing authorization header' });
  const open = await fetch(`${backend.emulator.url}/functions/v1/echo`, { method: 'POST' });
  assert.equal(open.status, 200);
  const { error: signUpError } = await client.auth.signUp({ email: `fn-${Date.now()}@example.com`, password: 'correct horse battery' });
  assert.equal(signUpError, null);
  const { data: sessionData } = await client.auth.getSession();
  assert.ok(sessionData.session, 'signed up and in');
  const after = await client.functions.invoke('guarded', { body: 'signed in' });
  assert.equal(after.error, null);
  const echoed = /** @type {{ headers: Record<string, string> }} */ (after.data);
  assert.equal(echoed.headers.authorization, `Bearer ${sessionData.session.access_token}`);
});
