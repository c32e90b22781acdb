// @ts-check
// Row-level security as the project's migration sets it up: anon may read and insert; only the service role may
// update or delete. PostgREST answers an anon request it refuses with 42501 and status 401.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TABLE, sampleEntries, signInOrder, startBackend } from './support.mjs';

/**
 * @param {{ error: unknown, data: unknown, count: unknown, status: number, statusText: string, success: boolean }} result
 */
function assertPermissionDenied(result) {
  assert.equal(result.success, false);
  assert.equal(result.data, null);
  assert.equal(result.count, null);
  assert.equal(result.status, 401);
  assert.equal(result.statusText, 'Unauthorized');
  const error = /** @type {Record<string, unknown>} */ (result.error);
  assert.equal(error.code, '42501');
  assert.equal(error.message, 'permission denied for table geocache_logs');
  assert.deepEqual(Object.keys(error).sort(), ['code', 'details', 'hint', 'message']);
}

test('anon may not update: 42501, status 401, row unchanged', async (t) => {
  const { anon } = await startBackend(t);
  const [row] = await signInOrder(anon, sampleEntries(1));
  const id = /** @type {import('./support.mjs').Row} */ (row).id;

  assertPermissionDenied(await anon.from(TABLE).update({ message: 'defaced' }).eq('id', id));
  assertPermissionDenied(await anon.from(TABLE).update({ message: 'defaced' }).eq('id', id).select());

  const { data } = await anon.from(TABLE).select('*');
  assert.deepEqual(data, [row]);
});

test('anon may not delete: 42501, status 401, row kept', async (t) => {
  const { anon } = await startBackend(t);
  const [row] = await signInOrder(anon, sampleEntries(1));

  assertPermissionDenied(await anon.from(TABLE).delete().eq('id', /** @type {import('./support.mjs').Row} */ (row).id));
  assertPermissionDenied(await anon.from(TABLE).delete().gte('id', 0));

  const { data } = await anon.from(TABLE).select('*');
  assert.deepEqual(data, [row]);
});

test('the service role may update only the filtered rows', async (t) => {
  const { anon, service } = await startBackend(t);
  const rows = /** @type {import('./support.mjs').Row[]} */ (await signInOrder(anon, sampleEntries(2)));
  const [first, second] = /** @type {[import('./support.mjs').Row, import('./support.mjs').Row]} */ (rows);

  const minimal = await service.from(TABLE).update({ message: 'moderated' }).eq('id', first.id);
  assert.deepEqual(minimal, { success: true, error: null, data: null, count: null, status: 204, statusText: 'No Content' });

  const represented = await service.from(TABLE).update({ name: 'renamed' }).eq('id', first.id).select();
  assert.deepEqual(represented, {
    success: true,
    error: null,
    data: [{ ...first, name: 'renamed', message: 'moderated' }],
    count: null,
    status: 200,
    statusText: 'OK',
  });

  const { data } = await anon.from(TABLE).select('*').order('id');
  assert.deepEqual(data, [{ ...first, name: 'renamed', message: 'moderated' }, second]);
});

test('the service role may delete only the filtered rows', async (t) => {
  const { anon, service } = await startBackend(t);
  const [first, second, third] = /** @type {import('./support.mjs').Row[]} */ (await signInOrder(anon, sampleEntries(3)));

  const minimal = await service.from(TABLE).delete().eq('id', /** @type {import('./support.mjs').Row} */ (first).id);
  assert.deepEqual(minimal, { success: true, error: null, data: null, count: null, status: 204, statusText: 'No Content' });

  const represented = await service.from(TABLE).delete().eq('id', /** @type {import('./support.mjs').Row} */ (third).id).select();
  assert.deepEqual(represented, { success: true, error: null, data: [third], count: null, status: 200, statusText: 'OK' });

  const { data } = await anon.from(TABLE).select('*');
  assert.deepEqual(data, [second]);
});

test('the service role may read and insert too', async (t) => {
  const { service } = await startBackend(t);
  const inserted = await service.from(TABLE).insert({ name: 'admin', message: 'maintenance' }).select('name, message');
  assert.deepEqual(inserted.data, [{ name: 'admin', message: 'maintenance' }]);
  const { data, error } = await service.from(TABLE).select('name');
  assert.equal(error, null);
  assert.deepEqual(data, [{ name: 'admin' }]);
});
