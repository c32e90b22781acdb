import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { newestFirst, type KeptEntry } from './newest-first';

const COPY_DB = 'geocache-logbook-copy';

/** When the copy was last brought up to date (ms since the epoch). */
export interface CopyTimes {
  /** By any read, a catch-up read of newer entries included. */
  readonly updatedAt: number;
  /** By a whole read, which also drops the entries the owner removed. */
  readonly reconciledAt: number;
}

type CopyMeta = Pick<CopyTimes, 'updatedAt'> & Partial<Pick<CopyTimes, 'reconciledAt'>>;

interface CopySchema extends DBSchema {
  entries: { key: number; value: KeptEntry };
  meta: { key: 'state'; value: CopyMeta };
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
    db = await openDB<CopySchema>(COPY_DB, 1, {
      upgrade(database) {
        database.createObjectStore('entries', { keyPath: 'id' });
        database.createObjectStore('meta');
      },
    });
  } catch {
    return null;
  }
  return {
    async read() {
      const transaction = db.transaction(['entries', 'meta']);
      const [meta, entries] = await Promise.all([
        transaction.objectStore('meta').get('state'),
        transaction.objectStore('entries').getAll(),
      ]);
      if (meta === undefined) return null;
      // A copy kept before whole reads were dated separately counts as never reconciled.
      return { entries: newestFirst(entries), updatedAt: meta.updatedAt, reconciledAt: meta.reconciledAt ?? 0 };
    },
    async replace(entries, { updatedAt, reconciledAt }) {
      const transaction = db.transaction(['entries', 'meta'], 'readwrite');
      const store = transaction.objectStore('entries');
      await store.clear();
      await Promise.all(entries.map((entry) => store.put({ ...entry })));
      await transaction.objectStore('meta').put({ updatedAt, reconciledAt }, 'state');
      await transaction.done;
    },
  };
}
