import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { newestFirst, type KeptEntry } from './newest-first';

const COPY_DB = 'geocache-logbook-copy';

interface CopyMeta {
  /** When the copy was last brought up to date with a whole read (ms since the epoch). */
  readonly updatedAt: number;
}

interface CopySchema extends DBSchema {
  entries: { key: number; value: KeptEntry };
  meta: { key: 'state'; value: CopyMeta };
}

/** What a visit finds on the device. */
export interface KeptCopy {
  /** Newest first. */
  readonly entries: KeptEntry[];
  readonly updatedAt: number;
}

/** The logbook kept on this device. Every method rejects with IndexedDB's error (a full quota included). */
export interface DeviceCopy {
  /** The kept entries, or null when nothing was kept yet. */
  read(): Promise<KeptCopy | null>;
  /** Replaces the copy with a whole read of the logbook (entries the owner removed go away). */
  replace(entries: readonly KeptEntry[], updatedAt: number): Promise<void>;
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
      return { entries: newestFirst(entries), updatedAt: meta.updatedAt };
    },
    async replace(entries, updatedAt) {
      const transaction = db.transaction(['entries', 'meta'], 'readwrite');
      const store = transaction.objectStore('entries');
      await store.clear();
      await Promise.all(entries.map((entry) => store.put({ ...entry })));
      await transaction.objectStore('meta').put({ updatedAt }, 'state');
      await transaction.done;
    },
  };
}
