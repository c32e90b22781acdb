// @ts-check
// Realtime: @supabase/supabase-js's own realtime client (vsn 2.0.0, its default) against the emulator's
// /realtime/v1/websocket. Node 20 needs --experimental-websocket for the global WebSocket (scripts/test.mjs passes it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { jwt, startBackend, signInOrder, sampleEntries, TABLE } from './support.mjs';

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
  // One more insert marks the end: events come in commit order, so once its event is here, every event of the twelve
  // (and any duplicate of one) has arrived before it.
  const [marker] = await signInOrder(backend.publishable, [{ name: 'marker', message: 'the last insert' }]);
  await eventually(() => events.find((event) => event.new.id === marker?.id), 'the last insert');
  assert.equal(events.length, rows.length + 1);
  assert.equal(events.at(-1).new.id, marker?.id);
  events.slice(0, -1).forEach((event, index) => {
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
  // Bob sent only after hearing alice, and a channel's messages arrive in order: had alice's own come back to her,
  // it would have come before bob's.
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

test('with vsn 1.0.0 (JSON objects) a client gets inserts and broadcasts from a 2.0.0 client', async (t) => {
  const backend = await startBackend(t);
  const objects = createClient(backend.emulator.url, backend.emulator.publishableKey, { ...SERVER_SIDE, realtime: { vsn: '1.0.0' } });
  const arrays = ownClient(backend);
  t.after(() => Promise.all([objects.removeAllChannels(), arrays.removeAllChannels()]));
  assert.equal(objects.realtime.vsn, '1.0.0');
  /** @type {any[]} */
  const heard = [];
  await subscribed(
    objects
      .channel('mixed')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (payload) => heard.push(payload))
      .on('broadcast', { event: 'hello' }, (message) => heard.push(message)),
  );
  const sender = arrays.channel('mixed');
  await subscribed(sender);
  await sender.send({ type: 'broadcast', event: 'hello', payload: { from: 'arrays' } });
  await eventually(() => heard.find((message) => message.type === 'broadcast'), 'the broadcast');
  const [row] = await signInOrder(backend.publishable, sampleEntries(1));
  const insert = await eventually(() => heard.find((message) => message.eventType === 'INSERT'), 'the insert');
  assert.equal(insert.new.id, row?.id);
});

test("the user's token is sent on join and again when it is refreshed", async (t) => {
  const jwtSecret = 'a-realtime-test-secret-of-at-least-32-characters';
  const backend = await startBackend(t, { jwtSecret });
  const reader = ownClient(backend);
  t.after(() => reader.removeAllChannels());
  const exp = Math.floor(Date.now() / 1000) + 600;
  await reader.realtime.setAuth(jwt({ role: 'authenticated', sub: 'user-1', exp }, { secret: jwtSecret }));
  await subscribed(reader.channel('signed-in').on('postgres_changes', { event: '*', schema: 'public', table: TABLE }, () => {}));
  const channels = async () => {
    const response = await fetch(`${backend.emulator.url}/emulator/v1/realtime/sockets`, {
      headers: { apikey: backend.emulator.secretKey },
    });
    assert.equal(response.status, 200);
    const sockets = /** @type {{ vsn: string, channels: { topic: string, role: string, sub: string | null }[] }[]} */ (await response.json());
    return sockets.flatMap((socket) => socket.channels);
  };
  assert.deepEqual(await channels(), [{ topic: 'realtime:signed-in', role: 'authenticated', sub: 'user-1' }]);

  await reader.realtime.setAuth(jwt({ role: 'authenticated', sub: 'user-2', exp: exp + 60 }, { secret: jwtSecret }));
  // setAuth pushes `access_token` to the joined channel; the server applies it on arrival.
  const deadline = Date.now() + 5000;
  let [refreshed] = await channels();
  while (refreshed?.sub !== 'user-2' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    [refreshed] = await channels();
  }
  assert.deepEqual(refreshed, { topic: 'realtime:signed-in', role: 'authenticated', sub: 'user-2' });
});

test('httpSend reaches a subscribed client through the HTTP endpoint', async (t) => {
  const backend = await startBackend(t);
  const sender = ownClient(backend);
  const listener = ownClient(backend);
  t.after(() => Promise.all([sender.removeAllChannels(), listener.removeAllChannels()]));
  /** @type {any[]} */
  const heard = [];
  await subscribed(listener.channel('over-http').on('broadcast', { event: 'ping' }, (message) => heard.push(message)));
  // Never subscribed: httpSend does not need a socket.
  const result = await sender.channel('over-http').httpSend('ping', { n: 1 });
  assert.deepEqual(result, { success: true });
  const message = await eventually(() => heard[0], 'the broadcast');
  assert.deepEqual(message, { type: 'broadcast', event: 'ping', payload: { n: 1 } });
});

test('send on a channel that is not joined falls back to POST /realtime/v1/api/broadcast and reaches a subscribed client', async (t) => {
  const backend = await startBackend(t);
  /** @type {{ url: string, headers: Headers, body: unknown }[]} */
  const posts = [];
  /** @type {typeof fetch} */
  const recordingFetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (new URL(url).pathname === '/realtime/v1/api/broadcast') {
      posts.push({ url, headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
    }
    return fetch(input, init);
  };
  const sender = createClient(backend.emulator.url, backend.emulator.publishableKey, {
    ...SERVER_SIDE,
    global: { fetch: recordingFetch },
  });
  const listener = ownClient(backend);
  t.after(() => Promise.all([sender.removeAllChannels(), listener.removeAllChannels()]));
  /** @type {any[]} */
  const heard = [];
  await subscribed(listener.channel('fallback').on('broadcast', { event: 'wave' }, (message) => heard.push(message)));
  // realtime-js warns that this fallback will be deprecated; the warning is not what is tested.
  t.mock.method(console, 'warn', () => {});
  // Never subscribed, so the channel cannot push: supabase-js sends it over HTTP.
  const result = await sender.channel('fallback').send({ type: 'broadcast', event: 'wave', payload: { n: 1 } });
  assert.equal(result, 'ok');
  const message = await eventually(() => heard[0], 'the broadcast');
  assert.deepEqual(message, { type: 'broadcast', event: 'wave', payload: { n: 1 } });
  assert.equal(posts.length, 1);
  const [post] = posts;
  const key = backend.emulator.publishableKey;
  assert.equal(post?.url, `${backend.emulator.url}/realtime/v1/api/broadcast?apikey=${key}&vsn=2.0.0`);
  assert.equal(post?.headers.get('apikey'), key);
  assert.equal(post?.headers.get('authorization'), `Bearer ${key}`);
  assert.deepEqual(post?.body, { messages: [{ topic: 'fallback', event: 'wave', payload: { n: 1 }, private: false }] });
  // The emulator refuses an unknown key before the message goes anywhere: 'error'.
  const refused = createClient(backend.emulator.url, 'sb_publishable_unknown', SERVER_SIDE);
  t.after(() => refused.removeAllChannels());
  assert.equal(await refused.channel('fallback').send({ type: 'broadcast', event: 'wave', payload: { n: 2 } }), 'error');
  // A third message, sent once the refusal is answered, marks the end: had the refused one gone out, it would have
  // reached the listener before this one.
  assert.equal(await sender.channel('fallback').send({ type: 'broadcast', event: 'wave', payload: { n: 3 } }), 'ok');
  await eventually(() => heard.find((message) => message.payload.n === 3), 'the third broadcast');
  assert.deepEqual(
    heard.map((message) => message.payload.n),
    [1, 3],
  );
});

test('presence: a tracked state reaches another client, and leaves when its socket goes', async (t) => {
  const backend = await startBackend(t);
  const ann = ownClient(backend);
  const bea = ownClient(backend);
  t.after(() => bea.removeAllChannels());
  const annChannel = ann.channel('cache-gc1', { config: { presence: { key: 'ann' } } }).on('presence', { event: 'sync' }, () => {});
  /** @type {string[]} */
  const leaves = [];
  const beaChannel = bea
    .channel('cache-gc1', { config: { presence: { key: 'bea' } } })
    .on('presence', { event: 'leave' }, ({ key }) => leaves.push(key));
  await subscribed(annChannel);
  await subscribed(beaChannel);
  assert.equal(await annChannel.track({ at: 'GC1' }), 'ok');
  const state = await eventually(() => beaChannel.presenceState().ann, "ann's presence");
  assert.equal(/** @type {any} */ (state[0]).at, 'GC1');
  await ann.removeAllChannels();
  await eventually(() => (leaves.includes('ann') ? true : undefined), 'ann leaving');
  assert.equal(beaChannel.presenceState().ann, undefined);
});

test('past the size limits supabase-js reads a refusal, and what was refused reaches nobody', async (t) => {
  const backend = await startBackend(t);
  const ann = ownClient(backend);
  const bea = ownClient(backend);
  t.after(() => Promise.all([ann.removeAllChannels(), bea.removeAllChannels()]));
  /** @type {any[]} */
  const heard = [];
  const beaChannel = bea
    .channel('limits', { config: { presence: { key: 'bea' } } })
    .on('broadcast', { event: '*' }, (message) => heard.push(message))
    .on('presence', { event: 'sync' }, () => {});
  const annChannel = ann
    .channel('limits', { config: { broadcast: { ack: true }, presence: { key: 'ann' } } })
    .on('presence', { event: 'sync' }, () => {});
  await subscribed(beaChannel);
  await subscribed(annChannel);
  // Over the 32 KiB payload limit, under the 64 KiB message limit: refused, the socket kept.
  const big = { text: 'x'.repeat(40 * 1024) };
  assert.equal(await annChannel.send({ type: 'broadcast', event: 'big', payload: big }), 'error');
  assert.equal(await annChannel.track(big), 'error');
  await assert.rejects(ann.channel('limits').httpSend('big', big), { message: /^PayloadSizeExceeded: / });
  // A last broadcast marks the end: had a refused one gone out, it would have reached bea before this one.
  assert.equal(await annChannel.send({ type: 'broadcast', event: 'end', payload: {} }), 'ok');
  await eventually(() => heard.find((message) => message.event === 'end'), 'the last broadcast');
  assert.deepEqual(
    heard.map((message) => message.event),
    ['end'],
  );
  assert.equal(beaChannel.presenceState().ann, undefined);
});
