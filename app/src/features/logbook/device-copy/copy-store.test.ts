import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDeviceCopy } from './copy-store';

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
      1234,
    );
    const again = await openDeviceCopy();
    const kept = await again?.read();
    expect(kept?.updatedAt).toBe(1234);
    expect(kept?.entries.map((entry) => entry.id)).toEqual([2, 1]);
    // A later whole read replaces it: an entry the owner removed goes away.
    await again?.replace([{ id: 2, created_at: '2024-05-01T11:00:00+00:00', name: 'b', message: 'm' }], 5678);
    expect((await again?.read())?.entries.map((entry) => entry.id)).toEqual([2]);
  });
});
