// @ts-check
// Keyset pages newest first through supabase-js's `.or(...)`, as the paged client reads the logbook:
// after the first page, only the rows strictly after the last row's (created_at, id).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TABLE, startBackend } from './support.mjs';

/**
 * postgrest-js's filter for the rows after (createdAt, id) in `created_at desc, id desc` order.
 * @param {string} createdAt  the row's created_at exactly as the server returned it
 * @param {number} id
 */
function after(createdAt, id) {
  return `created_at.lt."${createdAt}",and(created_at.eq."${createdAt}",id.lt.${id})`;
}

/** Rows that tie on created_at to the microsecond (one written with another offset), and neighbours. */
const ROWS = [
  { name: 'a', message: 'm', created_at: '2026-11-22T10:00:00.123456+00:00' },
  { name: 'b', message: 'm', created_at: '2026-11-22T10:00:00.123457+00:00' },
  { name: 'c', message: 'm', created_at: '2026-11-22T12:00:00.123456+02:00' },
  { name: 'd', message: 'm', created_at: '2026-11-22T10:00:00.123455+00:00' },
  { name: 'e', message: 'm', created_at: '2026-11-22T10:00:00.123456+00:00' },
  { name: 'f', message: 'm', created_at: '2026-11-21T10:00:00+00:00' },
];

/** @param {import('./support.mjs').Backend} backend */
async function seed({ service }) {
  const { data, error } = await service.from(TABLE).insert(ROWS).select();
  assert.equal(error, null);
  return /** @type {import('./support.mjs').Row[]} */ (data);
}

test('.or() after each row returns exactly the rows that follow it, ties on created_at included', async (t) => {
  const backend = await startBackend(t);
  await seed(backend);
  const newestFirst = () =>
    backend.anon.from(TABLE).select('*').order('created_at', { ascending: false }).order('id', { ascending: false });

  const all = await newestFirst();
  assert.equal(all.error, null);
  const rows = /** @type {import('./support.mjs').Row[]} */ (all.data);
  assert.deepEqual(
    rows.map((row) => row.name),
    ['b', 'e', 'c', 'a', 'd', 'f'],
  );
  for (const [index, row] of rows.entries()) {
    const page = await newestFirst().or(after(row.created_at, row.id));
    assert.equal(page.error, null, `after ${row.name}`);
    assert.deepEqual(page.data, rows.slice(index + 1), `after ${row.name}`);
  }
});

test('pages of two, each after the last row of the one before, read every row once', async (t) => {
  const backend = await startBackend(t);
  await seed(backend);
  /** @type {string[]} */
  const names = [];
  /** @type {import('./support.mjs').Row | undefined} */
  let last;
  for (;;) {
    let query = backend.anon.from(TABLE).select('*').order('created_at', { ascending: false }).order('id', { ascending: false });
    if (last !== undefined) query = query.or(after(last.created_at, last.id));
    const { data, error } = await query.limit(2);
    assert.equal(error, null);
    const page = /** @type {import('./support.mjs').Row[]} */ (data);
    if (page.length === 0) break;
    names.push(...page.map((row) => row.name));
    last = page[page.length - 1];
  }
  assert.deepEqual(names, ['b', 'e', 'c', 'a', 'd', 'f']);
});

test('a cursor written with another offset names the same instant', async (t) => {
  const backend = await startBackend(t);
  const inserted = await seed(backend);
  const c = inserted[2];
  assert.equal(c?.created_at, '2026-11-22T10:00:00.123456+00:00');
  const { data, error } = await backend.anon
    .from(TABLE)
    .select('name')
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .or(after('2026-11-22T11:00:00.123456+01:00', c.id));
  assert.equal(error, null);
  assert.deepEqual(data, [{ name: 'a' }, { name: 'd' }, { name: 'f' }]);
});

test('a malformed tree is a PGRST100 error naming the tree and the column', async (t) => {
  const backend = await startBackend(t);
  const { data, error, status } = await backend.anon.from(TABLE).select('*').or('id.eq.1,and(id.eq.2');
  assert.equal(data, null);
  assert.equal(status, 400);
  assert.equal(error?.code, 'PGRST100');
  assert.equal(error?.message, '"failed to parse logic tree ((id.eq.1,and(id.eq.2))" (line 1, column 24)');
  assert.equal(error?.details, 'unexpected end of input expecting "," or ")"');
  assert.equal(error?.hint, null);
});
