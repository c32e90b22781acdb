// @ts-check
// Signing the logbook through supabase-js: insert, insert + select, arrays, exact storage, refused bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POSTGREST_TIMESTAMP, TABLE, rest, startBackend } from './support.mjs';

test('insert returns no data, status 201 and no error (return=minimal)', async (t) => {
  const { anon } = await startBackend(t);
  const result = await anon.from(TABLE).insert({ name: 'Ada', message: 'TFTC' });
  assert.deepEqual(result, { success: true, error: null, data: null, count: null, status: 201, statusText: 'Created' });

  const { data } = await anon.from(TABLE).select('name, message');
  assert.deepEqual(data, [{ name: 'Ada', message: 'TFTC' }]);
});

test('insert(...).select() returns the stored row with server-assigned id and created_at', async (t) => {
  const { anon } = await startBackend(t);
  const before = Date.now();
  const result = await anon.from(TABLE).insert({ name: 'Ada', message: 'TFTC' }).select();
  const after = Date.now();

  assert.equal(result.error, null);
  assert.equal(result.status, 201);
  assert.equal(result.statusText, 'Created');
  assert.equal(result.count, null);
  const rows = /** @type {import('./support.mjs').Row[]} */ (result.data);
  assert.equal(rows.length, 1);
  const row = /** @type {import('./support.mjs').Row} */ (rows[0]);
  assert.deepEqual(Object.keys(row).sort(), ['created_at', 'id', 'message', 'name']);
  assert.ok(Number.isInteger(row.id) && row.id > 0, `id ${row.id} is a positive integer`);
  assert.match(row.created_at, POSTGREST_TIMESTAMP);
  const createdAt = Date.parse(row.created_at);
  assert.ok(createdAt >= before - 1000 && createdAt <= after + 1000, `${row.created_at} is the time of the insert`);
  assert.equal(row.name, 'Ada');
  assert.equal(row.message, 'TFTC');

  const second = await anon.from(TABLE).insert({ name: 'Bob', message: 'found' }).select('id');
  assert.deepEqual(second.data, [{ id: row.id + 1 }]);
});

test('insert of an array stores every object', async (t) => {
  const { anon } = await startBackend(t);
  const entries = [
    { name: 'one', message: 'first' },
    { name: 'two', message: 'second' },
  ];
  const result = await anon.from(TABLE).insert(entries).select('name, message');
  assert.deepEqual(result, { success: true, error: null, data: entries, count: null, status: 201, statusText: 'Created' });
  const stored = await anon.from(TABLE).select('name, message').order('id');
  assert.deepEqual(stored.data, entries);
});

test('hostile text is stored and returned byte for byte', async (t) => {
  const { anon } = await startBackend(t);
  const entries = [
    { name: '<img src=x onerror=alert(1)>', message: "<script>alert('x')</script> & \"quotes\" ' ; -- DROP TABLE geocache_logs;" },
    { name: '🧭📦 Geocacher 👩‍👩‍👧', message: 'x'.repeat(10_000) },
    { name: '\u202Eevil\u202C name', message: 'مرحبا بالعالم\nשלום\r\n\ttab \u0001 \uFEFF' },
  ];
  for (const entry of entries) {
    const { error } = await anon.from(TABLE).insert(entry);
    assert.equal(error, null);
  }
  const { data, error } = await anon.from(TABLE).select('name, message').order('id');
  assert.equal(error, null);
  assert.deepEqual(data, entries);
});

test('a null name is refused with not-null violation 23502', async (t) => {
  const { anon } = await startBackend(t);
  const result = await anon.from(TABLE).insert({ name: null, message: 'hi' });
  assert.equal(result.success, false);
  assert.equal(result.data, null);
  assert.equal(result.count, null);
  assert.equal(result.status, 400);
  assert.equal(result.statusText, 'Bad Request');
  assert.equal(result.error?.code, '23502');
  assert.equal(result.error?.message, 'null value in column "name" of relation "geocache_logs" violates not-null constraint');
  assert.deepEqual(Object.keys(result.error ?? {}).sort(), ['code', 'details', 'hint', 'message']);

  const missingMessage = await anon.from(TABLE).insert({ name: 'Ada' });
  assert.equal(missingMessage.status, 400);
  assert.equal(missingMessage.error?.code, '23502');
  assert.equal(
    missingMessage.error?.message,
    'null value in column "message" of relation "geocache_logs" violates not-null constraint',
  );

  const { count } = await anon.from(TABLE).select('*', { count: 'exact', head: true });
  assert.equal(count, 0, 'nothing was stored');
});

test('an unknown column in the body is refused with PGRST204', async (t) => {
  const { anon } = await startBackend(t);
  const result = await anon.from(TABLE).insert({ name: 'Ada', message: 'hi', mood: 'happy' });
  assert.deepEqual(result, {
    success: false,
    error: {
      code: 'PGRST204',
      details: null,
      hint: null,
      message: "Could not find the 'mood' column of 'geocache_logs' in the schema cache",
    },
    data: null,
    count: null,
    status: 400,
    statusText: 'Bad Request',
  });
});

test('a body that is not JSON is refused with PGRST102', async (t) => {
  const { emulator } = await startBackend(t);
  const response = await rest(emulator, `/rest/v1/${TABLE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name": "Ada", ',
  });
  assert.equal(response.status, 400);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = await response.json();
  assert.equal(body.code, 'PGRST102');
  assert.equal(typeof body.message, 'string');
});
