import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { OutboxItem } from './plain-request';

/** The database name, shared by every tab and by the service worker, which drain the same outbox. */
export const OUTBOX_DB = 'geocache-logbook-outbox';
const STORE = 'signs';

interface OutboxSchema extends DBSchema {
  signs: { key: string; value: OutboxItem };
}

/** The signs waiting to be sent, in IndexedDB. Every method rejects with IndexedDB's error (a full quota included). */
export interface OutboxStore {
  /** Every waiting sign, oldest first. */
  all(): Promise<OutboxItem[]>;
  /** Saves a sign, replacing one with the same key (the first `savedAt` is kept). */
  put(item: OutboxItem): Promise<void>;
  remove(key: string): Promise<void>;
}

/** Opens the outbox; null where the platform has no IndexedDB or refuses to open it (private modes, policies). */
export async function openOutbox(): Promise<OutboxStore | null> {
  if (typeof indexedDB === 'undefined') return null;
  let db: IDBPDatabase<OutboxSchema>;
  try {
    db = await openDB<OutboxSchema>(OUTBOX_DB, 1, {
      upgrade(database) {
        database.createObjectStore(STORE, { keyPath: 'key' });
      },
    });
  } catch {
    return null;
  }
  return {
    async all() {
      const items = await db.getAll(STORE);
      return items.sort((a, b) => a.savedAt - b.savedAt);
    },
    async put(item) {
      const transaction = db.transaction(STORE, 'readwrite');
      const earlier = await transaction.store.get(item.key);
      await transaction.store.put(earlier === undefined ? item : { ...item, savedAt: earlier.savedAt });
      await transaction.done;
    },
    async remove(key) {
      await db.delete(STORE, key);
    },
  };
}
