import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { deliverOutbox, OUTBOX_CHANNEL, OutboxDeliveryError, withOutboxLock } from './deliver';
import { openOutbox, type OutboxStore } from './outbox-store';
import type { OutboxItem } from './plain-request';
import { couldNotReachServer } from './queueable';

function item(key: string, savedAt: number): OutboxItem {
  return {
    key,
    name: `n${key}`,
    message: 'm',
    savedAt,
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:1/rest/v1/geocache_logs',
      headers: { apikey: 'sb_publishable_k', 'idempotency-key': key },
      body: JSON.stringify({ name: `n${key}`, message: 'm' }),
    },
  };
}

async function freshStore(): Promise<OutboxStore> {
  // A fresh, empty IndexedDB for each test.
  vi.stubGlobal('indexedDB', new IDBFactory());
  const store = await openOutbox();
  if (store === null) throw new Error('fake-indexeddb is installed');
  return store;
}

let store: OutboxStore;
beforeEach(async () => {
  store = await freshStore();
});

describe('the outbox store', () => {
  it('keeps one item per key, oldest first, keeping the first savedAt', async () => {
    await store.put(item('b', 20));
    await store.put(item('a', 10));
    await store.put({ ...item('b', 99), message: 'edited' });
    const all = await store.all();
    expect(all.map((one) => [one.key, one.savedAt, one.message])).toEqual([
      ['a', 10, 'm'],
      ['b', 20, 'edited'],
    ]);
    await store.remove('a');
    expect((await store.all()).map((one) => one.key)).toEqual(['b']);
  });

  it('survives reopening (another tab, the next visit, the service worker)', async () => {
    await store.put(item('a', 1));
    const again = await openOutbox();
    expect((await again?.all())?.map((one) => one.key)).toEqual(['a']);
  });
});

describe('deliverOutbox', () => {
  it('replays each stored request as built, oldest first, and removes the delivered ones', async () => {
    await store.put(item('b', 2));
    await store.put(item('a', 1));
    const fetcher = vi.fn(() => Promise.resolve(new Response('', { status: 201 })));
    const report = await deliverOutbox(store, fetcher);
    expect(report.delivered.map((one) => one.key)).toEqual(['a', 'b']);
    expect(report.waiting).toBe(0);
    expect(fetcher.mock.calls).toEqual([
      [item('a', 1).request.url, { method: 'POST', headers: item('a', 1).request.headers, body: item('a', 1).request.body }],
      [item('b', 2).request.url, { method: 'POST', headers: item('b', 2).request.headers, body: item('b', 2).request.body }],
    ]);
    expect(await store.all()).toEqual([]);
  });

  it.each([502, 503, 504, 520, 522, 524])('keeps every sign from the first one answered %i on, to send again', async (status) => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    const fetcher = vi.fn(() => Promise.resolve(new Response('', { status })));
    const report = await deliverOutbox(store, fetcher);
    expect(report).toEqual({ delivered: [], refused: [], waiting: 2 });
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect((await store.all()).map((one) => one.key)).toEqual(['a', 'b']);
  });

  it('keeps the signs after a network failure', async () => {
    await store.put(item('a', 1));
    const report = await deliverOutbox(store, () => Promise.reject(new TypeError('Failed to fetch')));
    expect(report.waiting).toBe(1);
    expect(await store.all()).toHaveLength(1);
  });

  it.each([400, 401, 409, 500])('drops a sign answered %i with an error naming the server code, and goes on', async (status) => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    const fetcher = vi
      .fn<() => Promise<Response>>()
      .mockResolvedValueOnce(new Response(JSON.stringify({ code: '42501', message: 'denied' }), { status }))
      .mockResolvedValueOnce(new Response('', { status: 201 }));
    const report = await deliverOutbox(store, fetcher);
    expect(report.delivered.map((one) => one.key)).toEqual(['b']);
    expect(report.refused).toHaveLength(1);
    const error = report.refused[0]?.error;
    expect(error).toBeInstanceOf(OutboxDeliveryError);
    expect([error?.code, error?.status, error?.message, error?.idempotencyKey]).toEqual(['42501', status, 'denied', 'a']);
    expect(await store.all()).toEqual([]);
  });

  it('does not send a sign another tab delivered meanwhile', async () => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    const fetcher = vi.fn(async () => {
      await store.remove('b');
      return new Response('', { status: 201 });
    });
    const report = await deliverOutbox(store, fetcher);
    expect(report.delivered.map((one) => one.key)).toEqual(['a']);
    expect(fetcher).toHaveBeenCalledTimes(1);
  });
});

describe('couldNotReachServer', () => {
  const failure = (fields: object) => Object.assign(new Error('x'), { outcome: 'unknown', ...fields });
  it.each([
    [{ code: 'network_error', status: 0 }, true],
    [{ code: 'timeout', status: 0 }, true],
    [{ code: 'server_error', status: 503 }, true],
    [{ code: 'server_error', status: 524 }, true],
    [{ code: 'server_error', status: 500 }, false],
    [{ code: '42501', status: 401, outcome: 'not_stored' }, false],
    [{ code: 'network_error', status: 0, outcome: 'not_stored' }, false],
  ])('%o → %s', (fields, queued) => {
    expect(couldNotReachServer(failure(fields))).toBe(queued);
  });
  it('is false for what is not a sign error', () => {
    vi.unstubAllGlobals();
    expect(couldNotReachServer(null)).toBe(false);
    expect(couldNotReachServer('offline')).toBe(false);
  });
});

describe('openOutbox', () => {
  it('is null without IndexedDB, so nothing is queued and a sign fails as before', async () => {
    vi.stubGlobal('indexedDB', undefined);
    expect(await openOutbox()).toBeNull();
    vi.unstubAllGlobals();
  });
});

describe('withOutboxLock', () => {
  it('tells the other tabs only about a round that delivered or refused a sign', async () => {
    const heard = vi.fn();
    const channel = new BroadcastChannel(OUTBOX_CHANNEL);
    channel.onmessage = heard;
    try {
      // Every tab runs a round as it opens: an empty one must not make every tab read the list again.
      await withOutboxLock(() => Promise.resolve({ delivered: [], refused: [], waiting: 0 }));
      await withOutboxLock(() => Promise.resolve({ delivered: [], refused: [], waiting: 2 }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).not.toHaveBeenCalled();
      await withOutboxLock(() => Promise.resolve({ delivered: [item('a', 1)], refused: [], waiting: 0 }));
      await vi.waitFor(() => expect(heard).toHaveBeenCalledTimes(1));
    } finally {
      channel.close();
    }
  });
});
