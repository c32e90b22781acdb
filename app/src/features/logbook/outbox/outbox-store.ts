import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { OutboxItem } from './plain-request';
import { openRefusals } from './refusal-store';
import type { RefusedSign } from './sign-news';

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
  /**
   * Removes a sign the server refused, keeping the refusal until a page reports it. The refusal is written first:
   * a round cut off in between leaves the sign waiting, and sending it again is refused again under the same key.
   */
  refuse(sign: RefusedSign): Promise<void>;
  /** The refusals no page has reported yet. */
  refusals(): Promise<RefusedSign[]>;
  /** Forgets a refusal once it is reported. */
  forgetRefusal(key: string): Promise<void>;
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
  // Without it a refusal is still reported by the page that made the round, and by every open tab.
  const refused = await openRefusals();
  const remove = async (key: string) => void (await db.delete(STORE, key));
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
    remove,
    async refuse(sign) {
      await refused?.put(sign).catch(() => undefined);
      await remove(sign.key);
    },
    refusals: async () => (await refused?.all()) ?? [],
    forgetRefusal: async (key) => void (await refused?.remove(key)),
  };
}
