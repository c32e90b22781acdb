import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { openDB } from 'idb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepCopy, openDeviceCopy, type DeviceCopy } from './copy-store';

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

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
});
