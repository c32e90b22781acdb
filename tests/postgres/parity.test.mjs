// @ts-check
// Parity: the emulator's REST API and PostgreSQL under the migrations answer every case of the permission table,
// of the owner's moderation table and of the sign-limit table the same way (status/code, error text, rows stored or
// visible afterwards). The emulator's rules were written to match the migrations; this proves they do, and fails on
// the first case where either side differs.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import {
  ACTORS,
  createSqlAccounts,
  emulatorTokens,
  MODERATION_CASES,
  moderationCaseTitle,
  OPERATIONS as MODERATION_OPERATIONS,
  runRestModerationCase,
  runSqlModerationCase,
} from './moderation-cases.mjs';
import { caseTitle, PERMISSION_CASES, runRestCase, runSqlCase, sortedRows } from './permission-cases.mjs';
import {
  expectedNames,
  runRestSignLimitCase,
  runSqlSignLimitCase,
  SIGN_LIMIT_CASES,
  SIGN_LIMIT_EMULATOR_ARGS,
  SIGN_LIMITS,
  signLimitCaseTitle,
  untilMinuteHasLeft,
} from './sign-limit-cases.mjs';
import { startSupabasePostgres } from './support.mjs';

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {import('pg').Client} */
let authenticator;
/** @type {import('../../scripts/lib/emulator.mjs').RunningEmulator} */
let emulator;
/** @type {import('./permission-cases.mjs').RoleKeys} */
let keys;

before(async () => {
  [postgres, emulator] = await Promise.all([startSupabasePostgres(), startEmulator({ port: 0, db: ':memory:', raiseAuthRateLimits: true })]);
  await postgres.createDatabase('parity', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('parity');
  authenticator = await postgres.connect('authenticator', 'parity');
  keys = await roleKeys(emulator);
});

/**
 * The keys of each role for an emulator: its anon and service_role keys, and a signed-in user's access token
 * issued by its own /auth/v1 (role "authenticated").
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} running
 * @returns {Promise<import('./permission-cases.mjs').RoleKeys>}
 */
async function roleKeys(running) {
  const signup = await fetch(`${running.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: running.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'walker@example.com', password: 'a long enough password' }),
  });
  const session = await signup.json();
  assert.equal(signup.status, 200, JSON.stringify(session));
  assert.equal(typeof session.access_token, 'string');
  return {
    anon: { apikey: running.anonKey, bearer: running.anonKey },
    authenticated: { apikey: running.anonKey, bearer: session.access_token },
    service_role: { apikey: running.serviceRoleKey, bearer: running.serviceRoleKey },
  };
}

after(async () => {
  await Promise.allSettled([postgres?.stop(), emulator?.stop()]);
});

test('the table covers every role and operation once', () => {
  const roles = new Set(PERMISSION_CASES.map((entry) => entry.role));
  const operations = new Set(PERMISSION_CASES.map((entry) => entry.operation));
  assert.deepEqual([...roles], ['anon', 'authenticated', 'service_role']);
  assert.equal(PERMISSION_CASES.length, roles.size * operations.size);
  assert.equal(new Set(PERMISSION_CASES.map((entry) => `${entry.role} ${entry.operation}`)).size, PERMISSION_CASES.length);
});

for (const permissionCase of PERMISSION_CASES) {
  test(caseTitle(permissionCase), async () => {
    const [rest, sql] = [await runRestCase(emulator.url, keys, permissionCase), await runSqlCase(authenticator, permissionCase)];
    const expectedRows = sortedRows(permissionCase.rows);

    assert.equal(sql.error?.code ?? null, permissionCase.code, `PostgreSQL: ${JSON.stringify(sql.error)}`);
    assert.deepEqual(sql.rows, expectedRows, 'PostgreSQL: rows visible afterwards');

    assert.equal(rest.status, permissionCase.status, `REST: ${JSON.stringify(rest.error)}`);
    assert.equal(rest.error?.code ?? null, permissionCase.code, 'REST: error code');
    assert.deepEqual(rest.rows, expectedRows, 'REST: rows visible afterwards');

    // PostgREST passes PostgreSQL's message, detail and hint through unchanged: the emulator must say the same.
    assert.deepEqual(rest.error, sql.error, 'the emulator and PostgreSQL report the same error');
  });
}

describe('the owner\'s moderation table', () => {
  /** @type {import('../../scripts/lib/emulator.mjs').RunningEmulator} */
  let served;
  /** @type {string} */
  let directory;
  /** @type {Record<import('./moderation-cases.mjs').Actor, string>} */
  let tokens;
  /** @type {Record<import('./moderation-cases.mjs').Account, string>} */
  let accounts;

  before(async () => {
    // A database file: the owners are named with `geocache-emulator owner`, while this emulator serves it.
    directory = await mkdtemp(path.join(os.tmpdir(), 'geocache-moderation-'));
    const db = path.join(directory, 'emulator.sqlite3');
    served = await startEmulator({ port: 0, db, raiseAuthRateLimits: true });
    tokens = await emulatorTokens(served, db);
    accounts = await createSqlAccounts(await postgres.connect('postgres', 'parity'));
  });

  after(async () => {
    await served?.stop();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  test('the table covers every actor and operation once', () => {
    assert.equal(MODERATION_CASES.length, Object.keys(ACTORS).length * Object.keys(MODERATION_OPERATIONS).length);
    assert.equal(new Set(MODERATION_CASES.map((entry) => `${entry.actor} ${entry.operation}`)).size, MODERATION_CASES.length);
  });

  for (const moderationCase of MODERATION_CASES) {
    test(moderationCaseTitle(moderationCase), async () => {
      const rest = await runRestModerationCase(served, tokens, moderationCase);
      const sql = await runSqlModerationCase(authenticator, accounts, moderationCase);
      const expected = { entries: moderationCase.entries, removed: moderationCase.removed, changes: moderationCase.changes };

      assert.equal(sql.error?.code ?? null, moderationCase.code, `PostgreSQL: ${JSON.stringify(sql.error)}`);
      assert.deepEqual(sql.answered, moderationCase.answered, 'PostgreSQL: rows answered');
      assert.deepEqual(sql.after, expected, 'PostgreSQL: afterwards');

      assert.equal(rest.status, moderationCase.status, `REST: ${JSON.stringify(rest.error)}`);
      assert.equal(rest.error?.code ?? null, moderationCase.code, 'REST: error code');
      assert.deepEqual(rest.answered, moderationCase.answered, 'REST: rows answered');
      assert.deepEqual(rest.after, expected, 'REST: afterwards');

      assert.deepEqual(rest.error, sql.error, 'the emulator and PostgreSQL report the same error');
    });
  }
});

test('the sign-limit table uses the migration\'s thresholds', async () => {
  // Only the migration runner may look into the private schema.
  const owner = await postgres.connect('postgres', 'parity');
  const { rows } = await owner.query(
    `select max_signs_per_request as "perRequest", max_signs_per_address_minute as "perAddress",
            max_signs_per_minute as "perMinute"
       from private.sign_limits`,
  );
  assert.deepEqual(rows, [SIGN_LIMITS]);
});

for (const signLimitCase of SIGN_LIMIT_CASES) {
  test(signLimitCaseTitle(signLimitCase), async () => {
    const expected = signLimitCase.requests.flatMap((request) => Array.from({ length: request.times }, () => request));
    const expectedStored = expectedNames(signLimitCase);
    assert.equal(expectedStored.length, signLimitCase.stored, 'the table\'s own count of stored rows');

    const sql = await runSqlSignLimitCase(authenticator, signLimitCase);
    // A fresh emulator: its counts start empty, as the rolled-back transaction's do.
    const limited = await startEmulator({ port: 0, db: ':memory:', raiseAuthRateLimits: true, extraArgs: SIGN_LIMIT_EMULATOR_ARGS });
    let rest;
    try {
      const limitedKeys = await roleKeys(limited);
      // PostgreSQL's requests all ran at one now(); the emulator's must fall into one minute of its clock too.
      await untilMinuteHasLeft(15);
      rest = await runRestSignLimitCase(limited.url, limitedKeys, signLimitCase);
    } finally {
      await limited.stop();
    }

    for (const [index, request] of expected.entries()) {
      const where = `request ${index + 1} (${request.entries} entries from ${request.from ?? 'no address'})`;
      assert.equal(sql.errors[index]?.code ?? null, request.code, `PostgreSQL, ${where}: ${JSON.stringify(sql.errors[index])}`);
      assert.equal(rest.statuses[index], request.status, `REST, ${where}: ${JSON.stringify(rest.errors[index])}`);
      assert.equal(rest.errors[index]?.code ?? null, request.code, `REST, ${where}: error code`);
      // PostgREST passes the migration's message, detail and hint through unchanged: the emulator must say the same.
      assert.deepEqual(rest.errors[index], sql.errors[index], `${where}: the emulator and PostgreSQL report the same error`);
    }
    assert.equal(sql.errors.length, expected.length);
    assert.equal(rest.errors.length, expected.length);
    assert.deepEqual(sql.stored, expectedStored, 'PostgreSQL: rows stored afterwards');
    assert.deepEqual(rest.stored, expectedStored, 'REST: rows stored afterwards');
  });
}
