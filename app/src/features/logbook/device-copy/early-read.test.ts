import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COPY_DB, HEAD_ENTRIES, WHOLE_KEY } from './copy-database';
import { openDeviceCopy } from './copy-store';
import type { KeptEntry } from '../types';

const ann: KeptEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };

beforeEach(() => {
  vi.resetModules();
  vi.stubGlobal('indexedDB', new IDBFactory());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** The module afresh: its one read is per page. */
const earlyRead = () => import('./early-read');

async function databases(): Promise<string[]> {
  return (await indexedDB.databases()).map(({ name }) => name ?? '');
}

describe('readCopyEarly', () => {
  it('reads the copy the copy store kept, once, and hands that read to the visit once', async () => {
    await (await openDeviceCopy())?.replace([ann], { updatedAt: 5, reconciledAt: 4 });
    const { readCopyEarly, takeEarlyRead, earlyReadFound } = await earlyRead();
    expect(earlyReadFound()).toBeUndefined();
    const read = readCopyEarly();
    expect(readCopyEarly()).toBe(read);
    expect(await read).toEqual({ entries: [ann], count: 1, updatedAt: 5, reconciledAt: 4 });
    expect(earlyReadFound()).toEqual({ entries: [ann], count: 1, updatedAt: 5, reconciledAt: 4 });
    expect(takeEarlyRead()).toBe(read);
    expect(takeEarlyRead()).toBeUndefined();
  });

  it("takes up the served page's inline script's read where it ran, instead of reading again", async () => {
    const kept = { entries: [ann], count: 1, updatedAt: 5, reconciledAt: 4 };
    // Nothing on the device: what is found can only come from the inline script.
    vi.stubGlobal('geocacheEarlyPaint', Promise.resolve({ kept, painted: true }));
    const { readCopyEarly, takeEarlyRead } = await earlyRead();
    expect(await readCopyEarly()).toEqual(kept);
    expect(await takeEarlyRead()).toEqual(kept);
    expect(await databases()).toEqual([]);
  });

  it('finds nothing on a device without a copy, and creates no database there', async () => {
    const { readCopyEarly } = await earlyRead();
    expect(await readCopyEarly()).toBeNull();
    expect(await databases()).toEqual([]);
    // The copy store still creates its own afterwards.
    await (await openDeviceCopy())?.replace([ann], { updatedAt: 1, reconciledAt: 1 });
    expect(await databases()).toEqual([COPY_DB]);
  });

  it('finds nothing in a copy of an older layout (a record per entry) or a record it does not know', async () => {
    await new Promise<void>((resolve) => {
      const open = indexedDB.open(COPY_DB, 1);
      open.onupgradeneeded = () => open.result.createObjectStore('entries', { keyPath: 'id' }).put(ann);
      open.onsuccess = () => {
        open.result.close();
        resolve();
      };
    });
    expect(await (await earlyRead()).readCopyEarly()).toBeNull();

    vi.resetModules();
    vi.stubGlobal('indexedDB', new IDBFactory());
    const copy = await openDeviceCopy();
    await copy?.replace([ann], { updatedAt: 1, reconciledAt: 1 });
    await new Promise<void>((resolve) => {
      const open = indexedDB.open(COPY_DB);
      open.onsuccess = () => {
        const put = open.result.transaction('copy', 'readwrite').objectStore('copy').put({ rows: [] }, 'state');
        put.onsuccess = () => {
          open.result.close();
          resolve();
        };
      };
    });
    expect(await (await earlyRead()).readCopyEarly()).toBeNull();
  });

  it('reads only the newest entries of a longer copy, with how many it holds', async () => {
    const all: KeptEntry[] = Array.from({ length: HEAD_ENTRIES + 40 }, (_, index) => ({ ...ann, id: 1000 - index, created_at: new Date(Date.UTC(2024, 4, 1) - index * 1000).toISOString() }));
    await (await openDeviceCopy())?.replace(all, { updatedAt: 5, reconciledAt: 4 });
    expect(await (await earlyRead()).readCopyEarly()).toEqual({ entries: all.slice(0, HEAD_ENTRIES), count: all.length, updatedAt: 5, reconciledAt: 4 });
  });

  it('reads a copy of the older layout (one record) whole, also over a head kept before it', async () => {
    const older = { entries: [{ ...ann, id: 2 }, ann], updatedAt: 9, reconciledAt: 8 };
    const keepOlder = () =>
      new Promise<void>((resolve) => {
        const open = indexedDB.open(COPY_DB, 2);
        open.onupgradeneeded = () => open.result.createObjectStore('copy');
        open.onsuccess = () => {
          const put = open.result.transaction('copy', 'readwrite').objectStore('copy').put(older, WHOLE_KEY);
          put.onsuccess = () => {
            open.result.close();
            resolve();
          };
        };
      });
    await keepOlder();
    expect(await (await earlyRead()).readCopyEarly()).toEqual({ ...older, count: 2 });

    vi.resetModules();
    vi.stubGlobal('indexedDB', new IDBFactory());
    await (await openDeviceCopy())?.replace([{ ...ann, id: 7 }], { updatedAt: 1, reconciledAt: 1 });
    await keepOlder();
    expect(await (await earlyRead()).readCopyEarly()).toEqual({ ...older, count: 2 });
  });

  it('finds nothing where the platform has no IndexedDB', async () => {
    vi.stubGlobal('indexedDB', undefined);
    expect(await (await earlyRead()).readCopyEarly()).toBeNull();
  });
});
