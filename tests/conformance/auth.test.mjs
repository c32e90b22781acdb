// @ts-check
// The emulator's auth server (/auth/v1) as the official supabase-js 2.109 auth client sees it: sign-up, sign-in,
// refresh, sign-out, TOTP and phone MFA (codes from an authenticator computed with otpauth, SMS codes read from the
// emulator's outbox), and the errors supabase-js surfaces (error.name, error.status, error.code, error.message).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@supabase/supabase-js';
import * as OTPAuth from 'otpauth';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import { TABLE, claims } from './support.mjs';

const PASSWORD = 'correct horse battery';

/** @typedef {import('@supabase/supabase-js').SupabaseClient} SupabaseClient */
/** @typedef {import('../../scripts/lib/emulator.mjs').RunningEmulator} RunningEmulator */

/**
 * Starts an emulator for one test. `env` sets the emulator's tuning variables (GEOCACHE_EMULATOR_JWT_EXPIRY, ...):
 * the shared launcher passes no extra flags, and the child inherits this process's environment at spawn.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} [env]
 * @returns {Promise<RunningEmulator>}
 */
async function startAuthEmulator(t, env = {}) {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  let emulator;
  try {
    emulator = await startEmulator({ port: 0, db: ':memory:' });
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const running = emulator;
  t.after(() => running.stop());
  return running;
}

/**
 * A server-side style client: no storage, no timers (the session lives in memory).
 * @param {RunningEmulator} emulator
 */
function authClient(emulator) {
  return createClient(emulator.url, emulator.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
}

/**
 * The data of a successful call (supabase-js results are unions discriminated by `error`).
 * @template {{ data: unknown, error: unknown }} R
 * @param {R} result
 * @returns {NonNullable<Extract<R, { error: null }>['data']>}
 */
function ok(result) {
  if (result.error) throw result.error;
  assert.ok(result.data !== null && result.data !== undefined);
  return /** @type {NonNullable<Extract<R, { error: null }>['data']>} */ (result.data);
}

/**
 * The error of a failed call, checked against what supabase-js makes of GoTrue's answer.
 * @param {{ data: unknown, error: unknown }} result
 * @param {{ name: string, status: number, code: string | undefined, message: string }} expected
 */
function assertAuthError(result, expected) {
  const error = /** @type {import('@supabase/supabase-js').AuthError} */ (result.error);
  assert.ok(error instanceof Error, `expected an error, got data ${JSON.stringify(result.data)}`);
  assert.deepEqual(
    { name: error.name, status: error.status, code: error.code, message: error.message },
    expected,
  );
}

/**
 * Signs a new user up and returns the client holding their session.
 * @param {RunningEmulator} emulator
 * @param {string} email
 */
async function signedUp(emulator, email) {
  const client = authClient(emulator);
  const { session, user } = ok(await client.auth.signUp({ email, password: PASSWORD }));
  assert.ok(session !== null && user !== null);
  return { client, session, user };
}

/**
 * The authenticator app: the code for a base32 secret at now + offset seconds.
 * @param {string} secret
 * @param {number} [offsetSeconds]
 */
function totpCode(secret, offsetSeconds = 0) {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + offsetSeconds * 1000 });
}

/**
 * A six-digit code other than `code`.
 * @param {string} code
 */
function otherCode(code) {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

/**
 * The emulator's SMS outbox (service_role key only).
 * @param {RunningEmulator} emulator
 * @returns {Promise<{ phone: string, body: string, sent_at: string }[]>}
 */
async function smsOutbox(emulator) {
  const response = await fetch(`${emulator.url}/emulator/v1/sms`, { headers: { apikey: emulator.serviceRoleKey } });
  assert.equal(response.status, 200);
  return /** @type {{ phone: string, body: string, sent_at: string }[]} */ (await response.json());
}

/**
 * Enrolls a TOTP factor through supabase-js and returns it.
 * @param {SupabaseClient} client
 * @param {string} friendlyName
 */
async function enrollTotp(client, friendlyName) {
  const data = ok(await client.auth.mfa.enroll({ factorType: 'totp', friendlyName }));
  assert.equal(data.type, 'totp');
  return /** @type {{ id: string, type: 'totp', friendly_name: string, totp: { qr_code: string, secret: string, uri: string } }} */ (
    data
  );
}

test('sign up, sign in and refresh give sessions with GoTrue claims; a used refresh token is refused', async (t) => {
  const emulator = await startAuthEmulator(t);
  const before = Math.floor(Date.now() / 1000);
  const { client, session, user } = await signedUp(emulator, 'Walker@Example.com');
  // The session was issued between these two instants, however long the machine took.
  const after = Math.floor(Date.now() / 1000);
  assert.equal(user.email, 'walker@example.com');
  assert.equal(user.aud, 'authenticated');
  assert.equal(user.role, 'authenticated');
  assert.ok(user.email_confirmed_at);
  assert.deepEqual(user.app_metadata, { provider: 'email', providers: ['email'] });
  assert.equal(user.factors, undefined);
  assert.equal(session.token_type, 'bearer');
  assert.equal(session.expires_in, 3600);
  assert.ok(session.expires_at !== undefined && session.expires_at >= before + 3600 && session.expires_at <= after + 3600);
  assert.match(session.refresh_token, /^[a-z0-9]{12}$/);
  const signedUpClaims = claims(session.access_token);
  assert.equal(signedUpClaims.iss, `${emulator.url}/auth/v1`);
  assert.equal(signedUpClaims.sub, user.id);
  assert.equal(signedUpClaims.aud, 'authenticated');
  assert.equal(signedUpClaims.role, 'authenticated');
  assert.equal(signedUpClaims.aal, 'aal1');
  assert.deepEqual(signedUpClaims.amr, [{ method: 'password', timestamp: signedUpClaims.iat }]);

  const signIn = ok(await client.auth.signInWithPassword({ email: 'walker@example.com', password: PASSWORD }));
  assert.equal(signIn.user.id, user.id);
  assert.notEqual(claims(signIn.session.access_token).session_id, signedUpClaims.session_id);

  const refreshed = ok(await client.auth.refreshSession());
  assert.ok(refreshed.session !== null);
  assert.notEqual(refreshed.session.refresh_token, signIn.session.refresh_token);
  assert.equal(claims(refreshed.session.access_token).session_id, claims(signIn.session.access_token).session_id);
  assert.equal(ok(await client.auth.getUser()).user.id, user.id);

  assertAuthError(await client.auth.refreshSession({ refresh_token: signIn.session.refresh_token }), {
    name: 'AuthApiError',
    status: 400,
    code: 'refresh_token_already_used',
    message: 'Invalid Refresh Token: Already Used',
  });
});

test('sign-up and sign-in errors arrive with their GoTrue codes', async (t) => {
  const emulator = await startAuthEmulator(t);
  await signedUp(emulator, 'walker@example.com');
  const client = authClient(emulator);
  assertAuthError(await client.auth.signUp({ email: 'walker@example.com', password: 'another password' }), {
    name: 'AuthApiError',
    status: 422,
    code: 'user_already_exists',
    message: 'User already registered',
  });
  const weak = await client.auth.signUp({ email: 'weak@example.com', password: '12345' });
  assertAuthError(weak, {
    name: 'AuthWeakPasswordError',
    status: 422,
    code: 'weak_password',
    message: 'Password should be at least 6 characters.',
  });
  assert.deepEqual(/** @type {import('@supabase/supabase-js').AuthWeakPasswordError} */ (weak.error).reasons, ['length']);
  assertAuthError(await client.auth.signInWithPassword({ email: 'walker@example.com', password: 'wrong password' }), {
    name: 'AuthApiError',
    status: 400,
    code: 'invalid_credentials',
    message: 'Invalid login credentials',
  });
  assertAuthError(await client.auth.refreshSession({ refresh_token: 'abcdefghijkl' }), {
    name: 'AuthApiError',
    status: 400,
    code: 'refresh_token_not_found',
    message: 'Invalid Refresh Token: Refresh Token Not Found',
  });
});

test('TOTP: enroll, challenge, verify to aal2, list factors, unenroll', async (t) => {
  const emulator = await startAuthEmulator(t);
  const { client, user } = await signedUp(emulator, 'walker@example.com');
  const host = new URL(emulator.url).host;

  const factor = await enrollTotp(client, 'Phone app');
  assert.equal(factor.friendly_name, 'Phone app');
  assert.match(factor.totp.secret, /^[A-Z2-7]{32}$/);
  assert.equal(
    factor.totp.uri,
    `otpauth://totp/${host}:walker@example.com?algorithm=SHA1&digits=6&issuer=${host}&period=30&secret=${factor.totp.secret}`,
  );
  assert.ok(factor.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<?xml'), factor.totp.qr_code.slice(0, 60));
  assert.ok(factor.totp.qr_code.includes('<svg'));
  // The data URL auth-js built, as a browser reads it (fetch's data: URL processor drops a fragment): the whole SVG.
  assert.ok(!factor.totp.qr_code.includes('#'), 'a # would end the URL there');
  const image = await fetch(factor.totp.qr_code);
  assert.equal(image.headers.get('content-type'), 'image/svg+xml');
  assert.equal(await image.text(), factor.totp.qr_code.slice('data:image/svg+xml;utf-8,'.length));
  // The authenticator app reads the same secret from the URI.
  const parsed = OTPAuth.URI.parse(factor.totp.uri);
  assert.ok(parsed instanceof OTPAuth.TOTP);
  assert.equal(parsed.secret.base32, factor.totp.secret);

  const before = ok(await client.auth.mfa.getAuthenticatorAssuranceLevel());
  assert.deepEqual(before, {
    currentLevel: 'aal1',
    nextLevel: 'aal1',
    currentAuthenticationMethods: claims(ok(await client.auth.getSession()).session?.access_token ?? '').amr,
  });
  const unverified = ok(await client.auth.mfa.listFactors());
  assert.deepEqual(unverified.all.map((f) => [f.id, f.status, f.factor_type]), [[factor.id, 'unverified', 'totp']]);
  assert.deepEqual(unverified.totp, []);

  const challenged = Math.floor(Date.now() / 1000);
  const challenge = ok(await client.auth.mfa.challenge({ factorId: factor.id }));
  assert.equal(challenge.type, 'totp');
  // Made between these two instants, however long the machine took: it lives five minutes.
  const answered = Math.floor(Date.now() / 1000);
  assert.ok(challenge.expires_at >= challenged + 300 && challenge.expires_at <= answered + 300, `${challenge.expires_at}`);

  /** @type {string[]} */
  const events = [];
  client.auth.onAuthStateChange((event) => void events.push(event));
  const verified = ok(
    await client.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.id, code: totpCode(factor.totp.secret) }),
  );
  assert.equal(verified.user.id, user.id);
  assert.ok(events.includes('MFA_CHALLENGE_VERIFIED'), events.join());
  const aal2Claims = claims(verified.access_token);
  assert.equal(aal2Claims.aal, 'aal2');
  const methods = /** @type {{ method: string }[]} */ (aal2Claims.amr).map((entry) => entry.method);
  assert.deepEqual(methods, ['totp', 'password']);

  const level = ok(await client.auth.mfa.getAuthenticatorAssuranceLevel());
  assert.equal(level.currentLevel, 'aal2');
  assert.equal(level.nextLevel, 'aal2');
  assert.deepEqual(level.currentAuthenticationMethods, aal2Claims.amr);

  const listed = ok(await client.auth.mfa.listFactors());
  assert.deepEqual(listed.totp.map((f) => [f.id, f.status, f.friendly_name]), [[factor.id, 'verified', 'Phone app']]);
  assert.deepEqual(listed.all.map((f) => f.id), [factor.id]);
  assert.deepEqual(listed.phone, []);

  // The session stays aal2 across a refresh.
  const refreshed = ok(await client.auth.refreshSession());
  assert.equal(claims(refreshed.session?.access_token ?? '').aal, 'aal2');

  assert.deepEqual(ok(await client.auth.mfa.unenroll({ factorId: factor.id })), { id: factor.id });
  assert.deepEqual(ok(await client.auth.mfa.listFactors()).all, []);
});

test('a phone factor is verified with the code from the SMS outbox', async (t) => {
  const emulator = await startAuthEmulator(t);
  const { client } = await signedUp(emulator, 'walker@example.com');
  const enrolled = ok(await client.auth.mfa.enroll({ factorType: 'phone', phone: '+15551234567', friendlyName: 'Mobile' }));
  assert.equal(enrolled.type, 'phone');
  assert.equal(/** @type {{ phone: string }} */ (enrolled).phone, '+15551234567');

  const challenge = ok(await client.auth.mfa.challenge({ factorId: enrolled.id, channel: 'sms' }));
  assert.equal(challenge.type, 'phone');
  const outbox = await smsOutbox(emulator);
  assert.equal(outbox.length, 1);
  const [sms] = outbox;
  assert.ok(sms !== undefined);
  assert.equal(sms.phone, '+15551234567');
  const code = /^Your code is (\d{6})$/.exec(sms.body)?.[1];
  assert.ok(code !== undefined, sms.body);
  assert.ok(Math.abs(Date.parse(sms.sent_at) - Date.now()) < 60_000, sms.sent_at);

  assertAuthError(await client.auth.mfa.verify({ factorId: enrolled.id, challengeId: challenge.id, code: otherCode(code) }), {
    name: 'AuthApiError',
    status: 422,
    code: 'mfa_verification_failed',
    message: 'Invalid MFA Phone code entered',
  });
  const verified = ok(await client.auth.mfa.verify({ factorId: enrolled.id, challengeId: challenge.id, code }));
  assert.equal(claims(verified.access_token).aal, 'aal2');
  assert.equal(/** @type {{ method: string }[]} */ (claims(verified.access_token).amr)[0]?.method, 'mfa/phone');
  const listed = ok(await client.auth.mfa.listFactors());
  // auth-js's Factor type has no `phone`, but GoTrue's factor JSON carries the number's digits.
  const phones = listed.phone.map((f) => [f.id, /** @type {{ phone?: string }} */ (f).phone]);
  assert.deepEqual(phones, [[enrolled.id, '15551234567']]);
});

test('a wrong TOTP code and a replayed challenge are refused', async (t) => {
  const emulator = await startAuthEmulator(t);
  const { client } = await signedUp(emulator, 'walker@example.com');
  const factor = await enrollTotp(client, 'app');
  const challenge = ok(await client.auth.mfa.challenge({ factorId: factor.id }));
  const code = totpCode(factor.totp.secret);
  // Three periods away is outside the one-step window even if a period boundary passes meanwhile.
  let wrong = totpCode(factor.totp.secret, 90);
  if ([-30, 0, 30].some((offset) => totpCode(factor.totp.secret, offset) === wrong)) wrong = otherCode(code);
  for (const attempt of [wrong, '12345', 'abcdef']) {
    assertAuthError(await client.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.id, code: attempt }), {
      name: 'AuthApiError',
      status: 422,
      code: 'mfa_verification_failed',
      message: 'Invalid TOTP code entered',
    });
  }
  // A wrong code does not use the challenge up; the right one does.
  ok(await client.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.id, code }));
  assertAuthError(await client.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.id, code }), {
    name: 'AuthApiError',
    status: 422,
    code: 'mfa_ip_address_mismatch',
    message: 'Challenge and verify IP addresses mismatch.',
  });
  assertAuthError(
    await client.auth.mfa.verify({ factorId: factor.id, challengeId: '6ba7b810-9dad-41d1-80b4-00c04fd430c8', code }),
    {
      name: 'AuthApiError',
      status: 422,
      code: 'mfa_factor_not_found',
      message: 'MFA factor with the provided challenge ID not found',
    },
  );
  assertAuthError(await client.auth.mfa.challenge({ factorId: '6ba7b810-9dad-41d1-80b4-00c04fd430c8' }), {
    name: 'AuthApiError',
    status: 404,
    code: 'mfa_factor_not_found',
    message: 'Factor not found',
  });
});

test('an expired challenge is refused (challenge lifetime shortened to 1 s)', async (t) => {
  const emulator = await startAuthEmulator(t, { GEOCACHE_EMULATOR_MFA_CHALLENGE_EXPIRY: '1' });
  const { client } = await signedUp(emulator, 'walker@example.com');
  const factor = await enrollTotp(client, 'app');
  const challenge = ok(await client.auth.mfa.challenge({ factorId: factor.id }));
  assert.ok(challenge.expires_at <= Math.floor(Date.now() / 1000) + 1);
  await sleep(2100);
  assertAuthError(
    await client.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.id, code: totpCode(factor.totp.secret) }),
    {
      name: 'AuthApiError',
      status: 422,
      code: 'mfa_challenge_expired',
      message: `MFA challenge ${challenge.id} has expired, verify against another challenge or create a new challenge.`,
    },
  );
  // challengeAndVerify starts over with a fresh challenge.
  const verified = ok(await client.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totpCode(factor.totp.secret) }));
  assert.equal(claims(verified.access_token).aal, 'aal2');
});

test('an access token expires after the configured lifetime and a refresh renews it', async (t) => {
  const emulator = await startAuthEmulator(t, { GEOCACHE_EMULATOR_JWT_EXPIRY: '2' });
  const { client, session } = await signedUp(emulator, 'walker@example.com');
  assert.equal(session.expires_in, 2);
  await sleep(2100);
  const expired = await client.auth.getUser(session.access_token);
  assert.equal(expired.error?.name, 'AuthApiError');
  assert.equal(expired.error?.status, 403);
  assert.equal(expired.error?.code, 'bad_jwt');
  const renewed = ok(await client.auth.refreshSession());
  assert.ok(renewed.session !== null);
  assert.equal(ok(await client.auth.getUser(renewed.session.access_token)).user.email, 'walker@example.com');
});

test('signing out ends the session; REST calls in between run as the signed-in user', async (t) => {
  const emulator = await startAuthEmulator(t);
  const { client, session } = await signedUp(emulator, 'walker@example.com');
  // supabase-js sends the session's token to PostgREST: the request runs as `authenticated`, so a refused update
  // is 403 (anon would get 401).
  const inserted = await client.from(TABLE).insert({ name: 'walker', message: 'signed in' });
  assert.equal(inserted.status, 201);
  const update = await client.from(TABLE).update({ message: 'edited' }).gte('id', 0);
  assert.equal(update.status, 403);
  assert.equal(update.error?.code, '42501');

  assert.equal((await client.auth.signOut()).error, null);
  assert.equal(ok(await client.auth.getSession()).session, null);
  const after = await authClient(emulator).auth.getUser(session.access_token);
  assert.equal(after.error?.name, 'AuthSessionMissingError');
  assertAuthError(await authClient(emulator).auth.refreshSession({ refresh_token: session.refresh_token }), {
    name: 'AuthApiError',
    status: 400,
    code: 'refresh_token_not_found',
    message: 'Invalid Refresh Token: Refresh Token Not Found',
  });
});
