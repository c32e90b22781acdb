// @ts-check
// The owners migration on a real PostgreSQL set up like a Supabase project, beyond the moderation table that
// parity.test.mjs runs on both backends: the objects and privileges it creates, that no API role can reach the private
// tables, that the trigger keeps every deleter's rows (the service role's, the SQL editor's) and who removed them, that
// deleting an account keeps what it removed, the changes visitors read, the clean-ups, that the owner's actions leave
// the sign limit's counts and the sign receipts alone, and that applying the migrations again keeps everything.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { actAs, createSqlAccounts } from './moderation-cases.mjs';
import { API_ROLES, asRole, attempt, startHostedProject, TABLE } from './support.mjs';

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {import('pg').Client} */
let api;
/** @type {import('pg').Client} */
let admin;
/** The project owner, as the dashboard's SQL editor connects. */
/** @type {import('pg').Client} */
let sqlEditor;
/** @type {Record<import('./moderation-cases.mjs').Account, string>} */
let accounts;

before(async () => {
  ({ postgres, api, admin } = await startHostedProject());
  sqlEditor = await postgres.connect('postgres', 'hosted');
  accounts = await createSqlAccounts(sqlEditor);
});

after(async () => {
  await postgres?.stop();
});

/**
 * Runs `body` on `client` in a transaction that is rolled back.
 * @template T
 * @param {import('pg').Client} client
 * @param {() => Promise<T>} body
 */
async function rolledBack(client, body) {
  await client.query('begin');
  try {
    return await body();
  } finally {
    await client.query('rollback');
  }
}

/**
 * Stores entries as the SQL editor does (no request), returning their ids by name.
 * @param {import('pg').Client} client
 * @param {{ name: string, created_at?: string }[]} entries
 */
async function store(client, entries) {
  /** @type {Record<string, string>} */
  const ids = {};
  for (const { name, created_at: createdAt } of entries) {
    const stored = await client.query(
      `insert into ${TABLE} (name, message, created_at) values ($1, 'a message', coalesce($2::timestamptz, now())) returning id`,
      [name, createdAt ?? null],
    );
    ids[name] = stored.rows[0].id;
  }
  return ids;
}

test('authenticated may delete, anon may not; the restrictive policy narrows deletes only', async () => {
  const privileges = await admin.query(
    `select role, has_table_privilege(role, 'public.geocache_logs', 'delete') as may_delete
       from unnest(array['anon', 'authenticated']) as role`,
  );
  assert.deepEqual(privileges.rows, [
    { role: 'anon', may_delete: false },
    { role: 'authenticated', may_delete: true },
  ]);
  const policies = await admin.query(
    `select policyname, permissive, cmd, roles::text[] as roles from pg_policies
      where tablename = 'geocache_logs' and cmd = 'DELETE' order by policyname`,
  );
  assert.deepEqual(policies.rows, [
    { policyname: 'removing entries needs a second factor', permissive: 'RESTRICTIVE', cmd: 'DELETE', roles: ['authenticated'] },
    { policyname: "the logbook's owners may remove entries", permissive: 'PERMISSIVE', cmd: 'DELETE', roles: ['authenticated'] },
  ]);
  // A signed-in reader at aal1, not an owner, still reads every entry.
  await rolledBack(api, async () => {
    await actAs(api, 'service_role', accounts);
    await store(api, [{ name: 'Ada' }]);
    await actAs(api, 'signed in', accounts);
    const read = await api.query(`select name from ${TABLE}`);
    assert.deepEqual(read.rows, [{ name: 'Ada' }]);
  });
});

test('no API role can read or write the private tables or call the private functions', async () => {
  for (const role of API_ROLES) {
    await asRole(api, role, async (client) => {
      for (const sql of [
        'select * from private.logbook_owners',
        'select * from private.removed_geocache_logs',
        "insert into private.logbook_owners (user_id) values ('6ba7b810-9dad-41d1-80b4-00c04fd430c8')",
        'select private.is_logbook_owner()',
        "select private.require_owner_at_aal2('x')",
      ]) {
        const { error } = await attempt(client, sql);
        assert.equal(error?.code, '42501', `${role}: ${sql}: ${JSON.stringify(error)}`);
      }
    });
  }
  const functions = await admin.query(
    `select p.proname, r.role, has_function_privilege(r.role, p.oid, 'execute') as may
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       cross join unnest(array['anon', 'authenticated', 'service_role']) as r(role)
      where n.nspname = 'public' and p.proname in ('removed_geocache_logs', 'restore_geocache_log')
      order by p.proname, r.role`,
  );
  assert.deepEqual(
    functions.rows.map((row) => `${row.proname} ${row.role} ${row.may}`),
    [
      'removed_geocache_logs anon false',
      'removed_geocache_logs authenticated true',
      'removed_geocache_logs service_role false',
      'restore_geocache_log anon false',
      'restore_geocache_log authenticated true',
      'restore_geocache_log service_role false',
    ],
  );
});

test('the changes are readable by every API role and writable by none', async () => {
  await rolledBack(sqlEditor, async () => {
    await store(sqlEditor, [{ name: 'Old', created_at: '2024-01-01T00:00:00Z' }]);
  });
  for (const role of API_ROLES) {
    await asRole(api, role, async (client) => {
      const read = await attempt(client, 'select seq, entry_id, change, changed_at from public.geocache_log_changes');
      assert.equal(read.error, null, role);
      for (const sql of [
        "insert into public.geocache_log_changes (entry_id, change) values (1, 'added')",
        'update public.geocache_log_changes set change = change',
        'delete from public.geocache_log_changes',
      ]) {
        const { error } = await attempt(client, sql);
        assert.equal(error?.code, '42501', `${role}: ${sql}`);
      }
    });
  }
  const published = await admin.query(
    `select tablename from pg_publication_tables where pubname = 'supabase_realtime' order by tablename`,
  );
  assert.deepEqual(published.rows, [{ tablename: 'geocache_logs' }], 'the changes are not in the publication');
});

test('every deleter\'s rows are kept: the service role\'s and the SQL editor\'s with no account, an owner\'s with it', async () => {
  // The platform's superuser switches roles as PostgREST and the dashboard do, and reads what the trigger kept.
  await rolledBack(admin, async () => {
    const ids = await store(admin, [{ name: 'By the service role' }, { name: 'By the SQL editor' }, { name: 'By the owner' }]);
    await actAs(admin, 'service_role', accounts);
    await admin.query(`delete from ${TABLE} where id = $1`, [ids['By the service role']]);
    await admin.query("reset role; select set_config('request.jwt.claims', '', true)");
    await admin.query('set local role postgres');
    await admin.query(`delete from ${TABLE} where id = $1`, [ids['By the SQL editor']]);
    await admin.query('reset role');
    await actAs(admin, 'owner at aal2', accounts);
    await admin.query(`delete from ${TABLE} where id = $1`, [ids['By the owner']]);
    await admin.query('reset role');
    const kept = await admin.query(
      `select name, message, removed_by, removed_at = now() as removed_now
         from private.removed_geocache_logs where id = any($1) order by name`,
      [Object.values(ids)],
    );
    assert.deepEqual(kept.rows, [
      { name: 'By the SQL editor', message: 'a message', removed_by: null, removed_now: true },
      { name: 'By the owner', message: 'a message', removed_by: accounts.owner, removed_now: true },
      { name: 'By the service role', message: 'a message', removed_by: null, removed_now: true },
    ]);
  });
});

test('deleting an account keeps what it removed and ends its ownership', async () => {
  await rolledBack(sqlEditor, async () => {
    const ids = await store(sqlEditor, [{ name: 'Spam' }]);
    await sqlEditor.query(
      `select set_config('request.jwt.claims', $1, true)`,
      [JSON.stringify({ role: 'authenticated', sub: accounts.owner, aal: 'aal2' })],
    );
    await sqlEditor.query(`delete from ${TABLE} where id = $1`, [ids.Spam]);
    await sqlEditor.query('delete from auth.users where id = $1', [accounts.owner]);
    const kept = await sqlEditor.query('select name, removed_by from private.removed_geocache_logs where id = $1', [ids.Spam]);
    assert.deepEqual(kept.rows, [{ name: 'Spam', removed_by: null }]);
    const owners = await sqlEditor.query('select count(*)::int as count from private.logbook_owners where user_id = $1', [accounts.owner]);
    assert.deepEqual(owners.rows, [{ count: 0 }]);
  });
});

test('changes: a visitor\'s sign records nothing, an import and a restore record added, a removal removed', async () => {
  await rolledBack(api, async () => {
    await actAs(api, 'anon', accounts);
    await api.query(`insert into ${TABLE} (name, message) values ('Visitor', 'hello')`);
    await actAs(api, 'service_role', accounts);
    const ids = await store(api, [{ name: 'Imported', created_at: '2023-03-04T05:06:07Z' }]);
    await api.query(`delete from ${TABLE} where id = $1`, [ids.Imported]);
    await actAs(api, 'owner at aal2', accounts);
    const restored = await api.query('select id, created_at from public.restore_geocache_log($1)', [ids.Imported]);
    assert.deepEqual(restored.rows, [{ id: ids.Imported, created_at: new Date('2023-03-04T05:06:07Z') }]);
    await actAs(api, 'anon', accounts);
    const changes = await api.query(
      'select entry_id, change, changed_at = now() as now from public.geocache_log_changes order by seq',
    );
    assert.deepEqual(changes.rows, [
      { entry_id: ids.Imported, change: 'added', now: true },
      { entry_id: ids.Imported, change: 'removed', now: true },
      { entry_id: ids.Imported, change: 'added', now: true },
    ]);
  });
});

test('removed entries are forgotten after 90 days and changes after 30, a batch per removal', async () => {
  await rolledBack(sqlEditor, async () => {
    await sqlEditor.query(
      `insert into private.removed_geocache_logs (id, created_at, name, message, removed_at) values
         (-1, now(), 'removed 91 days ago', 'm', now() - interval '91 days'),
         (-2, now(), 'removed 89 days ago', 'm', now() - interval '89 days')`,
    );
    await sqlEditor.query(
      `insert into public.geocache_log_changes (entry_id, change, changed_at) overriding system value values
         (-1, 'removed', now() - interval '31 days'), (-2, 'removed', now() - interval '29 days')`,
    );
    const ids = await store(sqlEditor, [{ name: 'Now' }]);
    await sqlEditor.query(`delete from ${TABLE} where id = $1`, [ids.Now]);
    const removed = await sqlEditor.query('select name from private.removed_geocache_logs order by removed_at');
    assert.deepEqual(removed.rows.map((row) => row.name), ['removed 89 days ago', 'Now']);
    const changes = await sqlEditor.query('select entry_id from public.geocache_log_changes order by changed_at');
    assert.deepEqual(changes.rows.map((row) => Number(row.entry_id)), [-2, Number(ids.Now)]);
  });
});

test('the owner\'s removals and restores leave the sign limit\'s counts and the sign receipts alone', async () => {
  await rolledBack(admin, async () => {
    const counts = async () =>
      (
        await admin.query(
          `select (select count(*) from private.sign_counts)::int as counts,
                  (select count(*) from private.sign_receipts)::int as receipts`,
        )
      ).rows[0];
    const ids = await store(admin, [{ name: 'Spam' }, { name: 'More spam' }]);
    const before = await counts();
    // As a request through Cloudflare carrying an Idempotency-Key would: the key names no sign here.
    await actAs(admin, 'owner at aal2', accounts);
    await admin.query(`select set_config('request.headers', $1, true)`, [
      JSON.stringify({ 'cf-connecting-ip': '203.0.113.9', 'idempotency-key': '123e4567-e89b-42d3-a456-426614174000' }),
    ]);
    const removed = await admin.query(`delete from ${TABLE} where id = any($1) returning name`, [[ids.Spam, ids['More spam']]]);
    assert.equal(removed.rowCount, 2);
    const restored = await admin.query('select name from public.restore_geocache_log($1)', [ids.Spam]);
    assert.deepEqual(restored.rows, [{ name: 'Spam' }]);
    await admin.query('reset role');
    assert.deepEqual(await counts(), before);
  });
});

test('applying the migrations again keeps owners, removed entries and changes, and changes no definition', async () => {
  await postgres.createDatabase('again', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('again');
  const owner = await postgres.connect('postgres', 'again');
  const snapshot = async () => ({
    rows: (
      await owner.query(
        `select (select count(*) from private.logbook_owners)::int as owners,
                (select count(*) from private.removed_geocache_logs)::int as removed,
                (select count(*) from public.geocache_log_changes)::int as changes`,
      )
    ).rows,
    functions: (
      await owner.query(
        `select p.proname, pg_get_functiondef(p.oid) as definition, p.proacl::text[] as acl
           from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname in ('public', 'private') order by p.proname`,
      )
    ).rows,
    policies: (await owner.query(`select tablename, policyname, permissive, cmd, roles::text[], qual from pg_policies order by 1, 2`)).rows,
    acl: (
      await owner.query(
        `select relname, relacl::text[] as acl from pg_class
          where relname in ('geocache_logs', 'geocache_log_changes', 'removed_geocache_logs', 'logbook_owners') order by relname`,
      )
    ).rows,
    triggers: (await owner.query(`select tgname, pg_get_triggerdef(oid) as definition from pg_trigger where not tgisinternal order by tgname`)).rows,
  });
  const user = (await owner.query(`insert into auth.users (id, email) values (gen_random_uuid(), 'owner@example.com') returning id`)).rows[0].id;
  await owner.query('insert into private.logbook_owners (user_id) select id from auth.users where email = $1', ['owner@example.com']);
  const ids = await store(owner, [{ name: 'Imported', created_at: '2024-01-01T00:00:00Z' }]);
  await owner.query(`delete from ${TABLE} where id = $1`, [ids.Imported]);
  const first = await snapshot();
  assert.deepEqual(first.rows, [{ owners: 1, removed: 1, changes: 2 }]);
  await postgres.applyMigrations('again');
  assert.deepEqual(await snapshot(), first);
  assert.ok(user);
});
