// @ts-check
// Newest-first reads use the migration's index: on 100,000 rows, after ANALYZE, PostgreSQL plans
// `order by created_at desc` (the page's read, as PostgREST runs it for anon) as an Index Scan on that index,
// with no Sort.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { asRole, startSupabasePostgres, TABLE } from './support.mjs';

const ROWS = 100_000;

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {import('pg').Client} */
let api;
/** The index the migration creates besides the primary key's (found in the catalog, not assumed by name). */
let newestFirstIndex = '';

before(async () => {
  postgres = await startSupabasePostgres();
  await postgres.createDatabase('hosted', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('hosted');
  const owner = await postgres.connect('postgres', 'hosted');
  // One statement; entries a second apart, stored in signing order (oldest first) as a real logbook fills.
  await owner.query(
    `insert into ${TABLE} (created_at, name, message)
     select timestamptz '2024-01-01 00:00:00+00' + n * interval '1 second', 'visitor ' || n, 'found it, entry ' || n
       from generate_series(1, ${ROWS}) as n`,
  );
  await owner.query(`analyze ${TABLE}`);
  const indexes = await owner.query(
    `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = $1::regclass and not i.indisprimary`,
    [TABLE],
  );
  assert.equal(indexes.rows.length, 1, `one index besides the primary key: ${JSON.stringify(indexes.rows)}`);
  newestFirstIndex = indexes.rows[0].name;
  api = await postgres.connect('authenticator', 'hosted');
});

after(async () => {
  await postgres?.stop();
});

/**
 * @typedef {{ 'Node Type': string, 'Index Name'?: string, Plans?: PlanNode[] }} PlanNode
 */

/**
 * Every node of a plan tree, depth first.
 * @param {PlanNode} node
 * @returns {PlanNode[]}
 */
function nodes(node) {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

/**
 * @param {string} sql
 * @returns {Promise<PlanNode>}
 */
async function planAsAnon(sql) {
  return asRole(api, 'anon', async (client) => {
    const result = await client.query(`explain (format json) ${sql}`);
    return result.rows[0]['QUERY PLAN'][0].Plan;
  });
}

test(`the table holds ${ROWS.toLocaleString('en')} rows, all visible to anon`, async () => {
  const count = await asRole(api, 'anon', (client) => client.query(`select count(*)::int as n from ${TABLE}`));
  assert.deepEqual(count.rows, [{ n: ROWS }]);
});

/** @type {[string, string][]} */
const NEWEST_FIRST_READS = [
  ['the page\'s read (every row, newest first)', `select * from ${TABLE} order by created_at desc`],
  ['a first page of 50', `select * from ${TABLE} order by created_at desc limit 50`],
];

for (const [title, sql] of NEWEST_FIRST_READS) {
  test(`${title} is an Index Scan on the migration's index, with no Sort`, async () => {
    const plan = await planAsAnon(sql);
    const all = nodes(plan);
    const types = all.map((node) => node['Node Type']);
    assert.ok(!types.includes('Sort') && !types.includes('Incremental Sort'), `no sort: ${JSON.stringify(plan)}`);
    const scans = all.filter((node) => node['Node Type'] === 'Index Scan');
    assert.equal(scans.length, 1, `one index scan: ${JSON.stringify(plan)}`);
    assert.equal(scans[0]?.['Index Name'], newestFirstIndex);
  });
}

test('the scan really returns rows newest first', async () => {
  const rows = await asRole(api, 'anon', (client) =>
    client.query(`select name, created_at from ${TABLE} order by created_at desc limit 3`),
  );
  assert.deepEqual(
    rows.rows.map((row) => row.name),
    [`visitor ${ROWS}`, `visitor ${ROWS - 1}`, `visitor ${ROWS - 2}`],
  );
});
