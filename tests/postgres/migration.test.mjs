// @ts-check
// The migration on a real PostgreSQL set up like a Supabase project: the table it creates, what each API role
// may do (the permission table, here on a database without Supabase's default privileges too), values the server
// assigns, the protections behind the grants, stored text, and that applying it again changes nothing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { findPostgres } from '../../scripts/lib/postgres.mjs';
import { caseTitle, PERMISSION_CASES, runSqlCase, sortedRows } from './permission-cases.mjs';
import { API_ROLES, asRole, attempt, migrationFiles, startHostedProject, TABLE } from './support.mjs';

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** Connections as PostgREST's login role to a database prepared like a hosted project (default privileges on). */
/** @type {import('pg').Client} */
let api;
/** @type {import('pg').Client} */
let admin;

before(async () => {
  ({ postgres, api, admin } = await startHostedProject());
});

after(async () => {
  await postgres?.stop();
});

test('the table has the columns, identity, defaults, primary key and row-level security the issue names', async () => {
  const columns = await admin.query(
    `select column_name, data_type, is_nullable, is_identity, identity_generation, column_default
       from information_schema.columns where table_schema = 'public' and table_name = 'geocache_logs'
      order by ordinal_position`,
  );
  assert.deepEqual(columns.rows, [
    { column_name: 'id', data_type: 'bigint', is_nullable: 'NO', is_identity: 'YES', identity_generation: 'ALWAYS', column_default: null },
    { column_name: 'created_at', data_type: 'timestamp with time zone', is_nullable: 'NO', is_identity: 'NO', identity_generation: null, column_default: 'now()' },
    { column_name: 'name', data_type: 'text', is_nullable: 'NO', is_identity: 'NO', identity_generation: null, column_default: null },
    { column_name: 'message', data_type: 'text', is_nullable: 'NO', is_identity: 'NO', identity_generation: null, column_default: null },
  ]);
  const primaryKey = await admin.query(
    `select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = $1::regclass and i.indisprimary`,
    [TABLE],
  );
  assert.deepEqual(primaryKey.rows, [{ attname: 'id' }]);
  // No length limits: the product has none, so there is no check constraint at all.
  const checks = await admin.query(`select conname from pg_constraint where conrelid = $1::regclass and contype = 'c'`, [TABLE]);
  assert.deepEqual(checks.rows, []);
  const security = await admin.query(`select relrowsecurity, relforcerowsecurity from pg_class where oid = $1::regclass`, [TABLE]);
  assert.deepEqual(security.rows, [{ relrowsecurity: true, relforcerowsecurity: false }]);
  const owner = await admin.query(`select pg_get_userbyid(relowner) as owner from pg_class where oid = $1::regclass`, [TABLE]);
  assert.deepEqual(owner.rows, [{ owner: 'postgres' }], 'the migration runs as the project owner, not a superuser');
});

describe('the permission table on a database without Supabase\'s default privileges', () => {
  /** @type {import('pg').Client} */
  let bare;
  before(async () => {
    await postgres.createDatabase('bare', { supabaseDefaultPrivileges: false });
    await postgres.applyMigrations('bare');
    bare = await postgres.connect('authenticator', 'bare');
  });
  for (const permissionCase of PERMISSION_CASES) {
    test(caseTitle(permissionCase), async () => {
      const outcome = await runSqlCase(bare, permissionCase);
      assert.equal(outcome.error?.code ?? null, permissionCase.code, JSON.stringify(outcome.error));
      assert.deepEqual(outcome.rows, sortedRows(permissionCase.rows));
    });
  }
});

for (const role of API_ROLES) {
  test(`${role}: the server assigns id and created_at (transaction time), in order`, async () => {
    await asRole(api, role, async (client) => {
      const first = await client.query(`insert into ${TABLE} (name, message) values ('Ada', 'one') returning id, created_at, now() as now`);
      const second = await client.query(`insert into ${TABLE} (name, message) values ('Grace', 'two') returning id, created_at`);
      const [a, b] = [first.rows[0], second.rows[0]];
      assert.equal(typeof a.id, 'string', 'bigint arrives as a string');
      assert.ok(BigInt(b.id) > BigInt(a.id), `ids increase: ${a.id} then ${b.id}`);
      assert.ok(a.created_at instanceof Date);
      assert.equal(a.created_at.getTime(), a.now.getTime(), 'created_at defaults to now()');
      assert.ok(Math.abs(Date.now() - a.created_at.getTime()) < 60_000, `created_at ${a.created_at.toISOString()} is the server's now`);
    });
  });
}

test('id is GENERATED ALWAYS: a chosen id is refused; only OVERRIDING SYSTEM VALUE with full insert rights sets one', async () => {
  await asRole(api, 'service_role', async (client) => {
    const refused = await attempt(client, `insert into ${TABLE} (id, name, message) values (7, 'x', 'y')`);
    assert.equal(refused.error?.code, '428C9');
    // Only OVERRIDING SYSTEM VALUE (which PostgREST never sends) may set it, and only with full insert rights.
    const overridden = await attempt(client, `insert into ${TABLE} (id, name, message) overriding system value values (7, 'x', 'y') returning id`);
    assert.deepEqual(overridden.rows, [{ id: '7' }]);
  });
  await asRole(api, 'anon', async (client) => {
    const overridden = await attempt(client, `insert into ${TABLE} (id, name, message) overriding system value values (8, 'x', 'y')`);
    assert.equal(overridden.error?.code, '42501');
  });
});

test('behind the grants, row-level security still protects: a mistaken UPDATE/DELETE grant changes no row', async () => {
  await admin.query('begin');
  try {
    await admin.query(`insert into ${TABLE} (name, message) values ('Seed', 'kept')`);
    await admin.query(`grant update, delete on ${TABLE} to anon`);
    await admin.query('set local role anon');
    const updated = await admin.query(`update ${TABLE} set message = 'defaced'`);
    const deleted = await admin.query(`delete from ${TABLE}`);
    assert.equal(updated.rowCount, 0, 'no update policy: no row is visible to UPDATE');
    assert.equal(deleted.rowCount, 0, 'no delete policy: no row is visible to DELETE');
    const rows = await admin.query(`select message from ${TABLE} where name = 'Seed'`);
    assert.deepEqual(rows.rows, [{ message: 'kept' }]);
  } finally {
    await admin.query('rollback');
  }
});

for (const role of /** @type {const} */ (['anon', 'authenticated'])) {
  test(`${role} may not truncate, touch the identity sequence, or change the table`, async () => {
    await asRole(api, role, async (client) => {
      for (const sql of [
        `truncate ${TABLE}`,
        `select nextval('public.geocache_logs_id_seq')`,
        `select setval('public.geocache_logs_id_seq', 1)`,
        `alter table ${TABLE} disable row level security`,
        `drop policy "logbook entries are readable by everyone" on ${TABLE}`,
      ]) {
        const { error } = await attempt(client, sql);
        assert.equal(error?.code, '42501', `${sql}: ${JSON.stringify(error)}`);
      }
    });
  });
}

test('the login role itself has no access: only through SET ROLE to an API role', async () => {
  await api.query('begin');
  try {
    const { error } = await attempt(api, `select * from ${TABLE}`);
    assert.equal(error?.code, '42501');
  } finally {
    await api.query('rollback');
  }
});

test('hostile and huge text is stored byte for byte, with no length limit', async () => {
  const entries = [
    { name: '<script>alert(1)</script>', message: '"><img src=x onerror=alert(1)> \' ; drop table geocache_logs; --' },
    { name: 'مرحبا \u202Egnp.exe', message: 'e\u0301 \u{1F600} 𝕏 \u200B zero-width, combining, astral' },
    { name: 'Huge', message: 'x'.repeat(1024 * 1024) + '\u{1F9ED}' },
  ];
  await asRole(api, 'anon', async (client) => {
    for (const entry of entries) {
      await client.query(`insert into ${TABLE} (name, message) values ($1, $2)`, [entry.name, entry.message]);
    }
    const stored = await client.query(`select name, message, octet_length(message) as bytes from ${TABLE} order by id`);
    assert.deepEqual(
      stored.rows.map(({ name, message }) => ({ name, message })),
      entries,
    );
    assert.equal(stored.rows[2]?.bytes, 1024 * 1024 + 4);
  });
});

test('applying the migration again keeps the rows and changes no privilege, policy or index', async () => {
  /** @param {import('pg').Client} client */
  const snapshot = async (client) => ({
    acl: (await client.query(`select relacl::text[] as acl from pg_class where oid = $1::regclass`, [TABLE])).rows,
    columnAcl: (await client.query(`select attname, attacl::text[] as acl from pg_attribute where attrelid = $1::regclass and attnum > 0 order by attnum`, [TABLE])).rows,
    policies: (await client.query(`select policyname, cmd, roles::text[], qual, with_check from pg_policies where tablename = 'geocache_logs' order by policyname`)).rows,
    indexes: (await client.query(`select indexname, indexdef from pg_indexes where tablename = 'geocache_logs' order by indexname`)).rows,
  });
  await postgres.createDatabase('reapplied', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('reapplied');
  const client = await postgres.connect('supabase_admin', 'reapplied');
  await client.query(`insert into ${TABLE} (name, message) values ('Ada', 'still here')`);
  const before = await snapshot(client);
  await postgres.applyMigrations('reapplied');
  assert.deepEqual(await snapshot(client), before);
  const rows = await client.query(`select name, message from ${TABLE}`);
  assert.deepEqual(rows.rows, [{ name: 'Ada', message: 'still here' }]);
});

test('psql applies the migration files as docs/deploying.md says, twice, as the project owner', async () => {
  await postgres.createDatabase('psql', { supabaseDefaultPrivileges: true });
  const { host, port, password } = postgres.server;
  const url = `postgresql://postgres:${encodeURIComponent(password)}@${host}:${port}/psql`;
  for (let round = 1; round <= 2; round++) {
    for (const file of await migrationFiles()) {
      await promisify(execFile)(path.join(findPostgres().binDir, 'psql'), [url, '-v', 'ON_ERROR_STOP=1', '--quiet', '-f', file]);
    }
  }
  const client = await postgres.connect('authenticator', 'psql');
  const outcome = await runSqlCase(client, PERMISSION_CASES.find((entry) => entry.role === 'anon' && entry.operation === 'update') ?? assert.fail());
  assert.equal(outcome.error?.code, '42501');
});
