import { openDB, type DBSchema } from 'idb';
import type { RefusedSign } from './sign-news';

/**
 * The database of refusals not yet reported: a database of its own, not a second store in the outbox's, so the
 * outbox's database keeps version 1 (an upgrade would wait for every tab of an older build to close it).
 */
export const REFUSED_DB = 'geocache-logbook-refused';
const STORE = 'refused';

interface RefusedSchema extends DBSchema {
  refused: { key: string; value: RefusedSign };
}

/**
 * Kept signs the server refused on delivery, until a page has said so: the service worker's Background Sync
 * refuses signs with no tab open, and the next visit reports them.
 */
export interface RefusalStore {
  all(): Promise<RefusedSign[]>;
  put(sign: RefusedSign): Promise<void>;
  remove(key: string): Promise<void>;
}

/** Opens the refusals; null where the platform has no IndexedDB or refuses to open it. */
export async function openRefusals(): Promise<RefusalStore | null> {
  if (typeof indexedDB === 'undefined') return null;
  const db = await openDB<RefusedSchema>(REFUSED_DB, 1, {
    upgrade(database) {
      database.createObjectStore(STORE, { keyPath: 'key' });
    },
  }).catch(() => null);
  if (db === null) return null;
  return {
    all: () => db.getAll(STORE),
    put: async (sign) => void (await db.put(STORE, sign)),
    remove: (key) => db.delete(STORE, key),
  };
}
