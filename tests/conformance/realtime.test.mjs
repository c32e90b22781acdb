// @ts-check
// Realtime: @supabase/supabase-js's own realtime client (vsn 2.0.0, its default) against the emulator's
// /realtime/v1/websocket. Node 20 needs --experimental-websocket for the global WebSocket (scripts/test.mjs passes it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startBackend, signInOrder, sampleEntries, TABLE } from './support.mjs';

const SERVER_SIDE = { auth: { persistSession: false, autoRefreshToken: false } };

/**
 * Resolves with the first value `check` returns that is not undefined, polling every 20 ms.
 * @template T
 * @param {() => T | undefined} check
 * @param {string} what
 * @param {number} [timeoutMs]
 * @returns {Promise<T>}
 */
async function eventually(check, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Subscribes a channel and waits for SUBSCRIBED; any other status fails.
 * @param {import('@supabase/supabase-js').RealtimeChannel} channel
 */
function subscribed(channel) {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve(channel);
      else reject(new Error(`channel ${status}: ${error?.message ?? ''}`));
    });
  });
}

/**
 * A client of its own (its own socket), so that tests never share one.
 * @param {import('./support.mjs').Backend} backend
 * @param {string} [key]
 */
function ownClient(backend, key = backend.emulator.publishableKey) {
  const client = createClient(backend.emulator.url, key, SERVER_SIDE);
  return client;
}

test('each REST insert reaches a postgres_changes subscriber once, as an INSERT with the row, in order', async (t) => {
  const backend = await startBackend(t);
  const reader = ownClient(backend);
  t.after(() => reader.removeAllChannels());
  /** @type {any[]} */
  const events = [];
  /** @type {any[]} */
  const system = [];
  const channel = reader
    .channel('logbook')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (payload) => events.push(payload))
    .on('system', {}, (payload) => system.push(payload));
  await subscribed(channel);
  await eventually(() => system.find((message) => message.message === 'Subscribed to PostgreSQL'), 'the system message');

  const rows = await signInOrder(backend.publishable, sampleEntries(12));
  await eventually(() => (events.length >= rows.length ? true : undefined), `${rows.length} INSERT events`);
  // Nothing more arrives: no duplicates.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(events.length, rows.length);
  events.forEach((event, index) => {
    assert.equal(event.eventType, 'INSERT');
    assert.equal(event.schema, 'public');
    assert.equal(event.table, TABLE);
    assert.deepEqual(event.old, {});
    assert.equal(event.errors, null);
    assert.match(event.commit_timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const row = /** @type {Record<string, unknown>} */ (rows[index]);
    assert.equal(event.new.id, row.id);
    assert.equal(event.new.name, row.name);
    assert.equal(event.new.message, row.message);
    // supabase-js turns the timestamp into its own ISO form; the instant is the row's.
    assert.equal(Date.parse(event.new.created_at), Date.parse(String(row.created_at)));
  });
});

test('a filtered subscription gets only matching rows; UPDATE and DELETE arrive with their shapes', async (t) => {
  const backend = await startBackend(t);
  const [first, second] = await signInOrder(backend.service, sampleEntries(2));
  assert.ok(first && second);
  const reader = ownClient(backend);
  t.after(() => reader.removeAllChannels());
  /** @type {any[]} */
  const events = [];
  await subscribed(
    reader
      .channel('one-entry')
      .on('postgres_changes', { event: '*', schema: 'public', table: TABLE, filter: `id=eq.${second.id}` }, (payload) =>
        events.push(payload),
      ),
  );
  const update = (/** @type {number} */ id) =>
    backend.service.from(TABLE).update({ message: `edited ${id}` }).eq('id', id);
  assert.equal((await update(first.id)).error, null);
  assert.equal((await update(second.id)).error, null);
  assert.equal((await backend.service.from(TABLE).delete().eq('id', second.id)).error, null);
  await eventually(() => (events.length >= 2 ? true : undefined), 'the UPDATE and the DELETE');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(
    events.map((event) => event.eventType),
    ['UPDATE', 'DELETE'],
  );
  assert.equal(events[0].new.message, `edited ${second.id}`);
  assert.deepEqual(events[0].old, { id: second.id });
  assert.deepEqual(events[1].new, {});
  assert.deepEqual(events[1].old, { id: second.id });
});

test('broadcast between two clients: the sender hears itself only with self, and ack resolves the send', async (t) => {
  const backend = await startBackend(t);
  const alice = ownClient(backend);
  const bob = ownClient(backend);
  t.after(() => Promise.all([alice.removeAllChannels(), bob.removeAllChannels()]));
  /** @type {any[]} */
  const heardByBob = [];
  /** @type {any[]} */
  const heardByAlice = [];
  const aliceChannel = alice
    .channel('cache-gc1', { config: { broadcast: { self: false, ack: true } } })
    .on('broadcast', { event: 'signed' }, (message) => heardByAlice.push(message));
  const bobChannel = bob
    .channel('cache-gc1', { config: { broadcast: { self: true } } })
    .on('broadcast', { event: 'signed' }, (message) => heardByBob.push(message));
  await subscribed(aliceChannel);
  await subscribed(bobChannel);

  assert.equal(await aliceChannel.send({ type: 'broadcast', event: 'signed', payload: { by: 'alice' } }), 'ok');
  await eventually(() => heardByBob.find((message) => message.payload.by === 'alice'), "bob hearing alice");
  assert.equal(await bobChannel.send({ type: 'broadcast', event: 'signed', payload: { by: 'bob' } }), 'ok');
  await eventually(() => heardByAlice.find((message) => message.payload.by === 'bob'), 'alice hearing bob');
  await eventually(() => heardByBob.find((message) => message.payload.by === 'bob'), 'bob hearing himself');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(
    heardByAlice.map((message) => message.payload.by),
    ['bob'],
    'alice (self: false) does not hear herself',
  );
  assert.deepEqual(heardByBob[0], { type: 'broadcast', event: 'signed', payload: { by: 'alice' } });
});

test('after the emulator drops the socket, the client reconnects, rejoins and gets later inserts', async (t) => {
  const backend = await startBackend(t);
  const reader = ownClient(backend);
  t.after(() => reader.removeAllChannels());
  /** @type {any[]} */
  const events = [];
  /** @type {string[]} */
  const statuses = [];
  const channel = reader
    .channel('logbook')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (payload) => events.push(payload));
  await new Promise((resolve) => {
    channel.subscribe((status) => {
      statuses.push(status);
      if (status === 'SUBSCRIBED') resolve(undefined);
    });
  });

  const dropped = await fetch(`${backend.emulator.url}/emulator/v1/realtime/sockets`, {
    method: 'DELETE',
    headers: { apikey: backend.emulator.secretKey },
  });
  assert.equal(dropped.status, 200);
  assert.deepEqual(await dropped.json(), { dropped: 1 });
  // supabase-js retries after 1 s, then rejoins the channel: SUBSCRIBED a second time.
  await eventually(
    () => (statuses.filter((status) => status === 'SUBSCRIBED').length >= 2 ? true : undefined),
    'the channel to rejoin',
  );
  const [row] = await signInOrder(backend.publishable, sampleEntries(1));
  await eventually(() => events.find((event) => event.new.id === row?.id), 'the insert after the reconnect');
  assert.equal(events.length, 1);
});

test('without a valid key the socket is refused, as the REST gateway refuses', async (t) => {
  const backend = await startBackend(t);
  const url = backend.emulator.url.replace(/^http/, 'ws');
  // fetch cannot ask for an upgrade; the key check comes first all the same.
  const refused = await fetch(`${backend.emulator.url}/realtime/v1/websocket?vsn=2.0.0`);
  assert.equal(refused.status, 401);
  assert.deepEqual((await refused.json()).message, 'No API key found in request');
  const closed = await new Promise((resolve) => {
    const socket = new WebSocket(`${url}/realtime/v1/websocket?apikey=sb_publishable_nope&vsn=2.0.0`);
    socket.addEventListener('open', () => resolve('open'));
    socket.addEventListener('error', () => resolve('error'));
  });
  assert.equal(closed, 'error');
});
