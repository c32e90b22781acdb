import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { COPY_DB } from './copy-database';
import { newestFirst, type KeptEntry } from './newest-first';

/** When the copy was last brought up to date (ms since the epoch). */
export interface CopyTimes {
  /** By any read, a catch-up read of newer entries included. */
  readonly updatedAt: number;
  /** By a whole read, which also drops the entries the owner removed. */
  readonly reconciledAt: number;
}

/**
 * The whole copy is one record: writing it is one structured clone in one transaction, fast enough to finish before
 * a visitor leaves the page even for a long logbook on a slow phone (a record per entry took seconds there), and a
 * visit that leaves mid-write keeps the previous copy whole.
 */
interface StoredCopy extends CopyTimes {
  /** Newest first, each id once: ordered when kept, so a visit shows them without sorting. */
  readonly entries: KeptEntry[];
}

interface CopySchema extends DBSchema {
  copy: { key: 'state'; value: StoredCopy };
}

/** What a visit finds on the device. */
export interface KeptCopy extends CopyTimes {
  /** Newest first. */
  readonly entries: KeptEntry[];
}

/** The logbook kept on this device. Every method rejects with IndexedDB's error (a full quota included). */
export interface DeviceCopy {
  /** The kept entries, or null when nothing was kept yet. */
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
      const stored = await db.get('copy', 'state');
      if (stored === undefined) return null;
      return { entries: stored.entries, updatedAt: stored.updatedAt, reconciledAt: stored.reconciledAt };
    },
    async replace(entries, { updatedAt, reconciledAt }) {
      const plain = newestFirst(entries).map(({ id, created_at, name, message }) => ({ id, created_at, name, message }));
      await db.put('copy', { entries: plain, updatedAt, reconciledAt }, 'state');
    },
  };
}
