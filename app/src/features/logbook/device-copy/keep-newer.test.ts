import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDeviceCopy, type DeviceCopy } from './copy-store';
import { keepNewer } from './keep-newer';

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const ann = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'a' };
const bo = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'b' };
const cy = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'c' };

async function keptCopy(entries: (typeof ann)[]): Promise<DeviceCopy> {
  const copy = await openDeviceCopy();
  if (copy === null) throw new Error('no IndexedDB');
  await copy.replace(entries, { updatedAt: 100, reconciledAt: 50 });
  return copy;
}

describe('keepNewer', () => {
  it('adds arrivals to a copy that holds the newest entry read, each id once, keeping its reconciliation time', async () => {
    const copy = await keptCopy([bo, ann]);
    expect(await keepNewer(Promise.resolve(copy), [cy, bo], bo.created_at, 999)).toBe(true);
    expect(await copy.read()).toEqual({ entries: [cy, bo, ann], updatedAt: 999, reconciledAt: 50 });
  });

  it('leaves a copy older than the read alone: a newer entry there would hide the read\'s from the next visit', async () => {
    const copy = await keptCopy([ann]);
    expect(await keepNewer(Promise.resolve(copy), [cy], bo.created_at, 999)).toBe(false);
    expect(await copy.read()).toEqual({ entries: [ann], updatedAt: 100, reconciledAt: 50 });
  });

  it('adds to an empty copy when the read was empty too', async () => {
    const copy = await keptCopy([]);
    expect(await keepNewer(Promise.resolve(copy), [cy], undefined, 999)).toBe(true);
    expect((await copy.read())?.entries).toEqual([cy]);
  });

  it('keeps nothing where nothing was kept yet, or the device has no copy or cannot write', async () => {
    const copy = await openDeviceCopy();
    expect(await keepNewer(Promise.resolve(copy), [cy], undefined, 999)).toBe(false);
    expect(await copy?.read()).toBeNull();
    expect(await keepNewer(Promise.resolve(null), [cy], undefined, 999)).toBe(false);
    const failing: DeviceCopy = {
      read: () => Promise.resolve({ entries: [], updatedAt: 1, reconciledAt: 1 }),
      replace: () => Promise.reject(new DOMException('full', 'QuotaExceededError')),
    };
    expect(await keepNewer(Promise.resolve(failing), [cy], undefined, 999)).toBe(false);
  });
});
