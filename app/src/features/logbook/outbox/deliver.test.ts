import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rustConstant, rustIntegers } from '@/testing/rust-constant';
import signingRs from '../../../../../core/src/rest/signing.rs?raw';
import { deliverOutbox, deliveryTimeoutMs, RESENDABLE_STATUSES, withOutboxLock } from './deliver';
import { OutboxDeliveryError } from './delivery-error';
import { OUTBOX_CHANNEL, THIS_CONTEXT } from './outbox-channel';
import { openOutbox, type OutboxStore } from './outbox-store';
import type { OutboxItem } from './plain-request';
import { couldNotReachServer } from './queueable';
import { noteOf, type RefusedSign } from './sign-news';

/** A deadline no test reaches but the one about deadlines. */
const NO_DEADLINE = 60_000;

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
    const report = await deliverOutbox(store, fetcher, NO_DEADLINE);
    expect(report.delivered).toEqual([noteOf(item('a', 1)), noteOf(item('b', 2))]);
    expect(report.waiting).toBe(0);
    const sent = (one: OutboxItem) => [
      one.request.url,
      { method: 'POST', headers: one.request.headers, body: one.request.body, signal: expect.any(AbortSignal) as AbortSignal },
    ];
    expect(fetcher.mock.calls).toEqual([sent(item('a', 1)), sent(item('b', 2))]);
    expect(await store.all()).toEqual([]);
  });

  it.each([502, 503, 504, 520, 522, 524])('keeps every sign from the first one answered %i on, to send again', async (status) => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    const fetcher = vi.fn(() => Promise.resolve(new Response('', { status })));
    const report = await deliverOutbox(store, fetcher, NO_DEADLINE);
    expect(report).toEqual({ delivered: [], refused: [], waiting: 2 });
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect((await store.all()).map((one) => one.key)).toEqual(['a', 'b']);
  });

  it('keeps the signs after a network failure', async () => {
    await store.put(item('a', 1));
    const report = await deliverOutbox(store, () => Promise.reject(new TypeError('Failed to fetch')), NO_DEADLINE);
    expect(report.waiting).toBe(1);
    expect(await store.all()).toHaveLength(1);
  });

  it.each([400, 401, 409, 500])('drops a sign answered %i, keeps the refusal to report, and goes on', async (status) => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    const fetcher = vi
      .fn<() => Promise<Response>>()
      .mockResolvedValueOnce(new Response(JSON.stringify({ code: '42501', message: 'denied' }), { status }))
      .mockResolvedValueOnce(new Response('', { status: 201 }));
    const report = await deliverOutbox(store, fetcher, NO_DEADLINE);
    expect(report.delivered.map((one) => one.key)).toEqual(['b']);
    const refused: RefusedSign = { ...noteOf(item('a', 1)), refusal: { status, code: '42501', message: 'denied' } };
    expect(report.refused).toEqual([refused]);
    expect(await store.all()).toEqual([]);
    // Kept for a page to report, across a reopen (the service worker refused it; the next visit says so).
    expect(await (await openOutbox())?.refusals()).toEqual([refused]);
    await store.forgetRefusal('a');
    expect(await store.refusals()).toEqual([]);
  });

  it('names a refusal by its status when the answer is not PostgREST\'s', async () => {
    await store.put(item('a', 1));
    const report = await deliverOutbox(store, () => Promise.resolve(new Response('<h1>Forbidden</h1>', { status: 403 })), NO_DEADLINE);
    expect(report.refused.map((one) => one.refusal)).toEqual([{ status: 403, code: 'http_error', message: 'HTTP 403' }]);
  });

  it('gives up on a request with no answer by the deadline, and keeps the sign waiting', async () => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    // A stalled connection: no answer, ever, unless the request is aborted.
    const aborted = vi.fn();
    const fetcher = vi.fn(
      (_url: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) =>
          init.signal?.addEventListener('abort', () => {
            aborted(init.signal?.reason);
            reject(init.signal?.reason as Error);
          }),
        ),
    );
    const started = Date.now();
    expect(await deliverOutbox(store, fetcher, 200)).toEqual({ delivered: [], refused: [], waiting: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect(aborted).toHaveBeenCalledWith(expect.objectContaining({ name: 'TimeoutError' }));
    expect((await store.all()).map((one) => one.key)).toEqual(['a', 'b']);
  });


  it('does not send a sign another tab delivered meanwhile', async () => {
    await store.put(item('a', 1));
    await store.put(item('b', 2));
    const fetcher = vi.fn(async () => {
      await store.remove('b');
      return new Response('', { status: 201 });
    });
    const report = await deliverOutbox(store, fetcher, NO_DEADLINE);
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
  it('tells the other tabs what a round delivered and refused, and nothing about a round that did neither', async () => {
    const heard = vi.fn();
    const channel = new BroadcastChannel(OUTBOX_CHANNEL);
    channel.onmessage = (event: MessageEvent<unknown>) => {
      heard(event.data);
    };
    try {
      // Every tab runs a round as it opens: an empty one must not make every tab read the list again.
      await withOutboxLock(() => Promise.resolve({ delivered: [], refused: [], waiting: 0 }));
      await withOutboxLock(() => Promise.resolve({ delivered: [], refused: [], waiting: 2 }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).not.toHaveBeenCalled();
      const refused: RefusedSign = { ...noteOf(item('b', 2)), refusal: { status: 401, code: '42501', message: 'denied' } };
      await withOutboxLock(() => Promise.resolve({ delivered: [noteOf(item('a', 1))], refused: [refused], waiting: 1 }));
      await vi.waitFor(() => expect(heard).toHaveBeenCalledTimes(1));
      // The sign's key and text, not its request (which holds the page's key).
      expect(heard).toHaveBeenCalledWith({ from: THIS_CONTEXT, delivered: [{ key: 'a', name: 'na', message: 'm' }], refused: [refused] });
    } finally {
      channel.close();
    }
  });
});

describe('the delivery', () => {
  it('resends after the same statuses as the client (core/src/rest/signing.rs), which the worker cannot ask', () => {
    expect([...RESENDABLE_STATUSES].sort()).toEqual(rustIntegers(rustConstant(signingRs, 'RESENDABLE_STATUSES')).sort());
  });

  it('waits as long as the page\'s requests: the configured timeout, else the client\'s 30 s', () => {
    expect(deliveryTimeoutMs(undefined)).toBe(30_000);
    expect(deliveryTimeoutMs(2_500)).toBe(2_500);
  });

  it('reports a refusal as the client reports its errors', () => {
    const error = new OutboxDeliveryError({ key: 'k', name: 'n', message: 'm', refusal: { status: 401, code: '42501', message: 'denied' } });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.status, error.message, error.idempotencyKey]).toEqual(['LogbookError', '42501', 401, 'denied', 'k']);
  });
});
