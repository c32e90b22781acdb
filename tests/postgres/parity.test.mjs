// @ts-check
// Parity: the emulator's REST API and PostgreSQL under the migration answer every case of the permission table
// the same way (status/code, error text, rows visible afterwards). The emulator's permission rules were written to
// match the migration; this proves they do, and fails on the first case where either side differs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import { caseTitle, PERMISSION_CASES, runRestCase, runSqlCase, sortedRows } from './permission-cases.mjs';
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

  // A signed-in user's access token, issued by the emulator's own /auth/v1 (role "authenticated").
  const signup = await fetch(`${emulator.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: emulator.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'walker@example.com', password: 'a long enough password' }),
  });
  const session = await signup.json();
  assert.equal(signup.status, 200, JSON.stringify(session));
  assert.equal(typeof session.access_token, 'string');
  keys = {
    anon: { apikey: emulator.anonKey, bearer: emulator.anonKey },
    authenticated: { apikey: emulator.anonKey, bearer: session.access_token },
    service_role: { apikey: emulator.serviceRoleKey, bearer: emulator.serviceRoleKey },
  };
});

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
