import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { COPY_DB, HEAD_KEY, REST_KEY, WHOLE_KEY } from './copy-database';
import { joinCopy, readWhole, splitCopy, type StoredRest } from './copy-layout';
import { keepFirstCards } from './first-cards';
import { newestFirst } from './newest-first';
import { withoutRemoved } from './removals';
import type { CopyTimes, KeptCopy, KeptEntry, KeptHead } from '../types';

/**
 * The copy is two records (copy-database.ts), written in one transaction: one structured clone each, fast enough to
 * finish before a visitor leaves the page even for a long logbook on a slow phone (a record per entry is far slower
 * there), and a visit that leaves mid-write keeps the previous copy whole. The older layout's one record is read
 * where it is present, and removed by the next write.
 */
interface CopySchema extends DBSchema {
  copy: { key: string; value: KeptHead | StoredRest | KeptCopy };
}

/** The logbook kept on this device. Every method rejects with IndexedDB's error (a full quota included). */
export interface DeviceCopy {
  /** The kept entries, or null when nothing was kept yet (or its records do not make a copy). */
  read(): Promise<KeptCopy | null>;
  /** Replaces the kept entries and their times (entries not given go away). */
  replace(entries: readonly KeptEntry[], times: CopyTimes): Promise<void>;
}

/**
 * Keeps `entries` as the copy, or does nothing where the device cannot (no IndexedDB, a full quota, a closed
 * database): the page then shows what it read from memory only. True when it was kept.
 */
export async function keepCopy(copy: Promise<DeviceCopy | null>, entries: readonly KeptEntry[], times: CopyTimes): Promise<boolean> {
  try {
    const opened = await copy;
    if (opened === null) return false;
    await opened.replace(entries, times);
    return true;
  } catch {
    return false;
  }
}

/** Opens the copy; null where the platform has no IndexedDB or refuses to open it: the page then keeps memory only. */
export async function openDeviceCopy(): Promise<DeviceCopy | null> {
  if (typeof indexedDB === 'undefined') return null;
  let db: IDBPDatabase<CopySchema>;
  try {
    db = await openDB<CopySchema>(COPY_DB, 2, {
      upgrade(database) {
        // Version 1 kept a record per entry: its copy is dropped and the next whole read keeps one anew.
        for (const name of [...database.objectStoreNames]) database.deleteObjectStore(name);
        database.createObjectStore('copy');
      },
    });
  } catch {
    return null;
  }
  return {
    async read() {
      // One transaction: the head and the rest as one write left them.
      const store = db.transaction('copy').store;
      const [whole, head, rest] = await Promise.all([store.get(WHOLE_KEY), store.get(HEAD_KEY), store.get(REST_KEY)]);
      if (whole !== undefined) return readWhole(whole);
      if (head === undefined) return null;
      return joinCopy(head, rest);
    },
    async replace(entries, times) {
      // Never an entry this device learned was removed, whichever read brought it back.
      const plain = withoutRemoved(newestFirst(entries)).map(({ id, created_at, name, message }) => ({ id, created_at, name, message }));
      const { head, rest } = splitCopy(plain, times);
      const transaction = db.transaction('copy', 'readwrite');
      const requests: Promise<unknown>[] = [];
      try {
        // One at a time: a request that throws as it is made leaves those before it listed.
        requests.push(transaction.store.put(head, HEAD_KEY));
        requests.push(transaction.store.put(rest, REST_KEY));
        requests.push(transaction.store.delete(WHOLE_KEY));
        await Promise.all([...requests, transaction.done]);
        keepFirstCards(plain);
      } catch (error) {
        // A request that failed on its own (one that could not be stored) leaves the others to commit: a head
        // without its rest. Aborting rolls all of them back, to the previous copy; their rejections are this one.
        for (const request of [...requests, transaction.done]) request.catch(() => undefined);
        try {
          transaction.abort();
        } catch {
          // Already finished: it committed nothing or everything.
        }
        throw error;
      }
    },
  };
}
