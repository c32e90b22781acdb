// @ts-check
// The owner's side through the official @supabase/supabase-js, as the owner's page and the visitors' pages call it:
// an owner named with `geocache-emulator owner add` signs in, passes a TOTP second factor, removes an entry with
// `.from(...).delete().eq('id', id).select()`, pages the removed entries with `.rpc('removed_geocache_logs')` and its
// order/limit/or filters, restores one with `.rpc('restore_geocache_log', { entry_id })`; others remove nothing, and
// anon reads the changes. The same contract on PostgreSQL is the moderation table in tests/postgres.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import * as OTPAuth from 'otpauth';
import { ownerCommand, startEmulator } from '../../scripts/lib/emulator.mjs';
import { TABLE } from './support.mjs';

const PASSWORD = 'a long enough password';
const SERVER_SIDE = { auth: { persistSession: false, autoRefreshToken: false } };

/**
 * An emulator serving a database file in a directory of its own, removed with it.
 * @param {import('node:test').TestContext} t
 */
async function servedFile(t) {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'geocache-owner-'));
  const db = path.join(directory, 'emulator.sqlite3');
  const emulator = await startEmulator({ port: 0, db, raiseAuthRateLimits: true });
  t.after(async () => {
    await emulator.stop();
    await rm(directory, { recursive: true, force: true });
  });
  return { emulator, db };
}

/**
 * A signed-in client of `email`, at aal2 when `secondFactor`: a TOTP factor enrolled and verified with supabase-js.
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {string} email
 * @param {{ signUp?: boolean, secondFactor?: boolean }} options
 */
async function signedIn(emulator, email, { signUp = false, secondFactor = false }) {
  const client = createClient(emulator.url, emulator.anonKey, SERVER_SIDE);
  const signed = signUp
    ? await client.auth.signUp({ email, password: PASSWORD })
    : await client.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(signed.error, null);
  if (secondFactor) {
    const enrolled = await client.auth.mfa.enroll({ factorType: 'totp' });
    assert.equal(enrolled.error, null);
    const factor = /** @type {{ id: string, totp: { secret: string } }} */ (enrolled.data);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.totp.secret), digits: 6, period: 30 });
    const verified = await client.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totp.generate() });
    assert.equal(verified.error, null);
  }
  return client;
}

test('an owner at aal2 removes, pages and restores entries through supabase-js; others remove nothing', async (t) => {
  const { emulator, db } = await servedFile(t);
  const added = await ownerCommand(['add', '--db', db, 'owner@example.com'], { input: `${PASSWORD}\n` });
  assert.equal(added.code, 0, added.stderr);
  const service = createClient(emulator.url, emulator.serviceRoleKey, SERVER_SIDE);
  const stored = await service
    .from(TABLE)
    .insert([1, 2, 3].map((n) => ({ name: `spammer ${n}`, message: 'buy now', created_at: `2024-05-0${n}T12:00:00+00:00` })))
    .select();
  assert.equal(stored.error, null);
  const rows = /** @type {{ id: number, created_at: string, name: string, message: string }[]} */ (stored.data);
  const first = rows[0] ?? assert.fail('the service role stored no entry');
  const second = rows[1] ?? assert.fail('the service role stored one entry, not two');

  // Not an owner, or an owner without the second factor: PostgREST's answer for a filter that matched nothing.
  const walker = await signedIn(emulator, 'walker@example.com', { signUp: true });
  const ownerAal1 = await signedIn(emulator, 'owner@example.com', {});
  for (const client of [walker, ownerAal1]) {
    const represented = await client.from(TABLE).delete().eq('id', first.id).select();
    assert.deepEqual([represented.error, represented.data, represented.status], [null, [], 200]);
    const minimal = await client.from(TABLE).delete().eq('id', first.id);
    assert.deepEqual([minimal.error, minimal.data, minimal.status], [null, null, 204]);
    const listed = await client.rpc('removed_geocache_logs');
    assert.equal(listed.status, 403);
    assert.equal(listed.error?.code, '42501');
    assert.equal(listed.error?.message, "Only the logbook's owner, signed in with a second factor, may list removed entries.");
  }

  const owner = await signedIn(emulator, 'owner@example.com', { secondFactor: true });
  for (const row of rows) {
    const removed = await owner.from(TABLE).delete().eq('id', row.id).select();
    assert.deepEqual([removed.error, removed.data, removed.status], [null, [row], 200]);
  }
  const left = await service.from(TABLE).select('id');
  assert.deepEqual(left.data, []);

  // The owner's page pages the removed entries newest-removed first, two at a time, by keyset.
  /** @type {number[]} */
  const paged = [];
  /** @type {{ removed_at: string, id: number } | undefined} */
  let last;
  for (;;) {
    let page = owner.rpc('removed_geocache_logs').select('id,removed_at,name').order('removed_at', { ascending: false }).order('id', { ascending: false }).limit(2);
    if (last !== undefined) {
      page = page.or(`removed_at.lt."${last.removed_at}",and(removed_at.eq."${last.removed_at}",id.lt.${last.id})`);
    }
    const { data, error } = await page;
    assert.equal(error, null);
    const entries = /** @type {{ id: number, removed_at: string }[]} */ (data);
    if (entries.length === 0) break;
    paged.push(...entries.map((entry) => entry.id));
    last = entries[entries.length - 1];
  }
  assert.deepEqual(paged, rows.map((row) => row.id).reverse());

  const restored = await owner.rpc('restore_geocache_log', { entry_id: second.id });
  assert.deepEqual([restored.error, restored.data, restored.status], [null, [second], 200]);
  const again = await owner.rpc('restore_geocache_log', { entry_id: second.id });
  assert.equal(again.status, 500);
  assert.deepEqual(again.error, { code: 'P0002', details: null, hint: null, message: `Entry ${second.id} is not a removed entry.` });
  const back = await service.from(TABLE).select('*');
  assert.deepEqual(back.data, [second]);

  // What visitors' devices read: ids and kinds of change, by keyset on seq.
  const anon = createClient(emulator.url, emulator.anonKey, SERVER_SIDE);
  const changes = await anon.from('geocache_log_changes').select('seq,entry_id,change').gt('seq', 0).order('seq', { ascending: true }).limit(100);
  assert.equal(changes.error, null);
  assert.deepEqual(
    /** @type {{ entry_id: number, change: string }[]} */ (changes.data).map((change) => [change.entry_id, change.change]),
    [
      ...rows.map((row) => [row.id, 'added']),
      ...rows.map((row) => [row.id, 'removed']),
      [second.id, 'added'],
    ],
  );
  const newest = await anon.from('geocache_log_changes').select('seq').order('seq', { ascending: false }).limit(1);
  assert.deepEqual(newest.data, [{ seq: 7 }]);
});

test('anon: removing, listing and restoring are refused with 401; an unknown function is PostgREST\'s PGRST202', async (t) => {
  const { emulator } = await servedFile(t);
  const anon = createClient(emulator.url, emulator.anonKey, SERVER_SIDE);
  const removed = await anon.from(TABLE).delete().eq('id', 1);
  assert.deepEqual([removed.status, removed.error?.code], [401, '42501']);
  for (const [fn, args] of /** @type {const} */ ([['removed_geocache_logs', {}], ['restore_geocache_log', { entry_id: 1 }]])) {
    const called = await anon.rpc(fn, args);
    assert.equal(called.status, 401, fn);
    assert.deepEqual(called.error, { code: '42501', details: null, hint: null, message: `permission denied for function ${fn}` });
  }
  const unknown = await anon.rpc('remove_everything');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.error?.code, 'PGRST202');
  assert.equal(unknown.error?.message, 'Could not find the function public.remove_everything without parameters in the schema cache');
});
