import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { openDB } from 'idb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COPY_DB, HEAD_ENTRIES, HEAD_KEY, REST_KEY, WHOLE_KEY } from './copy-database';
import { keepCopy, openDeviceCopy, type DeviceCopy } from './copy-store';
import { readFirstCards } from './first-cards';
import type { KeptEntry } from '../types';

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
  localStorage.clear();
});
afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

/** `count` entries, newest first. */
function entries(count: number, from = 0): KeptEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    id: from + count - index,
    created_at: new Date(Date.UTC(2024, 4, 1) + (from + count - index) * 60_000).toISOString(),
    name: `n${from + count - index}`,
    message: 'm',
  }));
}

/** The copy's records as stored, by key. */
async function records(): Promise<Record<string, unknown>> {
  const db = await openDB(COPY_DB);
  const keys = (await db.getAllKeys('copy')) as string[];
  const values = await db.getAll('copy');
  db.close();
  return Object.fromEntries(keys.map((key, index) => [key, values[index]]));
}

/** Writes the copy as a page of the older layout does: the whole copy in one record. */
async function keepAsOlderLayout(kept: KeptEntry[], times: { updatedAt: number; reconciledAt: number }): Promise<void> {
  const db = await openDB(COPY_DB, 2, {
    upgrade(database) {
      database.createObjectStore('copy');
    },
  });
  await db.put('copy', { entries: kept, ...times }, WHOLE_KEY);
  db.close();
}

describe('the device copy', () => {
  it('is null without IndexedDB: the page keeps memory only', async () => {
    vi.stubGlobal('indexedDB', undefined);
    expect(await openDeviceCopy()).toBeNull();
  });

  it('is empty until a whole read is kept, then gives it back newest first with its time', async () => {
    const copy = await openDeviceCopy();
    expect(await copy?.read()).toBeNull();
    await copy?.replace(
      [
        { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'a', message: 'm' },
        { id: 2, created_at: '2024-05-01T11:00:00+00:00', name: 'b', message: 'm' },
      ],
      { updatedAt: 1234, reconciledAt: 1000 },
    );
    const again = await openDeviceCopy();
    const kept = await again?.read();
    expect(kept?.updatedAt).toBe(1234);
    expect(kept?.reconciledAt).toBe(1000);
    expect(kept?.entries.map((entry) => entry.id)).toEqual([2, 1]);
    // A later whole read replaces it: an entry the owner removed goes away.
    await again?.replace([{ id: 2, created_at: '2024-05-01T11:00:00+00:00', name: 'b', message: 'm' }], { updatedAt: 5678, reconciledAt: 5678 });
    const reconciled = await again?.read();
    expect(reconciled?.entries.map((entry) => entry.id)).toEqual([2]);
    expect(reconciled?.reconciledAt).toBe(5678);
  });

  it('is kept only where the device can: without IndexedDB or with a full quota the page keeps memory only', async () => {
    const entry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'a', message: 'm' };
    const times = { updatedAt: 1, reconciledAt: 1 };
    expect(await keepCopy(Promise.resolve(null), [entry], times)).toBe(false);
    const full: DeviceCopy = {
      read: () => Promise.resolve(null),
      replace: () => Promise.reject(new DOMException('quota exceeded', 'QuotaExceededError')),
    };
    expect(await keepCopy(Promise.resolve(full), [entry], times)).toBe(false);
    expect(await keepCopy(Promise.reject(new Error('blocked')), [entry], times)).toBe(false);
    expect(await keepCopy(openDeviceCopy(), [entry], times)).toBe(true);
  });
  it('drops a copy kept a record per entry (the first version) and keeps the next whole read', async () => {
    const old = await openDB('geocache-logbook-copy', 1, {
      upgrade(database) {
        database.createObjectStore('entries', { keyPath: 'id' });
        database.createObjectStore('meta');
      },
    });
    await old.put('entries', { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'a', message: 'm' });
    await old.put('meta', { updatedAt: 1 }, 'state');
    old.close();
    const copy = await openDeviceCopy();
    expect(await copy?.read()).toBeNull();
    await copy?.replace([{ id: 2, created_at: '2024-05-01T11:00:00+00:00', name: 'b', message: 'm' }], { updatedAt: 2, reconciledAt: 2 });
    expect((await copy?.read())?.entries.map((entry) => entry.id)).toEqual([2]);
  });

  it('keeps each id once, newest first, whatever order it is given', async () => {
    const copy = await openDeviceCopy();
    const at = (hour: number) => `2024-05-01T${String(hour).padStart(2, '0')}:00:00+00:00`;
    await copy?.replace(
      [
        { id: 1, created_at: at(9), name: 'a', message: 'm' },
        { id: 3, created_at: at(11), name: 'c', message: 'm' },
        { id: 2, created_at: at(11), name: 'b', message: 'm' },
        { id: 3, created_at: at(11), name: 'c again', message: 'm' },
      ],
      { updatedAt: 1, reconciledAt: 1 },
    );
    expect((await copy?.read())?.entries.map((entry) => [entry.id, entry.name])).toEqual([
      [3, 'c'],
      [2, 'b'],
      [1, 'a'],
    ]);
  });

  it('keeps the newest entries in a small head and the older ones beside it, and reads them back as one copy', async () => {
    const all = entries(HEAD_ENTRIES + 30);
    const copy = await openDeviceCopy();
    await copy?.replace([...all].reverse(), { updatedAt: 7, reconciledAt: 6 });
    const stored = await records();
    expect(Object.keys(stored).sort()).toEqual([HEAD_KEY, REST_KEY]);
    expect(stored[HEAD_KEY]).toEqual({ entries: all.slice(0, HEAD_ENTRIES), count: all.length, updatedAt: 7, reconciledAt: 6 });
    expect(stored[REST_KEY]).toEqual({ entries: all.slice(HEAD_ENTRIES) });
    expect(await (await openDeviceCopy())?.read()).toEqual({ entries: all, updatedAt: 7, reconciledAt: 6 });
  });

  it('writes the head and the rest together: a shorter copy leaves no older rest behind', async () => {
    const copy = await openDeviceCopy();
    await copy?.replace(entries(HEAD_ENTRIES + 30), { updatedAt: 1, reconciledAt: 1 });
    await copy?.replace(entries(HEAD_ENTRIES + 1, 500), { updatedAt: 2, reconciledAt: 2 });
    expect((await copy?.read())?.entries).toEqual(entries(HEAD_ENTRIES + 1, 500));
    await copy?.replace(entries(2, 900), { updatedAt: 3, reconciledAt: 3 });
    expect(await records()).toMatchObject({ [REST_KEY]: { entries: [] } });
    expect(await copy?.read()).toEqual({ entries: entries(2, 900), updatedAt: 3, reconciledAt: 3 });
  });

  it('keeps the previous copy whole when a write fails part way (a full quota on the rest)', async () => {
    const copy = await openDeviceCopy();
    const before = entries(HEAD_ENTRIES + 5);
    await copy?.replace(before, { updatedAt: 1, reconciledAt: 1 });
    const original = Reflect.get(IDBObjectStore.prototype, 'put') as (this: IDBObjectStore, value: unknown, key?: IDBValidKey) => IDBRequest<IDBValidKey>;
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      if (key === REST_KEY) throw new DOMException('quota exceeded', 'QuotaExceededError');
      return original.call(this, value, key);
    });
    expect(await keepCopy(Promise.resolve(copy), entries(HEAD_ENTRIES + 9, 100), { updatedAt: 2, reconciledAt: 2 })).toBe(false);
    spy.mockRestore();
    expect(await copy?.read()).toEqual({ entries: before, updatedAt: 1, reconciledAt: 1 });
    // The entries kept for the served page's first frame are still the copy's newest.
    expect(readFirstCards()?.[0]).toEqual(before[0]);
  });

  it("keeps the copy's newest entries for the served page's first frame with every write", async () => {
    const copy = await openDeviceCopy();
    await copy?.replace(entries(3), { updatedAt: 1, reconciledAt: 1 });
    expect(readFirstCards()).toEqual(entries(3));
    await copy?.replace(entries(30, 10), { updatedAt: 2, reconciledAt: 2 });
    expect(readFirstCards()).toEqual(entries(30, 10).slice(0, 10));
    // The owner removed every entry: nothing is painted from the device.
    await copy?.replace([], { updatedAt: 3, reconciledAt: 3 });
    expect(readFirstCards()).toBeNull();
  });

  it('reads a copy kept by a page of the older layout (one record) and replaces it at the next write', async () => {
    const older = entries(HEAD_ENTRIES + 3);
    await keepAsOlderLayout(older, { updatedAt: 4, reconciledAt: 3 });
    const copy = await openDeviceCopy();
    expect(await copy?.read()).toEqual({ entries: older, updatedAt: 4, reconciledAt: 3 });
    await copy?.replace(entries(1, 200), { updatedAt: 5, reconciledAt: 5 });
    expect(Object.keys(await records()).sort()).toEqual([HEAD_KEY, REST_KEY]);
    expect(await copy?.read()).toEqual({ entries: entries(1, 200), updatedAt: 5, reconciledAt: 5 });
  });

  it('reads the older layout\'s record over a head: a page of that layout wrote it after this one\'s last write', async () => {
    await (await openDeviceCopy())?.replace(entries(2), { updatedAt: 1, reconciledAt: 1 });
    await keepAsOlderLayout(entries(3, 50), { updatedAt: 2, reconciledAt: 2 });
    expect(await (await openDeviceCopy())?.read()).toEqual({ entries: entries(3, 50), updatedAt: 2, reconciledAt: 2 });
  });

  it('is no copy when its records do not make one (a rest missing, a record of an unknown layout)', async () => {
    const copy = await openDeviceCopy();
    await copy?.replace(entries(HEAD_ENTRIES + 2), { updatedAt: 1, reconciledAt: 1 });
    const db = await openDB(COPY_DB);
    await db.delete('copy', REST_KEY);
    expect(await copy?.read()).toBeNull();
    await db.put('copy', { rows: [] }, WHOLE_KEY);
    db.close();
    expect(await copy?.read()).toBeNull();
  });
});
