// @ts-check
// Reading geocache_logs through supabase-js: ordering, columns, counting, paging and filters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POSTGREST_TIMESTAMP, TABLE, rest, sampleEntries, signInOrder, startBackend } from './support.mjs';

test('select * ordered by created_at desc returns every row newest first', async (t) => {
  const { anon } = await startBackend(t);
  const inserted = await signInOrder(anon, sampleEntries(4));

  const result = await anon.from(TABLE).select('*').order('created_at', { ascending: false });

  assert.deepEqual(result, {
    success: true,
    error: null,
    data: [...inserted].reverse(),
    count: null,
    status: 200,
    statusText: 'OK',
  });
  for (const row of inserted) {
    assert.deepEqual(Object.keys(row).sort(), ['created_at', 'id', 'message', 'name']);
    assert.equal(typeof row.id, 'number');
    assert.match(row.created_at, POSTGREST_TIMESTAMP);
  }
});

test('ascending order and ordering by several columns', async (t) => {
  const { anon } = await startBackend(t);
  const inserted = await signInOrder(anon, [
    { name: 'b', message: '1' },
    { name: 'a', message: '2' },
    { name: 'b', message: '3' },
  ]);
  const [first, second, third] = /** @type {import('./support.mjs').Row[]} */ (inserted);

  const ascending = await anon.from(TABLE).select('*').order('created_at', { ascending: true });
  assert.deepEqual(ascending.data, inserted);

  const byNameThenNewest = await anon
    .from(TABLE)
    .select('*')
    .order('name', { ascending: true })
    .order('created_at', { ascending: false });
  assert.equal(byNameThenNewest.error, null);
  assert.deepEqual(byNameThenNewest.data, [second, third, first]);
});

test('an empty table reads as an empty array', async (t) => {
  const { anon } = await startBackend(t);
  const result = await anon.from(TABLE).select('*').order('created_at', { ascending: false });
  assert.deepEqual(result, { success: true, error: null, data: [], count: null, status: 200, statusText: 'OK' });
});

test('select of named columns returns only those columns (whitespace ignored)', async (t) => {
  const { anon } = await startBackend(t);
  await signInOrder(anon, [{ name: 'Ada', message: 'TFTC' }]);
  const result = await anon.from(TABLE).select('name, message');
  assert.deepEqual(result, {
    success: true,
    error: null,
    data: [{ name: 'Ada', message: 'TFTC' }],
    count: null,
    status: 200,
    statusText: 'OK',
  });
});

test('count exact with head returns the count and no rows', async (t) => {
  const { anon } = await startBackend(t);
  await signInOrder(anon, sampleEntries(3));
  const result = await anon.from(TABLE).select('*', { count: 'exact', head: true });
  assert.deepEqual(result, { success: true, error: null, data: null, count: 3, status: 200, statusText: 'OK' });
});

test('count exact without head returns rows and the total; a limited page is 206 Partial Content', async (t) => {
  const { anon } = await startBackend(t);
  const inserted = await signInOrder(anon, sampleEntries(5));

  const all = await anon.from(TABLE).select('*', { count: 'exact' }).order('id', { ascending: true });
  assert.deepEqual(all, { success: true, error: null, data: inserted, count: 5, status: 200, statusText: 'OK' });

  // PostgREST answers 206 when it knows the total and returns only part of it.
  const page = await anon.from(TABLE).select('*', { count: 'exact' }).order('id', { ascending: true }).limit(2);
  assert.deepEqual(page, {
    success: true,
    error: null,
    data: inserted.slice(0, 2),
    count: 5,
    status: 206,
    statusText: 'Partial Content',
  });
});

test('limit and range page through the rows', async (t) => {
  const { anon } = await startBackend(t);
  const inserted = await signInOrder(anon, sampleEntries(5));
  const newestFirst = [...inserted].reverse();

  const limited = await anon.from(TABLE).select('*').order('created_at', { ascending: false }).limit(2);
  assert.deepEqual(limited.data, newestFirst.slice(0, 2));

  const ranged = await anon.from(TABLE).select('*').order('created_at', { ascending: false }).range(1, 3);
  assert.equal(ranged.error, null);
  assert.equal(ranged.status, 200);
  assert.deepEqual(ranged.data, newestFirst.slice(1, 4));

  const pastTheEnd = await anon.from(TABLE).select('*').order('id').range(10, 12);
  assert.equal(pastTheEnd.error, null);
  assert.deepEqual(pastTheEnd.data, []);
});

test('limit and offset query parameters, with Content-Range', async (t) => {
  const { anon, emulator } = await startBackend(t);
  const inserted = await signInOrder(anon, sampleEntries(4));

  const page = await rest(emulator, `/rest/v1/${TABLE}?select=*&order=id.asc&limit=2&offset=1`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(page.headers.get('content-range'), '1-2/*');
  assert.deepEqual(await page.json(), inserted.slice(1, 3));

  const counted = await rest(emulator, `/rest/v1/${TABLE}?select=id&order=id.asc&limit=2`, {
    headers: { prefer: 'count=exact' },
  });
  assert.equal(counted.headers.get('content-range'), '0-1/4');
  assert.deepEqual(await counted.json(), inserted.slice(0, 2).map(({ id }) => ({ id })));

  const empty = await rest(emulator, `/rest/v1/${TABLE}?select=*&id=eq.0`);
  assert.equal(empty.headers.get('content-range'), '*/*');
  assert.deepEqual(await empty.json(), []);
});

test('eq, neq, gt, gte, lt and lte filters', async (t) => {
  const { anon } = await startBackend(t);
  const inserted = await signInOrder(anon, sampleEntries(5));
  const ids = inserted.map((row) => row.id);
  const middle = /** @type {number} */ (ids[2]);
  const idsOf = (/** @type {{ data: unknown }} */ result) =>
    /** @type {import('./support.mjs').Row[]} */ (result.data).map((row) => row.id);
  const query = () => anon.from(TABLE).select('*').order('id', { ascending: true });

  assert.deepEqual(idsOf(await query().eq('id', middle)), [middle]);
  assert.deepEqual(idsOf(await query().neq('id', middle)), ids.filter((id) => id !== middle));
  assert.deepEqual(idsOf(await query().gt('id', middle)), ids.filter((id) => id > middle));
  assert.deepEqual(idsOf(await query().gte('id', middle)), ids.filter((id) => id >= middle));
  assert.deepEqual(idsOf(await query().lt('id', middle)), ids.filter((id) => id < middle));
  assert.deepEqual(idsOf(await query().lte('id', middle)), ids.filter((id) => id <= middle));
  assert.deepEqual(idsOf(await query().eq('name', 'visitor 4')), [ids[3]]);
  assert.deepEqual(idsOf(await query().gte('id', middle).lt('id', /** @type {number} */ (ids[4]))), [middle, ids[3]]);

  const middleRow = /** @type {import('./support.mjs').Row} */ (inserted[2]);
  const newerThanMiddle = await query().gt('created_at', middleRow.created_at);
  assert.deepEqual(idsOf(newerThanMiddle), ids.slice(3));
});
