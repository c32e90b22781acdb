// @ts-check
// The Realtime migration on a real PostgreSQL set up like a Supabase project: `geocache_logs` is in the
// `supabase_realtime` publication, applying the migrations again changes nothing, a publication that exists already
// keeps its other tables, and one FOR ALL TABLES is left as it is.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { migrationFiles, startHostedProject } from './support.mjs';

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {import('pg').Client} */
let admin;

before(async () => {
  ({ postgres, admin } = await startHostedProject());
});

after(async () => {
  await postgres?.stop();
});

/**
 * The tables of the `supabase_realtime` publication, as `schema.table`, sorted.
 * @param {import('pg').Client} client
 */
async function publishedTables(client) {
  const result = await client.query(
    `select schemaname || '.' || tablename as name from pg_publication_tables
      where pubname = 'supabase_realtime' order by 1`,
  );
  return result.rows.map((row) => row.name);
}

/** The Realtime migration file's text. */
async function realtimeMigration() {
  const file = (await migrationFiles()).find((name) => name.endsWith('_geocache_logs_realtime.sql'));
  assert.ok(file, 'the Realtime migration file exists');
  return readFile(file, 'utf8');
}

test('on a bare PostgreSQL the migration creates the publication, owned by the project owner, with the table', async () => {
  assert.deepEqual(await publishedTables(admin), ['public.geocache_logs']);
  const publication = await admin.query(
    `select pg_get_userbyid(pubowner) as owner, puballtables, pubinsert, pubupdate, pubdelete
       from pg_publication where pubname = 'supabase_realtime'`,
  );
  assert.deepEqual(publication.rows, [
    { owner: 'postgres', puballtables: false, pubinsert: true, pubupdate: true, pubdelete: true },
  ]);
  // The default replica identity: a DELETE's old row in the log holds the primary key only.
  const identity = await admin.query(`select relreplident from pg_class where oid = 'public.geocache_logs'::regclass`);
  assert.deepEqual(identity.rows, [{ relreplident: 'd' }]);
});

test('applying the migration again changes nothing', async () => {
  const owner = await postgres.connect('postgres', 'hosted');
  await owner.query(await realtimeMigration());
  await owner.query(await realtimeMigration());
  assert.deepEqual(await publishedTables(admin), ['public.geocache_logs']);
  const count = await admin.query(`select count(*)::int as count from pg_publication where pubname = 'supabase_realtime'`);
  assert.deepEqual(count.rows, [{ count: 1 }]);
});

test('a publication that exists already keeps its other tables', async () => {
  await postgres.createDatabase('with_publication', { supabaseDefaultPrivileges: true });
  const owner = await postgres.connect('postgres', 'with_publication');
  await owner.query(`create table public.cache_notes (id bigint primary key, body text not null)`);
  await owner.query(`create publication supabase_realtime for table public.cache_notes`);
  await postgres.applyMigrations('with_publication');
  await postgres.applyMigrations('with_publication');
  assert.deepEqual(await publishedTables(owner), ['public.cache_notes', 'public.geocache_logs']);
});

test('a publication FOR ALL TABLES is left as it is', async () => {
  await postgres.createDatabase('all_tables', { supabaseDefaultPrivileges: true });
  // Only a superuser may publish all tables; adding one table to it would be an error.
  const platform = await postgres.connect('supabase_admin', 'all_tables');
  await platform.query(`create publication supabase_realtime for all tables`);
  await postgres.applyMigrations('all_tables');
  const publication = await platform.query(`select puballtables from pg_publication where pubname = 'supabase_realtime'`);
  assert.deepEqual(publication.rows, [{ puballtables: true }]);
  assert.ok((await publishedTables(platform)).includes('public.geocache_logs'));
});
